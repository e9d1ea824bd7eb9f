#include "lib/graph/topology.h"

#include <algorithm>
#include <array>
#include <ctime>
#include <functional>
#include <optional>
#include <tuple>
#include <utility>

#include "lib/graph/envoy_backends.h"
#include "lib/graph/envoy_route_filters.h"
#include "lib/graph/gateways.h"
#include "lib/graph/hostname.h"
#include "lib/graph/namespace_labels.h"
#include "lib/graph/workloads.h"
#include "lib/model/parallel.h"

namespace pg::graph {

namespace {

// Below this many routes the topology is built on one thread: threads cost more than they save.
constexpr std::size_t kParallelMinRoutes = 64;

constexpr std::array<std::pair<RouteKind, std::string_view>, 5> kRouteKinds{{
    {RouteKind::HTTP, "HTTPRoute"},
    {RouteKind::GRPC, "GRPCRoute"},
    {RouteKind::TLS, "TLSRoute"},
    {RouteKind::TCP, "TCPRoute"},
    {RouteKind::UDP, "UDPRoute"},
}};

// The protocol a route kind's backends are reached over.
std::string_view transportOf(RouteKind kind) {
  return kind == RouteKind::UDP ? "UDP" : "TCP";
}

// The refusal of a backendRef's port that the Service (or ServiceImport) does not list, as the
// profile words it.
std::string portNotFoundMessage(const ControllerProfile& profile, const BackendRef& b,
                                std::string_view protocol) {
  return (profile.servicePortProtocolMatters ? std::string(protocol) + " port " : "Port ") +
         std::to_string(*b.port) + " not found on " + b.kind + " " + b.namespace_ + "/" + b.name;
}

// A backendRef's resolution under one controller's profile.
struct Resolution {
  const model::Resource* target = nullptr;
  std::string reason;  // empty: resolved
  std::string message;
  yaml::NodeRef at;
  bool notSimulated = false;
};

// Whether a networking.istio.io Hostname backend names a host Istio knows in `namespace_`: a
// host of a ServiceEntry (exported to every namespace, or in that one) or a Service's name
// under `<name>.<namespace>.svc.` (any cluster domain).
const model::Resource* findHostname(const model::Store& store, std::string_view host,
                                    std::string_view namespace_) {
  for (const model::Resource* se : store.ofKind("networking.istio.io", "ServiceEntry")) {
    bool visible = se->namespace_ == namespace_;
    yaml::NodeRef exportTo = se->spec().get("exportTo");
    if (!exportTo) visible = true;
    for (yaml::NodeRef to : exportTo.items())
      visible = visible || to.str() == "*" || to.str() == namespace_;
    if (!visible) continue;
    for (yaml::NodeRef h : se->spec().get("hosts").items())
      if (h.str() == host) return se;
  }
  const std::size_t svc = host.find(".svc.");
  if (svc == std::string_view::npos) return nullptr;
  std::string_view nameAndNamespace = host.substr(0, svc);
  const std::size_t dot = nameAndNamespace.find('.');
  if (dot == std::string_view::npos) return nullptr;
  return store.find("", "Service", nameAndNamespace.substr(dot + 1),
                    nameAndNamespace.substr(0, dot));
}

// The one port an object backend serves on, when its kind has exactly one: the Gateway API's
// XBackend (gateway.networking.x-k8s.io) declares it in `spec.port.port`. A backendRef may
// leave its port out, or name that port; another port is not served.
std::optional<std::int64_t> exposedPort(const model::Resource& backend) {
  if (backend.group != "gateway.networking.x-k8s.io" || backend.kind != "XBackend")
    return std::nullopt;
  return backend.spec().get("port").get("port").asInt();
}

// How one parent's controller resolves a route's backends: its profile, and whether for a
// mesh parent (a controller may ask no ReferenceGrant there).
struct ResolutionContext {
  const ControllerProfile* profile = nullptr;
  bool mesh = false;
  // Whether the controller asks a ReferenceGrant for the route's backendRef `b`, which is in
  // another namespace.
  bool needsGrant(const BackendRef& b, const Route& route) const {
    if (!mesh) return true;
    switch (profile->meshBackendGrants) {
      case MeshBackendGrants::All:
        return true;
      case MeshBackendGrants::None:
        return false;
      case MeshBackendGrants::ExceptParentNamespace:
        return std::none_of(route.parents.begin(), route.parents.end(), [&](const RouteParent& p) {
          return !p.gateway && profile->takesMeshParent(p.ref.group, p.ref.kind) &&
                 p.ref.namespace_ == b.namespace_;
        });
    }
    return true;
  }
  bool operator==(const ResolutionContext&) const = default;
};

ResolutionContext contextOf(const RouteParent& parent) {
  return {parent.profile, parent.gateway == nullptr};
}

ResolutionContext contextOf(const Route& route) {
  return {route.profile, route.resolvedForMesh};
}

Resolution resolveTarget(const BackendRef& b, const Route& route, const model::Store& store,
                         const ReferenceGrantIndex& grants, ResolutionContext context) {
  const ControllerProfile& profile = *context.profile;
  const model::Resource& r = *route.resource;
  Resolution out;
  auto fail = [&](std::string reason, std::string message, yaml::NodeRef at) {
    out.reason = std::move(reason);
    out.message = std::move(message);
    out.at = at ? at : b.node;
    return out;
  };
  auto grantRefuses = [&] {
    return b.namespace_ != r.namespace_ && context.needsGrant(b, route) &&
           !grants.permits(r.group, r.kind, r.namespace_, b.group, b.kind, b.namespace_, b.name);
  };
  auto refuseByGrant = [&] {
    return fail("RefNotPermitted",
                "Backend ref to " + b.kind + " " + b.namespace_ + "/" + b.name +
                    " not permitted by any ReferenceGrant",
                b.node.get("namespace"));
  };
  if (profile.backendGrantBeforeKind && grantRefuses()) return refuseByGrant();
  const BackendKindSupport* support = profile.backendKind(b.group, b.kind);
  if (!support) {
    out.notSimulated =
        (profile.implementationKindsNotSimulated && !isStandardGroup(b.group) &&
         std::find(profile.ownGroups.begin(), profile.ownGroups.end(), b.group) ==
             profile.ownGroups.end()) ||
        std::any_of(profile.unmodelledBackendKinds.begin(), profile.unmodelledBackendKinds.end(),
                    [&](const KindName& k) { return k.group == b.group && k.kind == b.kind; });
    return fail("InvalidKind",
                "Kind " + (b.group.empty() ? std::string() : b.group + "/") + b.kind +
                    " is not a supported backend" +
                    (profile.id == ControllerId::Generic ? std::string()
                                                         : " of " + std::string(profile.name)),
                b.node.get("kind"));
  }
  if (!profile.backendGrantBeforeKind && grantRefuses()) return refuseByGrant();
  // Read only when a refusal points at it: most backendRefs resolve.
  auto nameField = [&b] { return b.node.get("name"); };
  // A Service's or ServiceImport's port as the profile checks it: listed (when `listed`, with
  // the route's protocol where that matters), and under Envoy Gateway served by EndpointSlices
  // of one address type. True when refused, `out` then saying why.
  auto checkServicePort = [&](bool listed, bool serviceImport) {
    const std::string_view protocol =
        profile.servicePortProtocolMatters ? transportOf(route.kind) : std::string_view();
    if (listed && !servicePortExists(*out.target, *b.port, protocol)) {
      fail(std::string(profile.missingServicePortReason),
           portNotFoundMessage(profile, b, transportOf(route.kind)), b.node.get("port"));
      return true;
    }
    if (profile.checksEnvoyBackends)
      if (std::optional<EnvoyBackendRefusal> refused =
              checkEndpointSliceTypes(store, *out.target, *b.port, serviceImport)) {
        fail(std::string(refused->reason), std::move(refused->message), nameField());
        return true;
      }
    return false;
  };
  auto refuseMissingPort = [&] {
    return fail(std::string(profile.missingPortReason),
                "A port is required for a backendRef of kind " + b.kind +
                    "; set port to the port the backend serves",
                b.node);
  };
  switch (support->resolution) {
    case BackendResolution::Service:
      if (!profile.dottedServiceNameReason.empty() && b.name.find('.') != std::string::npos)
        return fail(
            std::string(profile.dottedServiceNameReason),
            "Service name " + b.name + " is a hostname; the name of the Service must be used",
            nameField());
      out.target = store.find("", "Service", b.namespace_, b.name);
      break;
    case BackendResolution::ServiceImport:
      if (profile.backendPortBeforeLookup && !b.port) return refuseMissingPort();
      out.target = store.find("", "Service", b.namespace_, b.name);
      break;
    case BackendResolution::Hostname:
      if (b.node.get("namespace"))
        return fail(std::string(profile.missingPortReason),
                    "A namespace may not be set on a Hostname backend", b.node.get("namespace"));
      if (profile.backendPortBeforeLookup && !b.port) return refuseMissingPort();
      out.target = findHostname(store, b.name, b.namespace_);
      if (!out.target)
        return fail("BackendNotFound", "No ServiceEntry or Service has host " + b.name,
                    nameField());
      break;
    case BackendResolution::Object:
      out.target = store.find(support->objectGroup.empty() ? b.group : support->objectGroup, b.kind,
                              b.namespace_, b.name);
      break;
  }
  if (!out.target)
    return fail("BackendNotFound", b.kind + " " + b.namespace_ + "/" + b.name + " not found",
                nameField());
  if (support->resolution == BackendResolution::Service) {
    // "Implementations SHOULD NOT support ExternalName Services" (BackendObjectReference):
    // they may point outside the cluster (CVE-2021-25740).
    if (profile.refusesExternalName && out.target->spec().get("type").str() == "ExternalName")
      return fail("UnsupportedValue",
                  "Service " + b.namespace_ + "/" + b.name +
                      " is of type ExternalName, which Gateway API backends do not support",
                  nameField());
    if (!b.port)  // the spec requires a port for Services
      return fail(std::string(profile.missingPortReason),
                  "A port is required for a Service backend", b.node);
    if (profile.servicePortMustExist || profile.checksEnvoyBackends)
      if (checkServicePort(profile.servicePortMustExist, false)) return out;
  } else if (support->resolution == BackendResolution::Object) {
    const std::optional<std::int64_t> exposed = exposedPort(*out.target);
    if (exposed && b.port && *b.port != *exposed)
      return fail("BackendNotFound",
                  b.kind + " " + b.namespace_ + "/" + b.name + " serves port " +
                      std::to_string(*exposed) + ", not " + std::to_string(*b.port),
                  b.node.get("port"));
    // A ServiceImport lists its ports as a Service does (Envoy Gateway checks them alike).
    if (b.kind == "ServiceImport" && b.port &&
        (profile.servicePortProtocolMatters || profile.checksEnvoyBackends))
      if (checkServicePort(profile.servicePortProtocolMatters, true)) return out;
    if (profile.checksEnvoyBackends && isEnvoyBackendKind(b.group, b.kind))
      if (std::optional<EnvoyBackendRefusal> refused = checkEnvoyBackend(*out.target))
        return fail(std::string(refused->reason), std::move(refused->message), nameField());
  } else if (!b.port) {
    return refuseMissingPort();
  }
  return out;
}

// Whether Istio drops a backendRef with this refusal and goes on translating the route
// (conversion.go isInvalidBackend); any other refusal ends the translation.
bool droppedRefusal(std::string_view reason) {
  return reason == "BackendNotFound" || reason == "InvalidKind" || reason == "RefNotPermitted";
}

// The first filter of a backendRef's own `filters` whose type the profile does not take there,
// or a null node.
yaml::NodeRef unsupportedBackendFilter(const BackendRef& b, const ControllerProfile& profile) {
  if (profile.backendRefFilterTypes.empty() || b.mirror) return {};
  for (yaml::NodeRef filter : b.node.get("filters").items()) {
    const std::string_view type = filter.get("type").str();
    if (std::find(profile.backendRefFilterTypes.begin(), profile.backendRefFilterTypes.end(),
                  type) == profile.backendRefFilterTypes.end())
      return filter;
  }
  return {};
}

// How the controller of `context` resolves a backendRef: its target, then (as Istio's
// buildHTTPDestination does, once the destination is built or dropped) its own filters. A
// backendRef of weight 0 that the controller skips keeps its target for the other stages but
// is refused for nothing.
Resolution resolveBackend(const BackendRef& b, const RouteRule& rule, const Route& route,
                          const model::Store& store, const ReferenceGrantIndex& grants,
                          ResolutionContext context) {
  const ControllerProfile& profile = *context.profile;
  Resolution out = resolveTarget(b, route, store, grants, context);
  if (!profile.zeroWeightBackendsResolved && !b.mirror && b.node.get("weight").asInt() == 0) {
    out.reason.clear();
    out.message.clear();
    out.at = {};
    out.notSimulated = false;
    return out;
  }
  // NGINX Gateway Fabric checks a backendRef's filters first, and takes none.
  if (profile.refusesBackendRefFilters && !b.mirror && b.node.get("filters").size() > 0) {
    out.reason = "UnsupportedValue";
    out.message = std::string(profile.name) +
                  " takes no filters on a backendRef; move them to the rule's filters";
    out.at = b.node.keyNode("filters");
    out.notSimulated = false;
    return out;
  }
  if (!out.reason.empty() && !droppedRefusal(out.reason)) return out;
  // Envoy Gateway resolves a DynamicResolver Backend's destination from the request alone: it
  // cannot share a rule with other destinations.
  if (profile.checksEnvoyBackends && out.reason.empty() && !b.mirror && out.target &&
      isEnvoyBackendKind(b.group, b.kind) && isDynamicResolver(*out.target) &&
      rule.node.get("backendRefs").size() > 1) {
    out.reason = "InvalidBackendRef";
    out.message = std::string(kDynamicResolverNotAlone);
    out.at = b.node;
    return out;
  }
  if (profile.refusesBackendRefPathRewrite && out.reason.empty() && !b.mirror &&
      route.kind == RouteKind::HTTP) {
    for (yaml::NodeRef filter : b.node.get("filters").items()) {
      yaml::NodeRef path = filter.get("urlRewrite").get("path");
      if (filter.get("type").str() != "URLRewrite" || !path || path.isNull()) continue;
      out.reason = "UnsupportedRefValue";
      out.message = "URLRewrite path modifier is not supported within BackendRef: " +
                    std::string(profile.name) +
                    " rewrites only the hostname on a backendRef; move the path rewrite to the "
                    "rule's filters";
      out.at = filter.get("urlRewrite").keyNode("path");
      out.notSimulated = false;
      return out;
    }
  }
  if (yaml::NodeRef filter = unsupportedBackendFilter(b, profile)) {
    yaml::NodeRef type = filter.get("type");
    std::string list;
    for (std::string_view t : profile.backendRefFilterTypes)
      list += (list.empty() ? "" : " and ") + std::string(t);
    out.reason = "InvalidFilter";
    out.message = std::string(profile.name) + " does not support a " + std::string(type.str()) +
                  " filter on a backendRef, only " + list + "; move it to the rule's filters";
    out.at = type ? type : filter;
    out.notSimulated = false;
  }
  return out;
}

void applyResolution(BackendRef& b, Resolution resolution) {
  b.target = resolution.target;
  b.reason = std::move(resolution.reason);
  b.message = std::move(resolution.message);
  b.at = resolution.at ? resolution.at : b.node;
  b.notSimulated = resolution.notSimulated;
}

// Every backendRef of every rule, and of request-mirror filters (which resolve alike).
void readRules(Route& route, const model::Store& store, const ReferenceGrantIndex& grants) {
  const ResolutionContext context = contextOf(route);
  std::uint32_t index = 0;
  // Sized once: a route's rules and backends are among the largest objects the topology
  // holds, and growing them leaves their earlier copies behind.
  yaml::NodeRef rules = route.resource->spec().get("rules");
  route.rules.reserve(rules.size());
  for (yaml::NodeRef node : rules.items()) {
    RouteRule& rule = route.rules.emplace_back();
    rule.index = index++;
    rule.node = node;
    rule.name = node.get("name").str();
    // Backends of the rule, then those request mirrors send copies to (in the rule's filters
    // and in each backendRef's): all must resolve.
    std::vector<std::pair<yaml::NodeRef, bool>> refs;  // and whether a mirror's
    for (yaml::NodeRef ref : node.get("backendRefs").items()) refs.emplace_back(ref, false);
    bool extensionRefs = false;  // an ExtensionRef filter, on the rule or a backendRef
    auto mirrors = [&](yaml::NodeRef filters) {
      for (yaml::NodeRef f : filters.items()) {
        if (yaml::NodeRef mirror = f.get("requestMirror").get("backendRef"))
          refs.emplace_back(mirror, true);
        extensionRefs = extensionRefs || f.get("extensionRef");
      }
    };
    mirrors(node.get("filters"));
    for (yaml::NodeRef ref : node.get("backendRefs").items()) mirrors(ref.get("filters"));
    rule.backends.reserve(refs.size());
    for (auto [ref, mirror] : refs) {
      BackendRef& b = rule.backends.emplace_back();
      b.node = ref;
      b.mirror = mirror;
      b.group = std::string(ref.get("group").str());
      yaml::NodeRef kind = ref.get("kind");
      b.kind = kind ? std::string(kind.str()) : "Service";
      yaml::NodeRef ns = ref.get("namespace");
      b.namespace_ = std::string(ns ? ns.str() : route.resource->namespace_);
      b.name = std::string(ref.get("name").str());
      b.port = ref.get("port").asInt();
      applyResolution(b, resolveBackend(b, rule, route, store, grants, context));
    }
    if (extensionRefs && route.profile->checksEnvoyRouteFilters &&
        (route.kind == RouteKind::HTTP || route.kind == RouteKind::GRPC))
      resolveEnvoyRouteFilters(rule, route, store);
  }
}

}  // namespace

bool servicePortExists(const model::Resource& service, std::int64_t port,
                       std::string_view protocol) {
  for (yaml::NodeRef p : service.spec().get("ports").items()) {
    if (p.get("port").asInt() != port) continue;
    const std::string_view written = p.get("protocol").str();
    if (protocol.empty() || (written.empty() ? "TCP" : written) == protocol) return true;
  }
  return false;
}

bool selectsOnUnknownLabels(const model::LabelSelector& selector) {
  return std::any_of(selector.requirements().begin(), selector.requirements().end(),
                     [](const model::LabelRequirement& r) { return r.key != kNamespaceNameLabel; });
}

namespace {

bool namespaceAdmitted(const Listener& l, const model::Resource& route, const model::Store& store) {
  const std::string_view gatewayNamespace = l.gateway->resource->namespace_;
  switch (l.from) {
    case Listener::From::All:
      return true;
    case Listener::From::Same:
      return route.namespace_ == gatewayNamespace;
    case Listener::From::None:
      return false;
    case Listener::From::Selector: {
      const model::Resource* ns = store.find("", "Namespace", "", route.namespace_);
      // A namespace that is not in the repository has no labels we can see but the one the
      // API server gives every Namespace: a selector on others is assumed to admit it (GW213
      // says so) rather than reported as not admitting it.
      if (!ns && selectsOnUnknownLabels(l.selector)) return true;
      return l.selector.matches(ns ? ns->labels() : yaml::NodeRef(), kNamespaceNameLabel,
                                route.namespace_);
    }
  }
  return false;
}

// The name a listener hostname and a route hostname share: the narrower of the two (the
// route's when the listener has none), or empty when they do not intersect.
std::string_view sharedHostname(std::string_view listener, std::string_view route) {
  if (!hostnamesIntersect(listener, route)) return {};
  if (listener.empty()) return route;
  const bool listenerWildcard = listener.starts_with("*.");
  const bool routeWildcard = route.starts_with("*.");
  if (routeWildcard && !listenerWildcard) return listener;
  if (routeWildcard && listenerWildcard) return route.size() >= listener.size() ? route : listener;
  return route;
}

// Whether a listener takes a route by hostname: Matched when they share one; Claimed when
// every one they share is the exact hostname of another listener of the Gateway on the same
// port, which takes it instead (ControllerProfile::isolatesListenerHostnames).
enum class HostnameFit : std::uint8_t { None, Claimed, Matched };

HostnameFit hostnameFit(const Listener& l, const Route& route, const Gateway& gateway,
                        const ControllerProfile& profile) {
  if (route.kind == RouteKind::TCP || route.kind == RouteKind::UDP) return HostnameFit::Matched;
  if (route.hostnames.empty()) return HostnameFit::Matched;
  HostnameFit fit = HostnameFit::None;
  for (std::string_view h : route.hostnames) {
    const std::string_view shared = sharedHostname(l.hostname, h);
    if (shared.empty()) continue;
    if (!profile.isolatesListenerHostnames) return HostnameFit::Matched;
    const bool claimed =
        std::any_of(gateway.listeners.begin(), gateway.listeners.end(), [&](const Listener& o) {
          return &o != &l && o.port == l.port && !o.hostname.empty() && o.hostname == shared;
        });
    if (!claimed) return HostnameFit::Matched;
    fit = HostnameFit::Claimed;
  }
  return fit;
}

std::string describeListener(const Listener& l) {
  return "listener " + std::string(l.name) + " (" + std::string(l.protocol) + " port " +
         std::to_string(l.port) +
         (l.hostname.empty() ? std::string() : ", hostname " + std::string(l.hostname)) + ")";
}

void attachToGateway(RouteParent& parent, Route& route, const model::Store& store) {
  const Gateway& gateway = *parent.gateway;
  const model::Resource& r = *route.resource;
  // Under ListenerConflicts::FirstWins a conflicted listener is not built at all: no route
  // finds it.
  const bool conflictedTakeNone = parent.profile->listenerConflicts == ListenerConflicts::FirstWins;
  std::vector<const Listener*> candidates;
  const Listener* conflicted = nullptr;  // one the parentRef selects that takes no routes
  for (const Listener& l : gateway.listeners) {
    if (!parent.ref.sectionName.empty() && l.name != parent.ref.sectionName) continue;
    if (parent.ref.port && l.port != *parent.ref.port) continue;
    if (conflictedTakeNone && !l.conflictReason.empty()) {
      conflicted = conflicted ? conflicted : &l;
      continue;
    }
    candidates.push_back(&l);
  }
  if (candidates.empty()) {
    std::string what = !parent.ref.sectionName.empty()
                           ? "no listener named " + std::string(parent.ref.sectionName)
                           : "no listener";
    if (parent.ref.port) what += " on port " + std::to_string(*parent.ref.port);
    if (conflicted)
      what += " that takes routes: " + describeListener(*conflicted) + " is Conflicted (" +
              conflicted->conflictReason + "), so " + std::string(parent.profile->name) +
              " builds nothing for it";
    parent.conditions.push_back(
        makeCondition("Accepted", false, "NoMatchingParent", "Gateway has " + what));
    return;
  }
  // Istio asks the hostname first, and a listener that matched it but refused the route by
  // AllowedRoutes outweighs one whose hostname did not match; the specification's order
  // (and Envoy Gateway's) is AllowedRoutes first, and a listener that admitted the route
  // but matched no hostname outweighs the others.
  const bool hostnameFirst =
      parent.profile->listenerAdmissionOrder == ListenerAdmissionOrder::HostnameFirst;
  bool anyAllowed = false;  // a listener admitted the route by AllowedRoutes
  bool anyRefused = false;  // a listener that shares a hostname refused it by AllowedRoutes
  for (const Listener* l : candidates) {
    const HostnameFit fit = hostnameFit(*l, route, gateway, *parent.profile);
    const bool hostnameMatched = fit == HostnameFit::Matched;
    auto noHostname = [&] {
      parent.rejections.push_back(
          {l, "NoMatchingListenerHostname",
           describeListener(*l) +
               (fit == HostnameFit::Claimed
                    ? " leaves the route's hostnames it matches to the listeners on its port "
                      "that name them exactly (listener isolation)"
                    : " shares no hostname with the route")});
    };
    if (hostnameFirst && !hostnameMatched) {
      noHostname();
      continue;
    }
    if (!namespaceAdmitted(*l, r, store)) {
      parent.rejections.push_back({l, "NotAllowedByListeners",
                                   describeListener(*l) + " does not admit routes from namespace " +
                                       std::string(r.namespace_)});
      anyRefused = true;
      continue;
    }
    if (!l->admitsKind(r.group, r.kind)) {
      parent.rejections.push_back(
          {l, "NotAllowedByListeners",
           describeListener(*l) + " does not admit " + std::string(r.kind) + "s"});
      anyRefused = true;
      continue;
    }
    anyAllowed = true;
    if (!hostnameMatched) {
      noHostname();
      continue;
    }
    // By ParentRefs, AllowedRoutes and hostnames: what attachedRoutes counts (countAttached).
    parent.listeners.push_back(l);
  }
  if (parent.listeners.empty()) {
    const bool notAllowed = hostnameFirst ? anyRefused : !anyAllowed;
    if (notAllowed) {
      parent.conditions.push_back(makeCondition("Accepted", false, "NotAllowedByListeners",
                                                "No listener of the Gateway admits this route"));
    } else {
      parent.conditions.push_back(
          makeCondition("Accepted", false, "NoMatchingListenerHostname",
                        "No listener hostname matches the hostnames of this route"));
    }
    return;
  }
  if (route.invalidRule) {
    parent.conditions.push_back(
        makeCondition("Accepted", false, route.invalidRule->reason, route.invalidRule->message));
    return;
  }
  parent.conditions.push_back(makeCondition("Accepted", true, "Accepted", "Route is accepted"));
}

// Adds one more refusal to those an AllJoined ResolvedRefs reports: its reason joins the
// sorted, distinct list, its message a line of its own; the first refusal stays the backend.
void joinRefusal(UnresolvedBackend& into, UnresolvedBackend more) {
  if (into.reason.empty()) {
    into = std::move(more);
    return;
  }
  std::vector<std::string_view> reasons;
  for (std::string_view rest = into.reason; !rest.empty();) {
    const std::size_t comma = rest.find(',');
    reasons.push_back(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  reasons.push_back(more.reason);
  std::sort(reasons.begin(), reasons.end());
  reasons.erase(std::unique(reasons.begin(), reasons.end()), reasons.end());
  std::string joined;
  for (std::string_view r : reasons) joined += (joined.empty() ? "" : ",") + std::string(r);
  into.reason = std::move(joined);
  into.message += "\n" + more.message;
}

// Whether ResolvedRefs counts the rule filters a controller refuses (RouteRule::refusedFilters):
// Envoy Gateway's own filter objects, or the filter types Istio does not translate.
bool reportsRuleFilters(const ControllerProfile& profile) {
  return profile.checksEnvoyRouteFilters ||
         profile.routeRuleChecks == RouteRuleChecks::TranslationErrors;
}

// The refusal ResolvedRefs reports under `choice`, given how each backendRef resolves
// (`resolve(rule, backend)` answers an UnresolvedBackend whose reason is empty when it
// resolves) and, when `filters`, the filters of each rule the controller cannot apply (before
// the rule's backendRefs, as the translator reads a rule; they name no backendRef).
template <typename Resolve>
UnresolvedBackend reportedUnder(const Route& route, UnresolvedBackendChoice choice, bool filters,
                                Resolve&& resolve) {
  if (choice == UnresolvedBackendChoice::First) {
    for (const RouteRule& rule : route.rules) {
      if (filters && !rule.refusedFilters.empty())
        return {nullptr, rule.refusedFilters.front().reason, rule.refusedFilters.front().message};
      for (const BackendRef& b : rule.backends)
        if (UnresolvedBackend u = resolve(rule, b); !u.reason.empty()) return u;
    }
    return {};
  }
  if (choice == UnresolvedBackendChoice::AllJoined) {
    UnresolvedBackend all;
    for (const RouteRule& rule : route.rules) {
      if (filters)
        for (const FilterRefusal& f : rule.refusedFilters)
          joinRefusal(all, {nullptr, f.reason, f.message});
      for (const BackendRef& b : rule.backends)
        if (UnresolvedBackend u = resolve(rule, b); !u.reason.empty())
          joinRefusal(all, std::move(u));
    }
    return all;
  }
  if (choice == UnresolvedBackendChoice::Last) {
    UnresolvedBackend last;
    for (const RouteRule& rule : route.rules) {
      if (rule.problem) continue;  // dropped: its backendRefs are not resolved
      if (filters)
        for (const FilterRefusal& f : rule.refusedFilters) last = {nullptr, f.reason, f.message};
      for (const BackendRef& b : rule.backends)
        if (UnresolvedBackend u = resolve(rule, b); !u.reason.empty()) last = std::move(u);
    }
    return last;
  }
  // LastDropped: rule by rule, as the translator converts them. A gRPC route's mirror filter
  // is converted before the rule's backends and any refusal of it ends the translation; an
  // HTTP route's is reported only when none of the rule's backendRefs is dropped.
  const bool grpc = route.kind == RouteKind::GRPC;
  UnresolvedBackend reported;
  for (const RouteRule& rule : route.rules) {
    // A rule filter the translator refuses ends the translation, before the rule's backends.
    if (filters && !rule.refusedFilters.empty())
      return {nullptr, rule.refusedFilters.front().reason, rule.refusedFilters.front().message};
    if (grpc)
      for (const BackendRef& b : rule.backends)
        if (b.mirror)
          if (UnresolvedBackend u = resolve(rule, b); u.backend) return u;
    UnresolvedBackend dropped;
    UnresolvedBackend mirror;
    for (const BackendRef& b : rule.backends) {
      if (grpc && b.mirror) continue;
      UnresolvedBackend u = resolve(rule, b);
      if (!u.backend) continue;
      if (b.mirror) {
        mirror = std::move(u);
      } else if (!droppedRefusal(u.reason)) {
        return u;
      } else {
        dropped = std::move(u);
      }
    }
    if (dropped.backend) {
      reported = std::move(dropped);
    } else if (mirror.backend) {
      reported = std::move(mirror);
    }
  }
  return reported;
}

// The backendRef whose refusal a parent in `context` reports: the route's own choice when
// the context is the one its backends were resolved in, else each backendRef resolved again.
UnresolvedBackend reportedUnresolved(const Route& route, ResolutionContext context,
                                     const model::Store& store, const ReferenceGrantIndex& grants) {
  if (context == contextOf(route)) return route.reportedUnresolved;
  return reportedUnder(route, context.profile->unresolvedBackendChoice,
                       reportsRuleFilters(*context.profile),
                       [&](const RouteRule& rule, const BackendRef& b) -> UnresolvedBackend {
                         Resolution r = resolveBackend(b, rule, route, store, grants, context);
                         if (r.reason.empty()) return {};
                         return {&b, std::move(r.reason), std::move(r.message)};
                       });
}

// Whether the NginxProxy of a Gateway (its own infrastructure.parametersRef, else its class's
// parametersRef) sets a DNS resolver, which NGINX Gateway Fabric needs for ExternalName
// Services.
bool nginxProxyResolves(const model::Store& store, const Gateway& gateway) {
  const Gateway& root = gateway.parent ? *gateway.parent : gateway;
  auto resolves = [&](yaml::NodeRef ref, std::string_view namespace_) {
    if (ref.get("group").str() != "gateway.nginx.org" || ref.get("kind").str() != "NginxProxy")
      return false;
    const model::Resource* proxy =
        store.find("gateway.nginx.org", "NginxProxy", namespace_, ref.get("name").str());
    return proxy && proxy->spec().get("dnsResolver");
  };
  if (resolves(root.resource->spec().get("infrastructure").get("parametersRef"),
               root.resource->namespace_))
    return true;
  if (!root.gatewayClass) return false;
  yaml::NodeRef classRef = root.gatewayClass->spec().get("parametersRef");
  return resolves(classRef, classRef.get("namespace").str());
}

// A backendRef a parent's controller refuses for that parent alone, though it resolves: Envoy
// Gateway resolves a DynamicResolver Backend from the TLS server name, so only a passthrough
// listener can forward to it (route.go, TLSRoute destinations); NGINX Gateway Fabric needs the
// Gateway's NginxProxy to resolve an ExternalName Service's name (backend_refs.go
// checkExternalNameValidForGateways).
UnresolvedBackend refusalForParent(const RouteParent& parent, const Route& route,
                                   const model::Store& store) {
  if (parent.profile->externalNameNeedsNginxResolver && parent.gateway)
    for (const RouteRule& rule : route.rules)
      for (const BackendRef& b : rule.backends)
        if (b.reason.empty() && b.target && b.group.empty() && b.kind == "Service" &&
            b.target->spec().get("type").str() == "ExternalName" &&
            !nginxProxyResolves(store, *parent.gateway))
          return {&b, "UnsupportedValue",
                  "Service " + b.namespace_ + "/" + b.name + " is of type ExternalName, which " +
                      std::string(parent.profile->name) +
                      " forwards to only when the Gateway's NginxProxy sets dnsResolver; set it "
                      "in the NginxProxy of the Gateway or of its GatewayClass"};
  if (!parent.profile->checksEnvoyBackends || route.kind != RouteKind::TLS) return {};
  if (std::none_of(parent.listeners.begin(), parent.listeners.end(),
                   [](const Listener* l) { return terminatesTls(*l); }))
    return {};
  for (const RouteRule& rule : route.rules)
    for (const BackendRef& b : rule.backends)
      if (b.reason.empty() && b.target && isEnvoyBackendKind(b.group, b.kind) &&
          isDynamicResolver(*b.target))
        return {&b, "UnsupportedValue", std::string(kDynamicResolverNeedsPassthrough)};
  return {};
}

void addResolvedRefs(RouteParent& parent, const Route& route, const model::Store& store,
                     const ReferenceGrantIndex& grants) {
  if (parent.conditions.empty()) return;
  parent.unresolved = reportedUnresolved(route, contextOf(parent), store, grants);
  parent.parentRefusal = refusalForParent(parent, route, store);
  if (parent.parentRefusal.backend) {
    if (parent.profile->unresolvedBackendChoice == UnresolvedBackendChoice::AllJoined) {
      joinRefusal(parent.unresolved, parent.parentRefusal);
    } else if (parent.unresolved.reason.empty() ||
               parent.profile->unresolvedBackendChoice == UnresolvedBackendChoice::Last) {
      parent.unresolved = parent.parentRefusal;  // Last: the parent's own refusal comes last
    }
  }
  if (!parent.unresolved.reason.empty()) {
    parent.conditions.push_back(
        makeCondition("ResolvedRefs", false, parent.unresolved.reason, parent.unresolved.message));
  } else {
    parent.conditions.push_back(
        makeCondition("ResolvedRefs", true, "ResolvedRefs", "Resolved all the Object references"));
  }
}

// The Gateway API's "Drop Rule(s)" answer to a route with valid and invalid rules: under a
// parent that accepts it, PartiallyInvalid True lists the rules the controller dropped, by
// index, and why (Envoy Gateway's message: "Dropped Rule(s) [0 2]: ", one line per rule).
void addPartiallyInvalid(RouteParent& parent, const Route& route) {
  if (!parent.profile->writesPartiallyInvalid || route.invalidRule) return;
  if (parent.conditions.empty() || parent.conditions.back().type != "Accepted" ||
      parent.conditions.back().status != "True")
    return;
  std::string indexes, messages;
  for (const RouteRule& rule : route.rules) {
    if (!rule.problem) continue;
    indexes += (indexes.empty() ? "" : " ") + std::to_string(rule.index);
    messages += (messages.empty() ? "" : "\n") + rule.problem->message;
  }
  if (indexes.empty()) return;
  parent.conditions.push_back(makeCondition("PartiallyInvalid", true, "UnsupportedValue",
                                            "Dropped Rule(s) [" + indexes + "]: " + messages));
}

void buildRoute(Route& route, Topology& topology, const model::Store& store,
                const ReferenceGrantIndex& grants) {
  const model::Resource& r = *route.resource;
  for (yaml::NodeRef h : r.spec().get("hostnames").items()) route.hostnames.push_back(h.str());

  // Parents first: the first one a simulated controller takes decides the profile backends
  // are resolved with; a parent of another controller resolves them again with its own.
  yaml::NodeRef parentRefs = r.spec().get("parentRefs");
  route.parents.reserve(parentRefs.size());
  bool profileChosen = false;
  for (yaml::NodeRef node : parentRefs.items()) {
    RouteParent& parent = route.parents.emplace_back();
    ParentRef& ref = parent.ref;
    ref.node = node;
    yaml::NodeRef group = node.get("group");
    ref.group = group ? std::string(group.str()) : std::string(kGatewayGroup);
    yaml::NodeRef kind = node.get("kind");
    ref.kind = kind ? std::string(kind.str()) : "Gateway";
    yaml::NodeRef ns = node.get("namespace");
    ref.namespaceWritten = static_cast<bool>(ns);
    ref.namespace_ = std::string(ns ? ns.str() : r.namespace_);
    ref.name = std::string(node.get("name").str());
    ref.sectionName = node.get("sectionName").str();
    ref.port = node.get("port").asInt();
    if ((ref.group == kGatewayGroup && ref.kind == "Gateway") ||
        isListenerSetKind(ref.group, ref.kind)) {
      parent.gateway = topology.findGateway(ref.namespace_, ref.name, ref.kind);
      parent.exists = parent.gateway != nullptr;
      // Only the controller of the Gateway's class writes this parent's status.
      if (parent.gateway && parent.gateway->managed) parent.profile = parent.gateway->profile;
    } else if (topology.meshProfile->takesMeshParent(ref.group, ref.kind)) {
      parent.profile = topology.meshProfile;
      const model::Resource* object = store.find(ref.group, ref.kind, ref.namespace_, ref.name);
      parent.exists = object != nullptr;
      if (ref.group.empty()) parent.service = object;
    }
    // Another kind of parent is not simulated, nor one the controller translates nothing for.
    if (parent.profile &&
        parent.profile->ignoresParent(parent.gateway ? parent.gateway->controllerName : "",
                                      route.kind == RouteKind::UDP) != IgnoredParent::No)
      parent.profile = nullptr;
    if (parent.profile && !profileChosen) {
      route.profile = parent.profile;
      route.resolvedForMesh = parent.gateway == nullptr;
      profileChosen = true;
    }
  }

  readRules(route, store, grants);
  route.invalidRule = validateRouteRules(route);
  route.reportedUnresolved = reportedUnder(
      route, route.profile->unresolvedBackendChoice, reportsRuleFilters(*route.profile),
      [](const RouteRule&, const BackendRef& b) -> UnresolvedBackend {
        if (b.reason.empty()) return {};
        return {&b, b.reason, b.message};
      });
  // A backendRef another parent's controller refuses (or the same controller for a parent of
  // the other sort, Gateway or mesh) is refused for the findings too, saying which controller
  // refuses it; route.reportedUnresolved stays the first parent's.
  std::vector<ResolutionContext> others;
  for (const RouteParent& parent : route.parents)
    if (parent.profile && contextOf(parent) != contextOf(route) &&
        std::find(others.begin(), others.end(), contextOf(parent)) == others.end())
      others.push_back(contextOf(parent));
  for (const ResolutionContext& other : others)
    for (RouteRule& rule : route.rules)
      for (BackendRef& b : rule.backends) {
        if (!b.reason.empty()) continue;
        Resolution refused = resolveBackend(b, rule, route, store, grants, other);
        if (refused.reason.empty()) continue;
        refused.message += " (as " + std::string(other.profile->name) + " resolves it" +
                           (other.profile == route.profile ? " for a Gateway parent" : "") + ")";
        refused.target = b.target;
        applyResolution(b, std::move(refused));
      }

  for (RouteParent& parent : route.parents) {
    if (!parent.profile) continue;
    const ParentRef& ref = parent.ref;
    if (parent.gateway) {
      attachToGateway(parent, route, store);
    } else if (parent.exists) {
      parent.conditions.push_back(makeCondition("Accepted", true, "Accepted", "Route is accepted"));
    } else {
      parent.conditions.push_back(
          makeCondition("Accepted", false, "NoMatchingParent",
                        ref.kind + " " + ref.namespace_ + "/" + ref.name + " not found"));
    }
    addPartiallyInvalid(parent, route);
    addResolvedRefs(parent, route, store, grants);
  }
}

// Whether the input says Istio runs in the cluster, without a Gateway of it: an object of one
// of Istio's own APIs, or a Namespace enrolled in its mesh (sidecar injection, a revision
// label, or ambient mode), as a repository of a mesh-only installation shows it.
bool istioInstalled(const model::Store& store) {
  static constexpr std::pair<std::string_view, std::string_view> kIstioKinds[] = {
      {"networking.istio.io", "ServiceEntry"},
      {"networking.istio.io", "VirtualService"},
      {"networking.istio.io", "DestinationRule"},
      {"networking.istio.io", "Gateway"},
      {"networking.istio.io", "Sidecar"},
      {"networking.istio.io", "EnvoyFilter"},
      {"networking.istio.io", "WorkloadEntry"},
      {"networking.istio.io", "WorkloadGroup"},
      {"security.istio.io", "AuthorizationPolicy"},
      {"security.istio.io", "PeerAuthentication"},
      {"security.istio.io", "RequestAuthentication"},
      {"telemetry.istio.io", "Telemetry"},
      {"extensions.istio.io", "WasmPlugin"}};
  for (auto [group, kind] : kIstioKinds)
    if (!store.ofKind(group, kind).empty()) return true;
  for (const model::Resource* ns : store.ofKind("", "Namespace"))
    if (ns->label("istio-injection") == "enabled" || ns->labels().get("istio.io/rev") ||
        ns->label("istio.io/dataplane-mode") == "ambient")
      return true;
  return false;
}

// The mesh controller, unless one was named: Istio when the input uses Istio (a Gateway or a
// GatewayClass of Istio's, or istioInstalled), else Linkerd when the input or the config names
// it, else policygraph's generic stand-in.
void chooseMeshProfile(Topology& topology, const model::Store& store,
                       const TopologyOptions& options) {
  if (options.meshControllerName != TopologyOptions{}.meshControllerName) {
    topology.meshProfile = &profileForController(options.meshControllerName);
    return;
  }
  const ControllerProfile* istio = nullptr;
  for (const ControllerProfile* p : controllerProfiles())
    if (p->id == ControllerId::Istio) istio = p;
  bool usesIstio = std::any_of(topology.gateways.begin(), topology.gateways.end(),
                               [&](const Gateway& g) { return g.profile == istio; });
  for (const model::Resource* c : store.ofKind(kGatewayGroup, "GatewayClass"))
    usesIstio = usesIstio || &profileForController(c->spec().get("controllerName").str()) == istio;
  usesIstio = usesIstio || istioInstalled(store);
  const ControllerProfile* chosen = usesIstio ? istio : nullptr;
  if (!chosen && topology.linkerd)
    for (const ControllerProfile* p : controllerProfiles())
      if (p->id == ControllerId::Linkerd) chosen = p;
  if (!chosen) return;
  topology.meshProfile = chosen;
  topology.meshControllerName = std::string(chosen->meshRouteControllerName);
}

// A route counts on every listener it attaches to by ParentRefs, AllowedRoutes and
// hostnames, even when the listener or the route's rules are invalid (ListenerStatus:
// "a Route is still attached even if the Route fails to be programmed"; the conformance test
// GatewayWithAttachedRoutes leaves out a route whose hostname matches no listener). Counted
// after every route is built, so that routes are built without writing to shared listeners.
void countAttached(Topology& topology) {
  for (const Route& route : topology.routes)
    for (const RouteParent& parent : route.parents) {
      if (route.invalidRule && route.kind != RouteKind::HTTP && parent.profile &&
          !parent.profile->invalidNonHttpRoutesAttach)
        continue;
      for (const Listener* l : parent.listeners)
        ++const_cast<Listener*>(l)->attachedRoutes;  // the topology is ours to write
    }
}

}  // namespace

std::string_view routeKindName(RouteKind kind) {
  for (auto [k, name] : kRouteKinds)
    if (k == kind) return name;
  return "HTTPRoute";
}

std::optional<RouteKind> routeKindOf(std::string_view kind) {
  for (auto [k, name] : kRouteKinds)
    if (name == kind) return k;
  return std::nullopt;
}

bool Listener::admitsKind(std::string_view group, std::string_view kind) const {
  return std::any_of(kinds.begin(), kinds.end(),
                     [&](const GroupKind& gk) { return gk.group == group && gk.kind == kind; });
}

bool RouteParent::accepted() const {
  return !conditions.empty() && conditions.front().type == "Accepted" &&
         conditions.front().status == "True";
}

bool Route::meshProducer(const RouteParent& parent) const {
  return parent.service && parent.ref.namespace_ == resource->namespace_;
}

ReferenceGrantIndex::ReferenceGrantIndex(const model::Store& store) {
  for (const model::Resource* grant : store.ofKind("ReferenceGrant")) {
    if (grant->group != kGatewayGroup) continue;
    Grant g{grant->namespace_, {}, {}};
    for (yaml::NodeRef f : grant->spec().get("from").items())
      g.from.push_back({f.get("group").str(), f.get("kind").str(), f.get("namespace").str()});
    for (yaml::NodeRef t : grant->spec().get("to").items())
      g.to.push_back({t.get("group").str(), t.get("kind").str(), t.get("name").str()});
    grants_.push_back(std::move(g));
  }
  std::stable_sort(grants_.begin(), grants_.end(),
                   [](const Grant& a, const Grant& b) { return a.namespace_ < b.namespace_; });
}

bool ReferenceGrantIndex::permits(std::string_view fromGroup, std::string_view fromKind,
                                  std::string_view fromNamespace, std::string_view toGroup,
                                  std::string_view toKind, std::string_view toNamespace,
                                  std::string_view toName) const {
  auto g = std::lower_bound(
      grants_.begin(), grants_.end(), toNamespace,
      [](const Grant& grant, std::string_view ns) { return grant.namespace_ < ns; });
  for (; g != grants_.end() && g->namespace_ == toNamespace; ++g) {
    bool fromOk = std::any_of(g->from.begin(), g->from.end(), [&](const From& f) {
      return f.group == fromGroup && f.kind == fromKind && f.namespace_ == fromNamespace;
    });
    if (!fromOk) continue;
    for (const To& t : g->to)
      if (t.group == toGroup && t.kind == toKind && (t.name.empty() || t.name == toName))
        return true;
  }
  return false;
}

const Gateway* Topology::findGateway(std::string_view namespace_, std::string_view name,
                                     std::string_view kind) const {
  for (const Gateway& g : gateways)
    if (g.resource->kind == kind && g.resource->namespace_ == namespace_ &&
        g.resource->name == name)
      return &g;
  return nullptr;
}

const Route* Topology::findRoute(const model::Resource* resource) const {
  for (const Route& r : routes)
    if (r.resource == resource) return &r;
  return nullptr;
}

const ControllerProfile& Topology::backendPolicyProfile() const {
  for (const Gateway& g : gateways)
    if (g.managed && g.profile->id != ControllerId::Generic) return *g.profile;
  return *meshProfile;
}

Topology buildTopology(const model::Store& store, const TopologyOptions& given) {
  // One time for every certificate of the build.
  TopologyOptions options = given;
  if (options.now == 0) options.now = std::time(nullptr);
  Topology topology;
  topology.meshControllerName = options.meshControllerName;
  topology.grants = ReferenceGrantIndex(store);
  const ReferenceGrantIndex& grants = topology.grants;
  std::vector<const model::Resource*> gateways = store.ofKind(kGatewayGroup, "Gateway");
  std::vector<const model::Resource*> sets = store.ofKind(kGatewayGroup, "ListenerSet");
  for (const model::Resource* r : store.ofKind("gateway.networking.x-k8s.io", "XListenerSet"))
    sets.push_back(r);
  // GEP-1713 precedence between ListenerSets: the older first, then by namespace and name.
  auto created = [](const model::Resource* r) {
    return r->metadata().get("creationTimestamp").str();
  };
  std::stable_sort(sets.begin(), sets.end(),
                   [&](const model::Resource* a, const model::Resource* b) {
                     return std::make_tuple(created(a), a->namespace_, a->name) <
                            std::make_tuple(created(b), b->namespace_, b->name);
                   });
  // Listeners point at their Gateway and ListenerSets at theirs: size once, never move.
  topology.gateways.resize(gateways.size() + sets.size());
  for (std::size_t i = 0; i < gateways.size(); ++i) {
    topology.gateways[i].resource = gateways[i];
    buildGateway(topology.gateways[i], store, grants, options);
  }
  for (std::size_t i = 0; i < sets.size(); ++i) {
    Gateway& set = topology.gateways[gateways.size() + i];
    set.resource = sets[i];
    buildListenerSet(set, topology.gateways, store, grants, options);
  }
  topology.linkerd = options.linkerdDeclared || linkerdNamed(store, collectWorkloads(store));
  chooseMeshProfile(topology, store, options);
  // Routes in Store order: the indexed objects of each route kind (a duplicate is not
  // indexed), merged by their place in the Store.
  std::vector<std::pair<const model::Resource*, RouteKind>> found;
  for (auto [kind, name] : kRouteKinds)
    for (const model::Resource* r : store.ofKind(name))
      if (r->group == kGatewayGroup) found.emplace_back(r, kind);
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return std::less<const model::Resource*>()(a.first, b.first);
  });
  topology.routes.resize(found.size());
  for (std::size_t i = 0; i < found.size(); ++i) {
    topology.routes[i].resource = found[i].first;
    topology.routes[i].kind = found[i].second;
  }
  // Each route reads the Store and the Gateways and writes only itself: built on `jobs`
  // threads, in place.
  model::parallelFor(model::workersFor(options.jobs, topology.routes.size(), kParallelMinRoutes),
                     topology.routes.size(), [&](std::size_t i, unsigned) {
                       buildRoute(topology.routes[i], topology, store, grants);
                     });
  countAttached(topology);
  return topology;
}

}  // namespace pg::graph
