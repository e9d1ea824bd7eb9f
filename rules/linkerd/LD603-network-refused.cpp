#include "rules/linkerd/linkerd_rules.h"

namespace pg::rules {
namespace {

void check(Context& ctx) {
  linkerdrules::checkKind(ctx, "NetworkAuthentication", policy::linkerd::refuseNetworks);
  linkerdrules::checkKind(ctx, "ServerAuthorization", policy::linkerd::refuseNetworks);
}

}  // namespace

PG_RULE(LD603, "network-refused", "linkerd", Error,
        "Linkerd refuses a NetworkAuthentication or ServerAuthorization network: no networks, "
        "an unparsable CIDR, or an exception not strictly inside its network",
        "NetworkAuthentication,ServerAuthorization", check)

}  // namespace pg::rules
