#include "rules/input/load_problem_rule.h"

PG_LOAD_PROBLEM_RULE(IN103, "binary-file", Error, BinaryFile,
                     "A file with a manifest extension holds binary data",
                     "remove it, or exclude it in .policygraph.yaml; the whole file is skipped")
