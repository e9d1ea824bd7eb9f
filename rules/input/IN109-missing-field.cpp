#include "rules/input/load_problem_rule.h"

PG_LOAD_PROBLEM_RULE(IN109, "missing-field", Error, MissingField,
                     "An object lacks apiVersion, kind or metadata.name",
                     "add it; without it the object cannot be applied and is skipped")
