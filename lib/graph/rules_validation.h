// Validation of route rules the way a controller does it before it programs a route: the
// values the Gateway API says must set `Accepted: False` (unknown enum values, filters that
// cannot be combined, malformed header modifiers and rewrites), and the restrictions Envoy
// Gateway documents where the specification leaves room. Constraints the API server already
// enforces at admission (CEL rules the controller never sees violated) are lint territory and
// are not repeated here unless the controller enforces them too.
#pragma once

#include <optional>
#include <string>

#include "lib/yaml/tree.h"

namespace pg::model {
struct Resource;
}

namespace pg::graph {

struct Route;
struct RouteRule;

// Why a route, or one of its rules, cannot be programmed.
struct RouteProblem {
  std::string reason;   // the Accepted condition's reason, e.g. UnsupportedValue
  std::string message;  // what is wrong and how to fix it
  yaml::NodeRef at;     // the exact field at fault
  // The filter object the problem is in (Envoy Gateway's HTTPRouteFilter), when it is one.
  const model::Resource* object = nullptr;
  yaml::NodeRef objectAt;
};

// The first problem of one rule of an HTTPRoute or GRPCRoute, or nullopt when the rule is
// valid. Other route kinds have no rule-level checks.
std::optional<RouteProblem> validateRouteRule(const Route& route, const RouteRule& rule);

// Validates every rule of a route, keeping each one's problem in RouteRule::problem, and
// answers the problem that makes the route's rules invalid as a whole, or nullopt. A route with
// at least one valid rule stays accepted: the specification has the controller drop the
// invalid rules and report `PartiallyInvalid` instead (GEP-1364), so only a route whose every
// rule is invalid yields a problem here (the first rule's).
std::optional<RouteProblem> validateRouteRules(Route& route);

}  // namespace pg::graph
