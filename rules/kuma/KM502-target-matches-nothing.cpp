#include "rules/kuma/kuma_rules.h"

namespace pg::rules {
namespace {

void check(Context& ctx) {
  kumarules::reportAll(ctx, policy::kuma::Check::TargetMissing);
}

}  // namespace

PG_RULE(KM502, "target-matches-nothing", "kuma", Warning,
        "A Kuma policy's targetRef selects no proxy or names an object that is not in the mesh",
        "MeshAccessLog,MeshCircuitBreaker,MeshFaultInjection,MeshHTTPRoute,MeshHealthCheck,"
        "MeshLoadBalancingStrategy,MeshMetric,MeshPassthrough,MeshProxyPatch,MeshRateLimit,"
        "MeshRetry,MeshTCPRoute,MeshTLS,MeshTimeout,MeshTrace,MeshTrafficPermission",
        check)

}  // namespace pg::rules
