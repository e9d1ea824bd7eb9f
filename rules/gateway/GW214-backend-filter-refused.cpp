#include "rules/gateway/gateway_rules.h"

namespace pg::rules {
namespace {

using namespace gateway;

// Filters on a backendRef that the controller of the route's parents refuses there: Istio
// takes only header modifiers (InvalidFilter), Envoy Gateway no path rewrite
// (UnsupportedRefValue). Both set the route's ResolvedRefs False.
void check(Context& ctx) {
  forEachUnresolvedBackend(
      ctx, {"InvalidFilter", "UnsupportedRefValue"},
      [&](const graph::Route& route, const graph::RouteRule& rule, const graph::BackendRef& b) {
        reportBackend(ctx, route, rule, b,
                      b.message + ". The route's ResolvedRefs condition is False (" + b.reason +
                          ") and the filter is not applied");
      });
}

}  // namespace

PG_RULE(GW214, "backend-filter-refused", "gateway", Error,
        "A filter on a backendRef that the route's controller does not take there",
        gateway::kRouteKinds, check)

}  // namespace pg::rules
