#include "rules/input/load_problem_rule.h"

PG_LOAD_PROBLEM_RULE(IN105, "alias-expansion", Error, AliasExpansion,
                     "YAML aliases expand without bound or refer to themselves",
                     "write the values out, or raise limits.maxAliasExpansion in "
                     ".policygraph.yaml; the document is skipped")
