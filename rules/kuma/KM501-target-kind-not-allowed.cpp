#include "rules/kuma/kuma_rules.h"

namespace pg::rules {
namespace {

void check(Context& ctx) {
  kumarules::reportAll(ctx, policy::kuma::Check::TargetKind);
}

}  // namespace

PG_RULE(KM501, "target-kind-not-allowed", "kuma", Error,
        "A Kuma policy uses a targetRef kind or a section its type does not allow",
        "MeshAccessLog,MeshCircuitBreaker,MeshFaultInjection,MeshHTTPRoute,MeshHealthCheck,"
        "MeshLoadBalancingStrategy,MeshMetric,MeshPassthrough,MeshProxyPatch,MeshRateLimit,"
        "MeshRetry,MeshTCPRoute,MeshTLS,MeshTimeout,MeshTrace,MeshTrafficPermission",
        check)

}  // namespace pg::rules
