#include "rules/input/load_problem_rule.h"

PG_LOAD_PROBLEM_RULE(IN113, "unreadable-file", Error, Unreadable, "A file or folder cannot be read",
                     "fix its permissions or the broken link; it is skipped")
