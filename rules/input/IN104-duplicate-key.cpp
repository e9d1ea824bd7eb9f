#include "rules/input/load_problem_rule.h"

PG_LOAD_PROBLEM_RULE(IN104, "duplicate-key", Error, DuplicateKey, "A mapping repeats a key",
                     "remove one of them; the API server rejects such a manifest, and tools "
                     "disagree on which value wins (policygraph reads the first)")
