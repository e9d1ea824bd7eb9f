// Envoy Gateway's own route filter kind, `HTTPRouteFilter` (gateway.envoyproxy.io), as its
// translator resolves and checks it (internal/gatewayapi/filters.go:
// processExtensionRefHTTPFilter, processURLRewriteFilter; route.go for a DynamicResolver
// destination). The topology asks for it through ControllerProfile::checksEnvoyRouteFilters.
#pragma once

#include <optional>

#include "lib/graph/rules_validation.h"
#include "lib/graph/topology.h"

namespace pg::graph {

// Fills `rule.extensionFilters` with the ExtensionRef filters of the rule and of its
// backendRefs, and `rule.refusedFilters` with what the translator cannot apply, as
// ResolvedRefs False: an HTTPRouteFilter that is not in the route's namespace
// (UnsupportedValue on the rule, InvalidBackendFilters on a backendRef), a backendRef filter of
// a kind no extension registers (InvalidBackendFilters), a hostname rewritten from the path in
// front of a DynamicResolver Backend (UnsupportedValue). Call once the rule's backends are
// resolved.
void resolveEnvoyRouteFilters(RouteRule& rule, const Route& route, const model::Store& store);

// The first problem of a rule's HTTPRouteFilters that makes the translator drop the rule
// (Accepted False, UnsupportedValue): an ExtensionRef of a kind no extension registers, a
// second URL rewrite of the same part, a rewrite
// missing what its type needs, a pattern that is no RE2 expression, a second filter with
// matches, a 2xx direct response on a GRPCRoute.
std::optional<RouteProblem> checkEnvoyRouteFilters(const Route& route, const RouteRule& rule);

}  // namespace pg::graph
