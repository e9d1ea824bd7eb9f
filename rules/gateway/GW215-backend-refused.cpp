#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/graph/envoy_backends.h"
#include "rules/gateway/gateway_rules.h"

namespace pg::rules {
namespace {

using namespace gateway;

// The refusals other rules report: a missing backend or port (GW203, also PortNotFound), a
// reference no ReferenceGrant permits (GW204), a kind that is no backend (GW209), a filter the
// controller does not take on a backendRef (GW214).
constexpr std::array<std::string_view, 6> kReportedElsewhere{
    "BackendNotFound", "PortNotFound",  "RefNotPermitted",
    "InvalidKind",     "InvalidFilter", "UnsupportedRefValue"};

bool reportedElsewhere(std::string_view reason) {
  return std::find(kReportedElsewhere.begin(), kReportedElsewhere.end(), reason) !=
         kReportedElsewhere.end();
}

// What to do about the refusal of an ExternalName Service that every parent's controller
// refuses, which its message does not say (a refusal for one parent alone says it).
std::string_view advice(const graph::BackendRef& b, bool forOneParent) {
  if (forOneParent || !b.target || b.target->spec().get("type").str() != "ExternalName") return "";
  return "; refer to a Service with a selector (or, under Envoy Gateway, to a Backend with an "
         "fqdn endpoint) instead of an ExternalName Service";
}

const graph::RouteRule* ruleOf(const graph::Route& route, const graph::BackendRef* b) {
  for (const graph::RouteRule& rule : route.rules)
    if (!rule.backends.empty() && b >= rule.backends.data() &&
        b < rule.backends.data() + rule.backends.size())
      return &rule;
  return nullptr;
}

model::Finding& report(Context& ctx, const graph::Route& route, const graph::RouteRule& rule,
                       const graph::BackendRef& b, std::string_view reason,
                       const std::string& message, bool forOneParent) {
  const std::string consequence =
      route.kind == graph::RouteKind::HTTP || route.kind == graph::RouteKind::GRPC
          ? "requests this backend would receive get HTTP 500"
          : "connections this backend would receive are dropped";
  model::Finding& f = reportBackend(ctx, route, rule, b,
                                    message + std::string(advice(b, forOneParent)) +
                                        ". The route's ResolvedRefs condition is False (" +
                                        std::string(reason) + ") and " + consequence);
  if (b.target) {
    f.objects.push_back(b.target->display());
    // The field at fault, in the backend or in the object that decided (an EndpointSlice).
    std::optional<graph::EnvoyBackendRefusal> refused;
    if (graph::isEnvoyBackendKind(b.group, b.kind)) {
      refused = graph::checkEnvoyBackend(*b.target);
    } else if (reason == "UnsupportedAddressType" && b.port) {
      refused = graph::checkEndpointSliceTypes(ctx.store(), *b.target, *b.port,
                                               b.kind == "ServiceImport");
    }
    const model::Resource& in = refused && refused->object ? *refused->object : *b.target;
    f.related.push_back(
        {in.locate(refused ? refused->at : in.node), in.display() + " is defined here"});
  }
  return f;
}

void check(Context& ctx) {
  for (const graph::Route& route : ctx.analysis().topology.routes) {
    if (!routeChecked(route)) continue;
    for (const graph::RouteRule& rule : route.rules)
      for (const graph::BackendRef& b : rule.backends)
        if (!b.reason.empty() && !b.notSimulated && !reportedElsewhere(b.reason))
          report(ctx, route, rule, b, b.reason, b.message, false);
    // Refusals of one parent's listeners, once per backendRef.
    std::vector<const graph::BackendRef*> seen;
    for (const graph::RouteParent& parent : route.parents) {
      const graph::UnresolvedBackend& refusal = parent.parentRefusal;
      if (!refusal.backend || std::find(seen.begin(), seen.end(), refusal.backend) != seen.end())
        continue;
      seen.push_back(refusal.backend);
      if (const graph::RouteRule* rule = ruleOf(route, refusal.backend))
        report(ctx, route, *rule, *refusal.backend, refusal.reason, refusal.message, true);
    }
  }
}

}  // namespace

PG_RULE(GW215, "backend-refused", "gateway", Error,
        "A backend the route's controller finds but refuses to send traffic to",
        gateway::kRouteKinds, check)

}  // namespace pg::rules
