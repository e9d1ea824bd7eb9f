#include "rules/kuma/kuma_rules.h"

namespace pg::rules {
namespace {

void check(Context& ctx) {
  kumarules::reportAll(ctx, policy::kuma::Check::SameRank);
}

}  // namespace

PG_RULE(KM507, "same-rank-conflict", "kuma", Warning,
        "Two Kuma policies of the same rank set one field for one proxy: only their names decide "
        "which wins",
        "MeshAccessLog,MeshCircuitBreaker,MeshFaultInjection,MeshHealthCheck,"
        "MeshLoadBalancingStrategy,MeshMetric,MeshPassthrough,MeshProxyPatch,MeshRateLimit,"
        "MeshRetry,MeshTLS,MeshTimeout,MeshTrace,MeshTrafficPermission",
        check)

}  // namespace pg::rules
