#include "rules/gateway/gateway_rules.h"

namespace pg::rules {
namespace {

using namespace gateway;

// A Gateway that names no class, or a class found nowhere (not in the input, not declared,
// not well known) while the input holds other GatewayClasses: a typo more likely than a class
// installed elsewhere. Where the input holds no class at all, GW212 notes the assumption.
void check(Context& ctx) {
  std::vector<const model::Resource*> classes =
      ctx.store().ofKind(graph::kGatewayGroup, "GatewayClass");
  std::string known;
  for (const model::Resource* c : classes) {
    known += known.empty() ? "" : ", ";
    known += std::string(c->name);
  }
  for (const graph::Gateway& g : ctx.analysis().topology.gateways) {
    if (g.isListenerSet() || g.classOrigin != graph::ClassOrigin::Missing) continue;
    const model::Resource& r = *g.resource;
    std::string message =
        g.className.empty()
            ? r.display() +
                  " names no GatewayClass. No controller takes it, so it gets no address and "
                  "its routes receive no traffic; set spec.gatewayClassName"
            : r.display() + " names GatewayClass " + std::string(g.className) +
                  ", which is not in the input. The input defines " + known +
                  ", so this name is probably wrong and no controller would take the Gateway; "
                  "use one of them, or, if the controller installs " +
                  std::string(g.className) +
                  ", declare it in .policygraph.yaml (gatewayClasses: [{name: " +
                  std::string(g.className) + ", controllerName: ...}])";
    if (g.className.empty() && !known.empty())
      message += " to one of the GatewayClasses in the input (" + known + ")";
    // A missing field: point at `spec`, which lacks it.
    model::Location where = r.spec().get("gatewayClassName")
                                ? r.locateField(r.spec(), "gatewayClassName")
                                : r.locateField(r.node, "spec");
    model::Finding& f = ctx.report(std::move(where), std::move(message), &r);
    if (!g.className.empty())
      f.missing = model::Missing{std::string(graph::kGatewayGroup), "GatewayClass", "",
                                 std::string(g.className)};
    for (const model::Resource* c : classes)
      f.related.push_back({c->locateField(c->metadata(), "name"),
                           "GatewayClass " + std::string(c->name) + " is in the input"});
  }
}

}  // namespace

PG_RULE(GW207, "gatewayclass-not-found", "gateway", Error,
        "A Gateway names no GatewayClass, or one that is not among the classes the input defines",
        "Gateway", check)

}  // namespace pg::rules
