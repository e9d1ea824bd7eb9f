#include "rules/kuma/kuma_rules.h"

namespace pg::rules {
namespace {

void check(Context& ctx) {
  kumarules::reportAll(ctx, policy::kuma::Check::RoleMix);
}

}  // namespace

PG_RULE(KM504, "namespace-policy-mixes-roles", "kuma", Error,
        "A namespace-scoped Kuma policy mixes producer and consumer `to` items, or has both `to` "
        "and `from`",
        "MeshAccessLog,MeshCircuitBreaker,MeshFaultInjection,MeshHTTPRoute,MeshHealthCheck,"
        "MeshLoadBalancingStrategy,MeshMetric,MeshPassthrough,MeshProxyPatch,MeshRateLimit,"
        "MeshRetry,MeshTCPRoute,MeshTLS,MeshTimeout,MeshTrace,MeshTrafficPermission",
        check)

}  // namespace pg::rules
