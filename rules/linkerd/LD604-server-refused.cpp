#include "rules/linkerd/linkerd_rules.h"

namespace pg::rules {
namespace {

void check(Context& ctx) {
  linkerdrules::checkKind(ctx, "Server", policy::linkerd::refuseServer);
}

}  // namespace

PG_RULE(LD604, "server-refused", "linkerd", Error,
        "Linkerd refuses a Server with an unknown proxyProtocol or accessPolicy", "Server", check)

}  // namespace pg::rules
