#include "rules/gateway/gateway_rules.h"

namespace pg::rules {
namespace {

using namespace gateway;

void check(Context& ctx) {
  forEachUnresolvedBackend(
      ctx, "InvalidKind",
      [&](const graph::Route& route, const graph::RouteRule& rule, const graph::BackendRef& b) {
        reportBackend(
            ctx, route, rule, b,
            b.message +
                ": the route's ResolvedRefs condition is False and traffic this backend "
                "would receive is dropped; refer to a core Service (omit group and kind), "
                "or to a kind the Gateway's implementation documents as a backend");
      });
}

}  // namespace

PG_RULE(GW209, "invalid-backend-kind", "gateway", Error,
        "A backendRef names a kind that cannot be a backend", gateway::kRouteKinds, check)

}  // namespace pg::rules
