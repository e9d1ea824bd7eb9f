#include "rules/linkerd/linkerd_rules.h"

namespace pg::rules {
namespace {

void check(Context& ctx) {
  linkerdrules::checkKind(ctx, "AuthorizationPolicy", policy::linkerd::refuseAuthorizationPolicy);
}

}  // namespace

PG_RULE(LD601, "authorization-policy-refused", "linkerd", Error,
        "Linkerd refuses an AuthorizationPolicy: its target, or the authentications it requires",
        "AuthorizationPolicy", check)

}  // namespace pg::rules
