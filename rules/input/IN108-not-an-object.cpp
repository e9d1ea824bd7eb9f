#include "rules/input/load_problem_rule.h"

PG_LOAD_PROBLEM_RULE(
    IN108, "not-an-object", Error, NotAnObject, "A YAML document is not a Kubernetes object",
    "every document must be a mapping with apiVersion, kind and metadata; it is skipped")
