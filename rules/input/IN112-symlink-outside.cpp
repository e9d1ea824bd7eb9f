#include "rules/input/load_problem_rule.h"

PG_LOAD_PROBLEM_RULE(
    IN112, "symlink-outside", Warning, SymlinkOutside,
    "A symlink points outside the folder being checked",
    "check the target folder on its own, or copy the file in; the link is not followed")
