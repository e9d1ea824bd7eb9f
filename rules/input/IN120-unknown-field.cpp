#include "rules/input/schema_rule.h"

namespace pg::rules {
namespace {

void check(Context& ctx) {
  reportSchemaViolations(ctx, schema::Code::UnknownField, [](const schema::Violation& v) {
    std::string advice = v.suggestion.empty()
                             ? std::string("the schema has no such field here.")
                             : "did you mean \"" + v.suggestion + "\"?";
    return advice +
           " The API server refuses the object (strict field validation), and a controller "
           "would never read the field: rename or remove it";
  });
}

}  // namespace

PG_RULE(IN120, "unknown-field", "input", Error, "A field the object's API schema does not have",
        "*", check)

}  // namespace pg::rules
