#include "rules/input/load_problem_rule.h"

PG_LOAD_PROBLEM_RULE(IN130, "unit-build-failed", Error, UnitBuild,
                     "A kustomization (or the Flux or Argo CD object that builds one) that its "
                     "tool refuses to build",
                     "the tool stops here and applies nothing of the unit; the unit is analysed "
                     "with what could be built")
