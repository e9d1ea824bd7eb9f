#include "rules/input/load_problem_rule.h"

PG_LOAD_PROBLEM_RULE(
    IN107, "file-too-large", Error, FileTooLarge, "A file is larger than the configured limit",
    "split it, or raise limits.maxFileBytes in .policygraph.yaml; the whole file is skipped")
