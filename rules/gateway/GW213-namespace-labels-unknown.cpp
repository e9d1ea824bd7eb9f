#include "lib/graph/namespace_labels.h"
#include "rules/gateway/gateway_rules.h"

namespace pg::rules {
namespace {

using namespace gateway;

// A route attached through a listener that admits namespaces by label, from a namespace whose
// Namespace object is not in the input: the topology assumed the labels match.
void check(Context& ctx) {
  for (const graph::Route& route : ctx.analysis().topology.routes) {
    const model::Resource& r = *route.resource;
    if (ctx.store().find("", "Namespace", "", r.namespace_)) continue;
    for (const graph::RouteParent& parent : route.parents) {
      if (!parent.gateway || ownedElsewhere(*parent.gateway)) continue;
      std::string listeners;
      for (const graph::Listener* l : parent.listeners)
        if (l->from == graph::Listener::From::Selector &&
            graph::selectsOnUnknownLabels(l->selector))
          listeners += (listeners.empty() ? "" : ", ") + std::string(l->name);
      if (listeners.empty()) continue;
      model::Finding& f = ctx.report(
          r.locate(parent.ref.node),
          "Namespace " + std::string(r.namespace_) +
              " is not in the input, so its labels are unknown. Listener " + listeners + " of " +
              parent.gateway->resource->display() +
              " admits routes from namespaces selected by label; policygraph assumes it admits " +
              r.display() + ". Add the Namespace manifest, with its labels, to the input",
          &r);
      f.objects.push_back(parent.gateway->resource->display());
      f.discriminator = "parent " + parent.gateway->resource->display();
      for (const graph::Listener* l : parent.listeners)
        if (l->from == graph::Listener::From::Selector)
          f.related.push_back(
              {l->gateway->resource->locateField(l->node, "allowedRoutes"),
               describeListener(*l) + " selects namespaces by label"});
    }
  }
  // The same for a ListenerSet its Gateway admits by namespace labels (allowedListeners).
  for (const graph::Gateway& set : ctx.analysis().topology.gateways) {
    if (!graph::listenerSetAdmissionAssumed(set, ctx.store()) || ownedElsewhere(*set.parent))
      continue;
    const model::Resource& r = *set.resource;
    const model::Resource& gateway = *set.parent->resource;
    model::Finding& f = ctx.report(
        r.locateField(r.spec(), "parentRef"),
        "Namespace " + std::string(r.namespace_) +
            " is not in the input, so its labels are unknown. " + gateway.display() +
            " admits ListenerSets from namespaces selected by label (spec.allowedListeners); "
            "policygraph assumes it admits " +
            r.display() + ". Add the Namespace manifest, with its labels, to the input",
        &r);
    f.objects.push_back(gateway.display());
    f.discriminator = "parent " + gateway.display();
    f.related.push_back({gateway.locateField(gateway.spec(), "allowedListeners"),
                         gateway.display() + " selects ListenerSet namespaces by label"});
  }
}

}  // namespace

PG_RULE(GW213, "namespace-labels-unknown", "gateway", Warning,
        "A route's or ListenerSet's admission depends on labels of a Namespace that is not in "
        "the input",
        "HTTPRoute,GRPCRoute,TLSRoute,TCPRoute,UDPRoute,ListenerSet,XListenerSet", check)

}  // namespace pg::rules
