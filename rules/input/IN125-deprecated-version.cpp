#include "rules/input/schema_rule.h"

namespace pg::rules {
namespace {

void check(Context& ctx) {
  reportSchemaViolations(ctx, schema::Code::DeprecatedVersion, [](const schema::Violation& v) {
    return "the API server still accepts it but warns, and a later release removes it: move to " +
           (v.suggestion.empty() ? std::string("a version that is not deprecated")
                                 : "a version that is not deprecated (served: " + v.suggestion +
                                       ")");
  });
}

}  // namespace

PG_RULE(IN125, "deprecated-version", "input", Warning, "An apiVersion that is deprecated", "*",
        check)

}  // namespace pg::rules
