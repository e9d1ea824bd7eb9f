#include "rules/input/schema_rule.h"

namespace pg::rules {
namespace {

void check(Context& ctx) {
  reportSchemaViolations(ctx, schema::Code::SeedField, [](const schema::Violation&) {
    return std::string(
        "the API server refuses the object under strict field validation (kubectl apply's "
        "default) and drops the field otherwise; policygraph simulates it as the specification "
        "defines it. Apply it only to a cluster whose CRD serves the field");
  });
}

}  // namespace

PG_RULE(IN126, "seed-field", "input", Warning,
        "A field the policygraph specification defines that the released CRD does not serve", "*",
        check)

}  // namespace pg::rules
