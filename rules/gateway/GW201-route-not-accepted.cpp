#include "rules/gateway/gateway_rules.h"

namespace pg::rules {
namespace {

using namespace gateway;

std::string parentDiscriminator(const graph::ParentRef& ref) {
  std::string out = "parentRef " + ref.kind + "/" + ref.namespace_ + "/" + ref.name;
  if (!ref.sectionName.empty()) out += "#" + std::string(ref.sectionName);
  if (ref.port) out += ":" + std::to_string(*ref.port);
  return out;
}

bool hasListenerNamed(const graph::Gateway& g, std::string_view name) {
  for (const graph::Listener& l : g.listeners)
    if (l.name == name) return true;
  return false;
}

// "http (port 80), https (port 443)", or "none" for a Gateway without listeners.
std::string listListeners(const graph::Gateway& g) {
  std::string out;
  for (const graph::Listener& l : g.listeners) {
    if (!out.empty()) out += ", ";
    out += std::string(l.name) + " (port " + std::to_string(l.port) + ")";
  }
  return out.empty() ? "none" : out;
}

// sectionName or port names no listener: point at the field that names nothing.
void reportNoMatchingParent(Context& ctx, const graph::Route& route,
                            const graph::RouteParent& parent, const graph::Condition& accepted) {
  const model::Resource& r = *route.resource;
  const graph::Gateway& g = *parent.gateway;
  const graph::ParentRef& ref = parent.ref;
  const bool sectionMissing = !ref.sectionName.empty() && !hasListenerNamed(g, ref.sectionName);
  model::Location where = sectionMissing ? r.locateField(ref.node, "sectionName")
                          : ref.port     ? r.locateField(ref.node, "port")
                                         : r.locate(ref.node);
  model::Finding& f = ctx.report(
      std::move(where),
      r.display() + " is not accepted by " + g.resource->display() +
          " (NoMatchingParent): " + accepted.message + ". Its listeners are " + listListeners(g) +
          "; set sectionName and port to the name and port of one of them, or drop them to "
          "attach to every listener that admits the route",
      &r);
  f.objects.push_back(g.resource->display());
  f.discriminator = parentDiscriminator(ref);
  for (const graph::Listener& l : g.listeners)
    f.related.push_back(relatedListener(l, describeListener(l)));
}

std::string advice(std::string_view reason) {
  if (reason == "NotAllowedByListeners")
    return "let a listener admit it (allowedRoutes.namespaces and allowedRoutes.kinds), or "
           "attach the route to a listener that does";
  return "give the route a hostname a listener serves (spec.hostnames), or attach it to a "
         "listener whose hostname matches";
}

// Every listener was tried and each said why not: name them all.
void reportRejected(Context& ctx, const graph::Route& route, const graph::RouteParent& parent,
                    const graph::Condition& accepted) {
  const model::Resource& r = *route.resource;
  std::string why;
  for (const graph::ListenerRejection& rejection : parent.rejections) {
    why += why.empty() ? "" : "; ";
    why += rejection.message;
  }
  if (why.empty()) why = accepted.message;
  model::Finding& f =
      ctx.report(r.locate(parent.ref.node),
                 r.display() + " is not accepted by " + parent.gateway->resource->display() + " (" +
                     accepted.reason + "): " + why + "; " + advice(accepted.reason),
                 &r);
  f.objects.push_back(parent.gateway->resource->display());
  f.discriminator = parentDiscriminator(parent.ref);
  for (const graph::ListenerRejection& rejection : parent.rejections)
    f.related.push_back(relatedListener(*rejection.listener, rejection.message));
}

// A parent whose simulated controller translates nothing for the route (controller_profile.h:
// a route kind it does not watch, a Gateway that takes no routes): the parentRef is ignored,
// with no status to say so.
void reportIgnored(Context& ctx, const graph::Route& route, const graph::RouteParent& parent) {
  const graph::Gateway& g = *parent.gateway;
  const graph::ControllerProfile& profile = *g.profile;
  const model::Resource& r = *route.resource;
  std::string why;
  const graph::IgnoredParent ignored =
      profile.ignoresParent(g.controllerName, route.kind == graph::RouteKind::UDP);
  if (ignored == graph::IgnoredParent::RouteKind) {
    why = std::string(profile.name) +
          " does not support UDPRoute, so it ignores this parentRef and the route gets no "
          "status; use a Gateway of a controller that supports UDPRoute";
  } else if (ignored == graph::IgnoredParent::Gateway) {
    why = g.resource->display() + " is a Gateway of " + g.controllerName + ", for which " +
          std::string(profile.name) +
          " translates no route, so it ignores this parentRef and the route gets no status; "
          "attach the route to the Service whose traffic it routes (a parentRef of kind "
          "Service), whose waypoint then applies it";
  } else {
    return;
  }
  model::Finding& f = ctx.report(r.locate(parent.ref.node), r.display() + ": " + why, &r);
  f.objects.push_back(g.resource->display());
  f.discriminator = parentDiscriminator(parent.ref);
}

void check(Context& ctx) {
  for (const graph::Route& route : ctx.analysis().topology.routes) {
    for (const graph::RouteParent& parent : route.parents) {
      if (!parent.profile && parent.gateway && parent.gateway->managed) {
        reportIgnored(ctx, route, parent);
        continue;
      }
      // Only parents that exist and whose controller is simulated have conditions; a missing
      // parent is GW202's.
      if (!parent.exists || !parent.gateway || parent.conditions.empty() || parent.accepted())
        continue;
      const graph::Condition* accepted = findCondition(parent.conditions, "Accepted");
      if (!accepted) continue;
      // Attachment failures only: a route refused for its own content (an invalid rule or
      // filter) is reported by the rule that checks that content, at the field at fault.
      if (accepted->reason == "NoMatchingParent") {
        reportNoMatchingParent(ctx, route, parent, *accepted);
      } else if (accepted->reason == "NotAllowedByListeners" ||
                 accepted->reason == "NoMatchingListenerHostname") {
        reportRejected(ctx, route, parent, *accepted);
      }
    }
  }
}

}  // namespace

PG_RULE(GW201, "route-not-accepted", "gateway", Error,
        "A route is not accepted by a Gateway or ListenerSet it names", gateway::kRouteKinds, check)

}  // namespace pg::rules
