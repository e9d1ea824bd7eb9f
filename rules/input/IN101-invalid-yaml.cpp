#include "rules/input/load_problem_rule.h"

PG_LOAD_PROBLEM_RULE(IN101, "invalid-yaml", Error, InvalidYaml, "A file is not valid YAML or JSON",
                     "fix the syntax; this document is skipped, and reading resumes at the next "
                     "line that starts with ---")
