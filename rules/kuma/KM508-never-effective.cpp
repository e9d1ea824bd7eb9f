#include "rules/kuma/kuma_rules.h"

namespace pg::rules {
namespace {

void check(Context& ctx) {
  kumarules::reportAll(ctx, policy::kuma::Check::NeverEffective);
}

}  // namespace

PG_RULE(KM508, "never-effective", "kuma", Warning,
        "A Kuma policy item is never effective: later policies in Kuma's order override every "
        "field it sets on every proxy it reaches",
        "MeshAccessLog,MeshCircuitBreaker,MeshFaultInjection,MeshHealthCheck,"
        "MeshLoadBalancingStrategy,MeshMetric,MeshPassthrough,MeshProxyPatch,MeshRateLimit,"
        "MeshRetry,MeshTLS,MeshTimeout,MeshTrace,MeshTrafficPermission",
        check)

}  // namespace pg::rules
