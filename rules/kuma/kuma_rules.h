#pragma once

// What the Kuma rules share: the problems lib/policy/kuma/validate.* finds, computed once per
// run, each reported by the rule of its check at the field at fault.
#include <vector>

#include "lib/policy/kuma/validate.h"
#include "rules/rule.h"

namespace pg::rules::kumarules {

inline const std::vector<policy::kuma::Problem>& problems(Context& ctx) {
  static const int key = 0;
  return ctx.shared().get<std::vector<policy::kuma::Problem>>(&key, [&] {
    policy::kuma::Settings settings;
    settings.systemNamespace = ctx.analysis().config.kumaSystemNamespace;
    return policy::kuma::validate(ctx.store(), ctx.analysis().kuma, settings);
  });
}

inline void reportAll(Context& ctx, policy::kuma::Check check) {
  for (const policy::kuma::Problem& p : problems(ctx)) {
    if (p.check != check) continue;
    model::Location where =
        p.key.empty() ? p.resource->locate(p.map) : p.resource->locateField(p.map, p.key);
    ctx.report(where, p.message, p.resource).discriminator = p.discriminator;
  }
}

}  // namespace pg::rules::kumarules
