#include "rules/rule.h"

namespace pg::rules {
namespace {

// The rule engine reports it (rules/engine.cpp, dropPlaceholders): a finding of any rule
// whose field holds a placeholder is not reported, and one note per unit says so.
void check(Context&) {}

}  // namespace

PG_RULE(IN132, "placeholder-not-checked", "input", Note,
        "Findings that rest on values substituted before apply (${VAR}, {NAME}) are not reported",
        "file", check)

}  // namespace pg::rules
