// What the Gateway API rules (GW2xx) share: which objects they check, how their messages name
// listeners and references, and where listener and backend problems point.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/graph/topology.h"
#include "rules/rule.h"

namespace pg::rules::gateway {

inline constexpr std::string_view kRouteKinds = "HTTPRoute,GRPCRoute,TLSRoute,TCPRoute,UDPRoute";
inline constexpr std::string_view kListenerKinds = "Gateway,ListenerSet,XListenerSet";

// A Gateway (or ListenerSet) whose class belongs to a controller policygraph does not
// simulate: that controller decides what is valid (custom protocols, backend kinds), so the
// rules stay silent about it. A Gateway whose class is missing or assumed is still checked.
inline bool ownedElsewhere(const graph::Gateway& g) {
  return !g.managed && g.classOrigin != graph::ClassOrigin::Missing &&
         g.classOrigin != graph::ClassOrigin::Assumed;
}

// A route is checked unless every parent it names is owned by another controller.
inline bool routeChecked(const graph::Route& route) {
  if (route.parents.empty()) return true;
  for (const graph::RouteParent& p : route.parents)
    if (!p.gateway || !ownedElsewhere(*p.gateway)) return true;
  return false;
}

inline const graph::Condition* findCondition(const std::vector<graph::Condition>& conditions,
                                             std::string_view type) {
  for (const graph::Condition& c : conditions)
    if (c.type == type) return &c;
  return nullptr;
}

// "listener https of Gateway/infra/public (HTTPS, port 443, hostname shop.example.com)".
// `listener https of Gateway/infra/public`: which listener, short enough for a message's lead.
inline std::string listenerName(const graph::Listener& l) {
  return "listener " + std::string(l.name) + " of " + l.gateway->resource->display();
}

// `HTTPS, port 443, hostname shop.example.com`: what the listener is, for a message's detail.
inline std::string listenerTraits(const graph::Listener& l) {
  std::string out = std::string(l.protocol) + ", port " + std::to_string(l.port);
  if (!l.hostname.empty()) out += ", hostname " + std::string(l.hostname);
  return out;
}

// `listener https of Gateway/infra/public (HTTPS, port 443, hostname shop.example.com)`.
inline std::string describeListener(const graph::Listener& l) {
  return listenerName(l) + " (" + listenerTraits(l) + ")";
}

// A field of a listener (`port`, `hostname`, `protocol`...), or the listener when it is absent.
inline model::Location listenerField(const graph::Listener& l, std::string_view key) {
  return l.gateway->resource->locateField(l.node, key);
}

inline model::RelatedLocation relatedListener(const graph::Listener& l, std::string message) {
  return {listenerField(l, "name"), std::move(message)};
}

// The certificateRef a listener's certificate condition is about, when there is only one: the
// topology names the failing ref in its message only.
inline yaml::NodeRef soleCertificateRef(const graph::Listener& l) {
  yaml::NodeRef refs = l.node.get("tls").get("certificateRefs");
  return refs.size() == 1 ? refs.at(0) : yaml::NodeRef();
}

// Where a listener's certificate problem points: `field` of its only certificateRef, else the
// certificateRefs list, else the tls block or the protocol that asks for certificates.
inline model::Location certificateLocation(const graph::Listener& l, std::string_view field) {
  const model::Resource& owner = *l.gateway->resource;
  yaml::NodeRef tls = l.node.get("tls");
  if (yaml::NodeRef ref = soleCertificateRef(l))
    return ref.get(field) ? owner.locateField(ref, field) : owner.locate(ref);
  if (tls.get("certificateRefs")) return owner.locateField(tls, "certificateRefs");
  if (tls) return owner.locateField(l.node, "tls");
  return listenerField(l, "protocol");
}

// The frontend client validation that applies to a terminating listener (GEP-91: the
// Gateway's spec.tls.frontend entry for the listener's port, else its default), as the
// caCertificateRefs node; nothing when none applies.
inline yaml::NodeRef frontendCaCertificateRefs(const graph::Listener& l) {
  const graph::Gateway& g = *l.gateway;
  const model::Resource& owner = g.parent ? *g.parent->resource : *g.resource;
  yaml::NodeRef frontend = owner.spec().get("tls").get("frontend");
  for (yaml::NodeRef perPort : frontend.get("perPort").items())
    if (perPort.get("port").asInt() == l.port)
      return perPort.get("tls").get("validation").get("caCertificateRefs");
  return frontend.get("default").get("validation").get("caCertificateRefs");
}

// Whether a listener's ResolvedRefs problem is its frontend validation's rather than its
// certificates': the certificates are checked first, so a RefNotPermitted with no
// certificateRef in another namespace comes from a caCertificateRef.
inline bool caCertificateProblem(const graph::Listener& l, std::string_view reason) {
  if (reason == "InvalidCACertificateRef" || reason == "InvalidCACertificateKind") return true;
  if (reason != "RefNotPermitted") return false;
  for (yaml::NodeRef ref : l.node.get("tls").get("certificateRefs").items())
    if (ref.get("namespace") && ref.get("namespace").str() != l.gateway->resource->namespace_)
      return false;
  return frontendCaCertificateRefs(l).size() > 0;
}

// Where a listener's frontend validation problem points: the caCertificateRefs list of the
// Gateway (or ListenerSet's Gateway) that holds it.
inline model::Location caCertificateLocation(const graph::Listener& l) {
  const graph::Gateway& g = *l.gateway;
  const model::Resource& owner = g.parent ? *g.parent->resource : *g.resource;
  yaml::NodeRef refs = frontendCaCertificateRefs(l);
  return refs ? owner.locate(refs) : owner.locateField(owner.spec(), "tls");
}

// The ReferenceGrants of a namespace, as related locations of a reference they do not permit.
inline void relateGrants(const model::Store& store, std::string_view namespace_,
                         model::Finding& f) {
  for (const model::Resource* grant : store.ofKind(graph::kGatewayGroup, "ReferenceGrant"))
    if (grant->namespace_ == namespace_)
      f.related.push_back({grant->locateField(grant->spec(), "to"),
                           grant->display() + " does not permit this reference"});
}

// Calls `report(route, rule, backend)` for every backendRef of a checked route that failed to
// resolve with one of `reasons` (BackendNotFound, InvalidKind, RefNotPermitted, ...), in one
// pass.
template <typename Report>
void forEachUnresolvedBackend(const Context& ctx, std::initializer_list<std::string_view> reasons,
                              Report report) {
  for (const graph::Route& route : ctx.analysis().topology.routes) {
    if (!routeChecked(route)) continue;
    for (const graph::RouteRule& rule : route.rules)
      for (const graph::BackendRef& backend : rule.backends)
        if (std::find(reasons.begin(), reasons.end(), backend.reason) != reasons.end())
          report(route, rule, backend);
  }
}

template <typename Report>
void forEachUnresolvedBackend(const Context& ctx, std::string_view reason, Report report) {
  forEachUnresolvedBackend(ctx, {reason}, std::move(report));
}

// "rule 2" or "rule checkout (2)" when the rule is named (GEP-995).
inline std::string describeRule(const graph::RouteRule& rule) {
  std::string out = "rule ";
  if (!rule.name.empty())
    return out + std::string(rule.name) + " (" + std::to_string(rule.index) + ")";
  return out + std::to_string(rule.index);
}

// Tells a backend finding apart from the route's others, without line numbers.
inline std::string backendDiscriminator(const graph::RouteRule& rule, const graph::BackendRef& b) {
  std::string out = "rules[" + std::to_string(rule.index) + "]:" + b.group + "/" + b.kind + "/" +
                    b.namespace_ + "/" + b.name;
  if (b.port) out += ":" + std::to_string(*b.port);
  return out;
}

// Reports one unresolved backendRef of a route at the field at fault.
inline model::Finding& reportBackend(Context& ctx, const graph::Route& route,
                                     const graph::RouteRule& rule, const graph::BackendRef& b,
                                     std::string message) {
  const model::Resource& r = *route.resource;
  model::Finding& f =
      ctx.report(r.locate(b.at ? b.at : b.node),
                 r.display() + " " + describeRule(rule) + ": " + std::move(message), &r);
  f.discriminator = backendDiscriminator(rule, b);
  return f;
}

// Calls `report(listener)` for every listener of a checked Gateway or ListenerSet.
template <typename Report>
void forEachListener(const Context& ctx, Report report) {
  for (const graph::Gateway& g : ctx.analysis().topology.gateways) {
    if (ownedElsewhere(g)) continue;
    for (const graph::Listener& l : g.listeners) report(l);
  }
}

// Reports one listener problem at `where`, about the Gateway or ListenerSet that holds it.
inline model::Finding& reportListener(Context& ctx, const graph::Listener& l, model::Location where,
                                      std::string message) {
  const model::Resource& owner = *l.gateway->resource;
  model::Finding& f = ctx.report(std::move(where), std::move(message), &owner);
  f.discriminator = "listener " + std::string(l.name);
  return f;
}

}  // namespace pg::rules::gateway
