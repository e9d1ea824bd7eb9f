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
    model::Finding& f =
        ctx.report(r.locate(p.at),
                   "Linkerd's admission webhook refuses " + r.display() + ": " + p.message, &r);
    f.discriminator = p.message;
  }
}

// Whether Linkerd's webhook sees a route: policy.linkerd.io routes always; Gateway API routes
// only where Linkerd runs (Linkerd objects in the input, or a Server parent).
inline bool webhookSeesRoute(const analysis::Analysis& a, const model::Resource& r) {
  namespace ld = policy::linkerd;
  return ld::isServerRouteKind(r.group, r.kind) &&
         (r.group == ld::kPolicyGroup || ld::linkerdInstalled(a.store) ||
          !a.linkerd.parentsOf(&r).empty());
}

// Whether the API server would refuse the object (LD601-LD606): such an object never exists in
// the cluster, so the rules about what Linkerd makes of it (LD650 and up) leave it out.
inline bool refused(const analysis::Analysis& a, const model::Resource& r) {
  namespace ld = policy::linkerd;
  auto any = [](const std::vector<ld::Problem>& problems) {
    for (const ld::Problem& p : problems)
      if (p.refused) return true;
    return false;
  };
  if (r.group == ld::kPolicyGroup) {
    if (r.kind == "AuthorizationPolicy") return any(ld::refuseAuthorizationPolicy(r));
    if (r.kind == "MeshTLSAuthentication") return any(ld::refuseMeshTlsAuthentication(r));
    if (r.kind == "NetworkAuthentication") return any(ld::refuseNetworks(r));
    if (r.kind == "Server") return any(ld::refuseServer(r));
    if (r.kind == "ServerAuthorization")
      return any(ld::refuseServerAuthorization(r)) || any(ld::refuseNetworks(r));
  }
  return webhookSeesRoute(a, r) && any(ld::refuseRoute(r));
}

// Every object of one Linkerd kind, in Store order.
template <typename Refuse>
void checkKind(Context& ctx, std::string_view kind, Refuse refuse) {
  for (const model::Resource* r : ctx.store().ofKind(policy::linkerd::kPolicyGroup, kind))
    reportRefusals(ctx, *r, refuse(*r));
}

}  // namespace pg::rules::linkerdrules
