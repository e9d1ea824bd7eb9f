#include "rules/linkerd/linkerd_rules.h"

namespace pg::rules {
namespace {

void check(Context& ctx) {
  for (const model::Resource* r :
       ctx.store().ofKind(policy::linkerd::kPolicyGroup, "ServerAuthorization")) {
    if (linkerdrules::refused(ctx.analysis(), *r)) continue;
    ctx.report(r->locateField(r->node, "kind"),
               r->display() +
                   " is a ServerAuthorization, which Linkerd deprecates: write an "
                   "AuthorizationPolicy targeting the Server, with a MeshTLSAuthentication or "
                   "NetworkAuthentication for its client",
               r);
  }
}

}  // namespace

PG_RULE(LD654, "server-authorization-deprecated", "linkerd", Note,
        "ServerAuthorization is deprecated in favour of AuthorizationPolicy", "ServerAuthorization",
        check)

}  // namespace pg::rules
