#include "rules/linkerd/linkerd_rules.h"

namespace pg::rules {
namespace {

void check(Context& ctx) {
  linkerdrules::checkKind(ctx, "ServerAuthorization", policy::linkerd::refuseServerAuthorization);
}

}  // namespace

PG_RULE(LD605, "server-authorization-refused", "linkerd", Error,
        "Linkerd refuses a ServerAuthorization whose client mixes unauthenticated access with "
        "meshTLS, or unauthenticatedTLS with identities",
        "ServerAuthorization", check)

}  // namespace pg::rules
