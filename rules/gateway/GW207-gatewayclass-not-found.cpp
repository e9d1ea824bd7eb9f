#include "rules/gateway/gateway_rules.h"

namespace pg::rules {
namespace {

using namespace gateway;

void check(Context& ctx) {
  std::vector<const model::Resource*> classes =
      ctx.store().ofKind(graph::kGatewayGroup, "GatewayClass");
  std::string known;
  for (const model::Resource* c : classes) {
    known += known.empty() ? "" : ", ";
    known += std::string(c->name);
  }
  for (const graph::Gateway& g : ctx.analysis().topology.gateways) {
    if (g.isListenerSet() || g.gatewayClass) continue;
    const model::Resource& r = *g.resource;
    std::string message =
        r.display() +
        (g.className.empty()
             ? std::string(" names no GatewayClass")
             : " names GatewayClass " + std::string(g.className) + ", which is not in the input") +
        ": no controller takes the Gateway, so it gets no address and no route attached to it "
        "receives traffic; " +
        (known.empty()
             ? std::string("add the GatewayClass")
             : "use one of the GatewayClasses in the input (" + known + ") or add the missing one");
    // A missing field: point at `spec`, which lacks it.
    model::Location where = r.spec().get("gatewayClassName")
                                ? r.locateField(r.spec(), "gatewayClassName")
                                : r.locateField(r.node, "spec");
    model::Finding& f = ctx.report(std::move(where), std::move(message), &r);
    for (const model::Resource* c : classes)
      f.related.push_back({c->locateField(c->metadata(), "name"),
                           "GatewayClass " + std::string(c->name) + " is in the input"});
  }
}

}  // namespace

PG_RULE(GW207, "gatewayclass-not-found", "gateway", Error,
        "A Gateway names a GatewayClass that does not exist", "Gateway", check)

}  // namespace pg::rules
