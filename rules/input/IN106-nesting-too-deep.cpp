#include "rules/input/load_problem_rule.h"

PG_LOAD_PROBLEM_RULE(
    IN106, "nesting-too-deep", Error, NestingTooDeep,
    "A document nests deeper than the configured limit",
    "flatten it, or raise limits.maxDepth in .policygraph.yaml; the document is skipped")
