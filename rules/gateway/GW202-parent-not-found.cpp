#include "rules/gateway/gateway_rules.h"

namespace pg::rules {
namespace {

using namespace gateway;

// The parent kinds the topology resolves; any other kind is some implementation's own and
// cannot be checked offline.
bool resolvedParentKind(const graph::ParentRef& ref) {
  if (ref.group == graph::kGatewayGroup) return ref.kind == "Gateway" || ref.kind == "ListenerSet";
  if (ref.group == "gateway.networking.x-k8s.io") return ref.kind == "XListenerSet";
  return ref.group.empty() && ref.kind == "Service";
}

// Objects of the same kind and name in other namespaces: the usual mistake is a parentRef
// without `namespace`, which defaults to the route's own.
std::vector<const model::Resource*> sameNameElsewhere(const model::Store& store,
                                                      const graph::ParentRef& ref) {
  std::vector<const model::Resource*> out;
  for (const model::Resource* r : store.ofKind(ref.group, ref.kind))
    if (r->name == ref.name && r->namespace_ != ref.namespace_) out.push_back(r);
  return out;
}

void check(Context& ctx) {
  for (const graph::Route& route : ctx.analysis().topology.routes) {
    const model::Resource& r = *route.resource;
    for (const graph::RouteParent& parent : route.parents) {
      const graph::ParentRef& ref = parent.ref;
      if (parent.exists || !resolvedParentKind(ref)) continue;
      std::string target = ref.kind + "/" + ref.namespace_ + "/" + ref.name;
      if (const model::Store::Refusal* refused =
              ctx.store().refusal(ref.group, ref.kind, ref.namespace_, ref.name)) {
        // It is in the input, but the API server would not take it.
        model::Finding& f = ctx.report(
            r.locateField(ref.node, "name"),
            r.display() + " names " + target + " as a parent, but " + refused->notApplied() +
                ": the route attaches to nothing through this parentRef until the " + ref.kind +
                " is fixed",
            &r);
        f.objects.push_back(target);
        f.discriminator = "parentRef " + target;
        f.related.push_back({refused->object->locate(refused->object->node),
                             refused->object->display() + " is defined here"});
        continue;
      }
      std::string message = r.display() + " names " + target +
                            " as a parent, which is not in the input: the route attaches to "
                            "nothing through this parentRef and no controller reports it";
      std::vector<const model::Resource*> elsewhere = sameNameElsewhere(ctx.store(), ref);
      if (!elsewhere.empty()) {
        message += "; " + elsewhere.front()->display() +
                   " exists: set the parentRef's namespace to " +
                   std::string(elsewhere.front()->namespace_) +
                   (ref.namespaceWritten ? "" : " (without one it is the route's own)");
      } else {
        message += "; fix the parentRef's name or namespace, or add the " + ref.kind;
      }
      model::Finding& f = ctx.report(r.locateField(ref.node, "name"), std::move(message), &r);
      f.objects.push_back(target);
      if (elsewhere.empty())
        f.missing = model::Missing{ref.group, ref.kind, ref.namespace_, ref.name};
      f.discriminator = "parentRef " + target;
      for (const model::Resource* other : elsewhere)
        f.related.push_back({other->locateField(other->metadata(), "name"),
                             other->display() + " has the same name in another namespace"});
    }
  }
}

}  // namespace

PG_RULE(GW202, "parent-not-found", "gateway", Error,
        "A route's parentRef names a Gateway, ListenerSet or Service that does not exist",
        gateway::kRouteKinds, check)

}  // namespace pg::rules
