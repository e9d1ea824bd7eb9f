#include "rules/input/schema_rule.h"

namespace pg::rules {
namespace {

void check(Context& ctx) {
  reportSchemaViolations(ctx, schema::Code::Required, [](const schema::Violation&) {
    return std::string("the API server refuses the object without it: add the field");
  });
}

}  // namespace

PG_RULE(IN122, "required", "input", Error, "A field the object's API schema requires is missing",
        "*", check)

}  // namespace pg::rules
