#include "rules/input/load_problem_rule.h"

PG_LOAD_PROBLEM_RULE(IN111, "symlink-loop", Error, SymlinkLoop,
                     "A symlink leads back into a folder that contains it",
                     "remove the link; it is not followed")
