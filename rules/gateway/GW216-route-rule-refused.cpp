#include <string>

#include "rules/gateway/gateway_rules.h"

namespace pg::rules {
namespace {

using namespace gateway;

// A rule the route's controller drops (Accepted False when it is the route's only valid hope),
// and filters it cannot apply (ResolvedRefs False, HTTP 500): checks the API server does not
// make, so nothing else reports them before the route reaches the cluster.
void check(Context& ctx) {
  for (const graph::Route& route : ctx.analysis().topology.routes) {
    if (!routeChecked(route)) continue;
    if (route.kind != graph::RouteKind::HTTP && route.kind != graph::RouteKind::GRPC) continue;
    const model::Resource& r = *route.resource;
    for (const graph::RouteRule& rule : route.rules) {
      if (!rule.problem && rule.refusedFilters.empty()) continue;
      const std::string prefix = r.display() + " " + describeRule(rule) + ": ";
      if (const graph::RouteProblem* p = rule.problem.get()) {
        const std::string consequence =
            route.invalidRule
                ? "no rule of the route is valid, so it is not accepted (Accepted False, " +
                      p->reason + ")"
                : "the controller drops this rule (Accepted stays True only for the route's "
                  "valid rules), so requests it matches find no route";
        model::Finding& f =
            ctx.report(r.locate(p->at), prefix + p->message + ". " + consequence, &r);
        f.discriminator = "rules[" + std::to_string(rule.index) + "]";
        if (p->object) {
          f.objects.push_back(p->object->display());
          f.related.push_back({p->object->locate(p->objectAt ? p->objectAt : p->object->node),
                               p->object->display() + " is defined here"});
        }
      }
      // Istio's translation ends at the filter (the message says so); Envoy Gateway's
      // answers the rule's requests with an error.
      const bool routeDropped =
          route.profile->routeRuleChecks == graph::RouteRuleChecks::TranslationErrors;
      for (const graph::FilterRefusal& refused : rule.refusedFilters) {
        model::Finding& f = ctx.report(
            r.locate(refused.at),
            prefix + refused.message + ". The route's ResolvedRefs condition is False (" +
                refused.reason + ")" +
                (routeDropped ? "" : " and requests this rule matches get HTTP 500"),
            &r);
        f.discriminator = "rules[" + std::to_string(rule.index) + "]:filter";
      }
    }
  }
}

}  // namespace

PG_RULE(GW216, "route-rule-refused", "gateway", Error,
        "A route rule or filter the route's controller refuses when it translates the route",
        gateway::kRouteKinds, check)

}  // namespace pg::rules
