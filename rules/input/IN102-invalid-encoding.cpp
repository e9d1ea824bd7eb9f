#include "rules/input/load_problem_rule.h"

PG_LOAD_PROBLEM_RULE(IN102, "invalid-encoding", Error, InvalidEncoding, "A file is not UTF-8 text",
                     "save the file as UTF-8; the whole file is skipped")
