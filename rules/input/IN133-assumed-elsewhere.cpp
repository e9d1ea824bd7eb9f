#include "rules/rule.h"

namespace pg::rules {
namespace {

// The rule engine reports it (rules/engine.cpp, weighAbsences): where a rule finds an object
// missing that the unit is not evidently the home of, one note per object replaces the
// rule's findings.
void check(Context&) {}

}  // namespace

PG_RULE(IN133, "assumed-elsewhere", "input", Note,
        "An object the unit refers to but does not hold is taken to exist elsewhere", "*", check)

}  // namespace pg::rules
