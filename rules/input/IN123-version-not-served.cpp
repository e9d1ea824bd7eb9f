#include "rules/input/schema_rule.h"

namespace pg::rules {
namespace {

void check(Context& ctx) {
  reportSchemaViolations(ctx, schema::Code::VersionNotServed, [](const schema::Violation& v) {
    return "the API server does not serve this version of the kind and refuses the object: use " +
           (v.suggestion.empty() ? std::string("a served version") : "one of: " + v.suggestion);
  });
}

}  // namespace

PG_RULE(IN123, "version-not-served", "input", Error,
        "An apiVersion the kind's API does not serve", "*", check)

}  // namespace pg::rules
