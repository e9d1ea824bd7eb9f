#pragma once

// What the Linkerd rules share: reporting the fields Linkerd's admission webhook refuses.
#include <string>
#include <string_view>
#include <vector>

#include "lib/policy/linkerd/admission.h"
#include "rules/rule.h"

namespace pg::rules::linkerdrules {

// One finding per problem, at the field at fault, saying the object would be refused.
inline void reportRefusals(Context& ctx, const model::Resource& r,
                           const std::vector<policy::linkerd::Problem>& problems) {
  for (const policy::linkerd::Problem& p : problems) {
    if (!p.refused) continue;
    model::Finding& f = ctx.report(r.locate(p.at),
                                   "the Kubernetes API server would refuse " + r.display() +
                                       " (Linkerd's admission webhook): " + p.message,
                                   &r);
    f.discriminator = p.message;
  }
}

// Every object of one Linkerd kind, in Store order.
template <typename Refuse>
void checkKind(Context& ctx, std::string_view kind, Refuse refuse) {
  for (const model::Resource* r : ctx.store().ofKind(policy::linkerd::kPolicyGroup, kind))
    reportRefusals(ctx, *r, refuse(*r));
}

}  // namespace pg::rules::linkerdrules
