#include "rules/kuma/kuma_rules.h"

namespace pg::rules {
namespace {

void check(Context& ctx) {
  kumarules::reportAll(ctx, policy::kuma::Check::MeshMissing);
}

}  // namespace

PG_RULE(KM505, "mesh-missing", "kuma", Error,
        "A Kuma object is in a mesh that has no Mesh object in the input",
        "Dataplane,MeshGateway,MeshService,MeshExternalService,MeshMultiZoneService,MeshAccessLog,"
        "MeshCircuitBreaker,MeshFaultInjection,MeshHTTPRoute,MeshHealthCheck,"
        "MeshLoadBalancingStrategy,MeshMetric,MeshPassthrough,MeshProxyPatch,MeshRateLimit,"
        "MeshRetry,MeshTCPRoute,MeshTLS,MeshTimeout,MeshTrace,MeshTrafficPermission",
        check)

}  // namespace pg::rules
