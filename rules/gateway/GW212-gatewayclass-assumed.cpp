#include <map>

#include "rules/gateway/gateway_rules.h"

namespace pg::rules {
namespace {

using namespace gateway;

// One note per class name that is found nowhere while the input holds no GatewayClass: the
// Gateways are simulated as if the class existed, and the note says how to name its
// controller. It points at the first Gateway of the class; the others are related.
void check(Context& ctx) {
  std::map<std::string_view, std::vector<const graph::Gateway*>, std::less<>> byClass;
  std::vector<std::string_view> order;
  for (const graph::Gateway& g : ctx.analysis().topology.gateways) {
    if (g.isListenerSet() || g.classOrigin != graph::ClassOrigin::Assumed) continue;
    auto& gateways = byClass[g.className];
    if (gateways.empty()) order.push_back(g.className);
    gateways.push_back(&g);
  }
  for (std::string_view name : order) {
    const std::vector<const graph::Gateway*>& gateways = byClass[name];
    const model::Resource& first = *gateways.front()->resource;
    const std::string className(name);
    const std::string subject = gateways.size() == 1
                                    ? first.display() + " is"
                                    : std::to_string(gateways.size()) + " Gateways are";
    std::string message = "GatewayClass " + className +
                          " is assumed to exist. It is not in the input and not a class "
                          "policygraph knows, so " +
                          subject +
                          " simulated as if its controller had taken " +
                          (gateways.size() == 1 ? "it" : "them") +
                          "; declare it in .policygraph.yaml (gatewayClasses: [{name: " +
                          className +
                          ", controllerName: ...}]) to name its controller, or add the "
                          "GatewayClass to the input";
    model::Finding& f =
        ctx.report(first.locateField(first.spec(), "gatewayClassName"), std::move(message), &first);
    for (std::size_t i = 1; i < gateways.size(); ++i) {
      const model::Resource& other = *gateways[i]->resource;
      f.related.push_back({other.locateField(other.spec(), "gatewayClassName"),
                           other.display() + " names the same class"});
      f.objects.push_back(other.display());
    }
  }
}

}  // namespace

PG_RULE(GW212, "gatewayclass-assumed", "gateway", Note,
        "A Gateway's class is not in the input and is assumed to be installed by its controller",
        "Gateway", check)

}  // namespace pg::rules
