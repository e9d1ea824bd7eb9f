#include "rules/input/schema_rule.h"

namespace pg::rules {
namespace {

void check(Context& ctx) {
  reportSchemaViolations(ctx, schema::Code::InvalidValue, [](const schema::Violation& v) {
    // A oneOf, anyOf, allOf or not constraint says which alternatives there are.
    if (!v.suggestion.empty()) return "the API server refuses the object; " + v.suggestion;
    return std::string(
        "the API server refuses the object; write a value the schema allows (type, allowed "
        "values, pattern, format, length and bounds, keys unique in the list)");
  });
}

}  // namespace

PG_RULE(IN121, "invalid-value", "input", Error,
        "A value of the wrong type, not among the allowed values, or out of bounds", "*", check)

}  // namespace pg::rules
