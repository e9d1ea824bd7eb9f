// The schema rules (IN120-IN123, IN125) report what lib/schema found, one rule per kind of
// violation; each adds what to do to the API server's words.
#pragma once

#include <string>

#include "lib/schema/validate.h"
#include "rules/rule.h"

namespace pg::rules {

template <typename Advice>
void reportSchemaViolations(Context& ctx, schema::Code code, Advice advice) {
  const std::vector<model::Resource>& objects = ctx.store().all();
  for (const schema::Violation& v : ctx.analysis().schema.violations) {
    if (v.code != code) continue;
    const model::Resource* subject = v.object < objects.size() ? &objects[v.object] : nullptr;
    model::Finding& f = ctx.report(v.location, v.message + ": " + advice(v), subject);
    f.discriminator = v.path;
  }
}

}  // namespace pg::rules
