#include "rules/kuma/kuma_rules.h"

namespace pg::rules {
namespace {

void check(Context& ctx) {
  kumarules::reportAll(ctx, policy::kuma::Check::OutsideNamespace);
}

}  // namespace

PG_RULE(KM503, "namespace-policy-reaches-outside", "kuma", Warning,
        "A consumer or workload-owner policy of an application namespace targets another "
        "namespace's proxies and selects none",
        "MeshAccessLog,MeshCircuitBreaker,MeshFaultInjection,MeshHTTPRoute,MeshHealthCheck,"
        "MeshLoadBalancingStrategy,MeshMetric,MeshPassthrough,MeshProxyPatch,MeshRateLimit,"
        "MeshRetry,MeshTCPRoute,MeshTLS,MeshTimeout,MeshTrace,MeshTrafficPermission",
        check)

}  // namespace pg::rules
