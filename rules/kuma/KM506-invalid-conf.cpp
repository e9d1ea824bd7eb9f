#include "rules/kuma/kuma_rules.h"

namespace pg::rules {
namespace {

void check(Context& ctx) {
  kumarules::reportAll(ctx, policy::kuma::Check::InvalidConf);
}

}  // namespace

PG_RULE(KM506, "invalid-conf", "kuma", Error,
        "A Kuma policy's conf has a value Kuma's validator rejects (duration, range, enum)",
        "MeshAccessLog,MeshCircuitBreaker,MeshFaultInjection,MeshHTTPRoute,MeshHealthCheck,"
        "MeshLoadBalancingStrategy,MeshMetric,MeshPassthrough,MeshProxyPatch,MeshRateLimit,"
        "MeshRetry,MeshTCPRoute,MeshTLS,MeshTimeout,MeshTrace,MeshTrafficPermission",
        check)

}  // namespace pg::rules
