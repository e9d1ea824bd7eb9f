#include "rules/input/load_problem_rule.h"

PG_LOAD_PROBLEM_RULE(IN131, "unit-feature-not-applied", Note, UnitUnsupported,
                     "A kustomization field or remote base that policygraph does not apply",
                     "the unit is analysed without it, so objects it would add or change are "
                     "missing or unchanged; lint the rendered output (`kustomize build DIR | "
                     "policygraph lint -`) for a complete check")
