// The Gateway API topology as a graph value: GatewayClass → Gateway → Listener → Route →
// rule → backendRef → Service, plus GAMMA routes whose parent is a Service. Built once from
// the Store; route attachment and the status a controller would write are computed here,
// and every later stage (rules, policies, reports) reads them from this value.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/config/config.h"
#include "lib/graph/controller_profile.h"
#include "lib/graph/gateway_classes.h"
#include "lib/graph/rules_validation.h"
#include "lib/model/store.h"
#include "lib/yaml/tree.h"

namespace pg::graph {

inline constexpr std::string_view kGatewayGroup = "gateway.networking.k8s.io";
inline constexpr std::string_view kNamespaceNameLabel = "kubernetes.io/metadata.name";

// A status condition as the Gateway API writes it.
struct Condition {
  std::string type;
  std::string status;  // "True", "False" or "Unknown"
  std::string reason;
  std::string message;
};

// A condition with status "True" when `ok`, else "False": what every controller writes.
Condition makeCondition(std::string type, bool ok, std::string reason, std::string message);

enum class RouteKind : std::uint8_t { HTTP, GRPC, TLS, TCP, UDP };
std::string_view routeKindName(RouteKind kind);
std::optional<RouteKind> routeKindOf(std::string_view kind);

// Whether a Service (or ServiceImport) lists `port`; with a protocol, of that protocol (a port
// without one is TCP).
bool servicePortExists(const model::Resource& service, std::int64_t port,
                       std::string_view protocol = {});

struct GroupKind {
  std::string group;
  std::string kind;
  bool operator==(const GroupKind&) const = default;
};

struct Gateway;

struct Listener {
  const Gateway* gateway = nullptr;
  std::uint32_t index = 0;
  yaml::NodeRef node;
  std::string_view name;
  std::string_view protocol;
  std::int64_t port = 0;
  std::string_view hostname;  // empty: any hostname

  enum class From : std::uint8_t { Same, All, Selector, None };
  From from = From::Same;
  model::LabelSelector selector;        // for From::Selector
  std::vector<GroupKind> kinds;         // route kinds the listener admits
  std::vector<GroupKind> invalidKinds;  // named in allowedRoutes.kinds but not supported

  std::vector<Condition> conditions;  // Accepted, ResolvedRefs, Conflicted, Programmed
  std::uint32_t attachedRoutes = 0;
  // Routes can attach: the listener is accepted (not conflicted, protocol supported).
  bool accepted = true;
  std::string conflictReason;  // HostnameConflict or ProtocolConflict; empty when none
  // What produces a certificate Secret that is not in the input ("cert-manager Certificate
  // infra/shop", "TLSPolicy infra/tls", ...), when one does; and, when the Secret is missing
  // and nothing produces it, which producers were looked for.
  std::string certificateProducer;
  std::string certificateProducersConsidered;

  bool admitsKind(std::string_view group, std::string_view kind) const;
};

// A Gateway, or a ListenerSet (GEP-1713) that adds listeners to one: both hold listeners that
// routes attach to, and both get listener status.
struct Gateway {
  const model::Resource* resource = nullptr;
  const Gateway* parent = nullptr;  // ListenerSets: the Gateway they extend
  bool isListenerSet() const { return resource->kind != "Gateway"; }
  const model::Resource* gatewayClass = nullptr;  // null when the class is not in the input
  std::string_view className;
  ClassOrigin classOrigin = ClassOrigin::Missing;
  // The class's; for an assumed or missing class, the simulated controller's (--controller-name)
  // or kAssumedControllerName. A copy: declared classes and the option do not outlive the build.
  std::string controllerName;
  // How that controller behaves (controller_profile.h); the generic profile for one no
  // profile knows.
  const ControllerProfile* profile = &genericProfile();
  // Simulated: its class belongs to the simulated controller, or is assumed or missing (a
  // missing class is GW207's, and its routes are still judged).
  bool managed = false;
  std::vector<Listener> listeners;
  std::vector<Condition> conditions;
  // Gateways: how many ListenerSets attached to it, and whether any names it as parent (the
  // status field is written only then).
  std::uint32_t attachedListeners = 0;
  bool hasListenerSets = false;
};

// A backendRef of a route rule, resolved.
struct BackendRef {
  yaml::NodeRef node;
  std::string group;  // "" for core
  std::string kind;
  std::string namespace_;
  std::string name;
  std::optional<std::int64_t> port;
  bool mirror = false;  // a RequestMirror filter's backendRef
  const model::Resource* target = nullptr;
  // Empty when every controller of the route's simulated parents resolves it; else the first
  // refusal, in parent order (Route::profile's first): BackendNotFound, InvalidKind,
  // RefNotPermitted, UnsupportedValue or a reason of that controller's own (Istio's
  // InvalidDestination, Envoy Gateway's InvalidAddress, UnsupportedAddressType and
  // InvalidBackendRef). Each parent's ResolvedRefs is its own controller's
  // (RouteParent::unresolved).
  std::string reason;
  std::string message;
  yaml::NodeRef at;  // the field at fault
  // InvalidKind for a kind whose support is not known: an implementation's own group under a
  // controller no profile describes, a kind Envoy Gateway takes only through an extension
  // server, a kind a profile's controller takes in a way policygraph does not model
  // (ControllerProfile::notSimulatedBecause says which). The status says what a controller
  // that refuses it writes, and GW209 only notes it.
  bool notSimulated = false;
};

// The backendRef of a route whose refusal a parent's ResolvedRefs reports, as that parent's
// controller resolves it (ControllerProfile::unresolvedBackendChoice).
struct UnresolvedBackend {
  // The first backendRef refused; null when every backendRef resolves, or when only filters
  // are refused (Envoy Gateway's AllJoined counts RouteRule::refusedFilters too). An empty
  // reason: nothing is refused.
  const BackendRef* backend = nullptr;
  std::string reason;
  std::string message;
};

// An ExtensionRef filter, of a rule or of one of its backendRefs, and the object it names when
// of a kind the controller resolves itself (Envoy Gateway's HTTPRouteFilter).
struct ExtensionFilter {
  yaml::NodeRef filter;
  const model::Resource* object = nullptr;  // null: not found, or a kind it does not know
  bool onBackend = false;
};

// A filter the controller cannot apply: the rule answers HTTP 500 and the route's ResolvedRefs
// is False.
struct FilterRefusal {
  std::string reason;
  std::string message;
  yaml::NodeRef at;  // the field of the route at fault
};

struct RouteRule {
  std::uint32_t index = 0;
  std::string_view name;  // GEP-995; empty when unnamed
  yaml::NodeRef node;
  std::vector<BackendRef> backends;
  // Envoy Gateway's own filter objects, resolved (ControllerProfile::checksEnvoyRouteFilters):
  // the rule's, in order, then its backendRefs'; and the filters it cannot apply.
  std::vector<ExtensionFilter> extensionFilters;
  std::vector<FilterRefusal> refusedFilters;
  // Why the controller drops this rule (Accepted False when every rule is dropped); null when
  // it programs it. Shared: a Route is copied with its rules.
  std::shared_ptr<const RouteProblem> problem;
};

struct ParentRef {
  yaml::NodeRef node;
  std::string group;
  std::string kind;
  std::string namespace_;
  std::string name;
  std::string_view sectionName;
  std::optional<std::int64_t> port;
  // The reference as status.parents[].parentRef repeats it (only the fields written).
  bool namespaceWritten = false;
};

struct Route;

// Why one listener did not take a route, for findings.
struct ListenerRejection {
  const Listener* listener;
  std::string reason;  // NotAllowedByListeners, NoMatchingListenerHostname
  std::string message;
};

struct RouteParent {
  ParentRef ref;
  const Gateway* gateway = nullptr;          // kind Gateway or ListenerSet
  const model::Resource* service = nullptr;  // kind Service (GAMMA)
  bool exists = false;                       // the parent object is in the input
  std::vector<const Listener*> listeners;    // the listeners that accepted the route
  std::vector<ListenerRejection> rejections;
  std::vector<Condition> conditions;  // Accepted, ResolvedRefs (empty when nobody writes)
  // The profile of the controller that writes this parent's status (its Gateway's, or the
  // mesh controller's), and the backend that decides its ResolvedRefs under that profile.
  const ControllerProfile* profile = nullptr;
  UnresolvedBackend unresolved;
  // A backendRef that resolves but that this parent's controller refuses for it alone (Envoy
  // Gateway: a DynamicResolver Backend behind a TLS listener that terminates; NGINX Gateway
  // Fabric: an ExternalName Service behind a Gateway whose NginxProxy sets no DNS resolver);
  // it is part of `unresolved` too.
  UnresolvedBackend parentRefusal;
  bool accepted() const;
};

struct Route {
  const model::Resource* resource = nullptr;
  RouteKind kind = RouteKind::HTTP;
  std::vector<std::string_view> hostnames;
  std::vector<RouteRule> rules;
  std::vector<RouteParent> parents;
  // The profile backends were resolved with: the first simulated parent's controller's.
  const ControllerProfile* profile = &genericProfile();
  // Whether `profile` resolved the backends for a mesh parent (the first simulated parent is a
  // Service or ServiceEntry).
  bool resolvedForMesh = false;
  UnresolvedBackend reportedUnresolved;     // as `profile` reports it
  std::optional<RouteProblem> invalidRule;  // set when no rule is valid: Accepted False
  // GAMMA: a route whose parent is a Service. Producer when in the Service's namespace.
  bool meshProducer(const RouteParent& parent) const;
};

// The ReferenceGrants of a Store, by the namespace they grant access into: every backendRef
// and certificateRef to another namespace asks, so no question walks every grant.
class ReferenceGrantIndex {
 public:
  ReferenceGrantIndex() = default;
  explicit ReferenceGrantIndex(const model::Store& store);

  // Whether a ReferenceGrant in `toNamespace` lets (fromGroup, fromKind) objects of
  // `fromNamespace` refer to the (toGroup, toKind) object `toName`.
  bool permits(std::string_view fromGroup, std::string_view fromKind,
               std::string_view fromNamespace, std::string_view toGroup, std::string_view toKind,
               std::string_view toNamespace, std::string_view toName) const;

 private:
  struct From {
    std::string_view group, kind, namespace_;
  };
  struct To {
    std::string_view group, kind, name;  // an empty name grants every object of the kind
  };
  struct Grant {
    std::string_view namespace_;
    std::vector<From> from;
    std::vector<To> to;
  };
  std::vector<Grant> grants_;  // by namespace, then in store order
};

struct TopologyOptions {
  // Simulate this controller: Gateways of classes with another controllerName get no status.
  // Empty: every class present is simulated.
  std::string controllerName;
  // The controller that writes the status of mesh (GAMMA) routes.
  std::string meshControllerName = "policygraph.dev/mesh";
  // The config says the cluster runs Linkerd (`linkerd:`): its policy controller writes the
  // status of mesh routes unless Istio is there.
  bool linkerdDeclared = false;
  // Classes the controllers install, declared in the config file (`gatewayClasses:`).
  std::vector<DeclaredGatewayClass> gatewayClasses;
  // Objects produced outside the repository (`external:`): certificate Secrets among them.
  std::vector<config::ExternalObject> external;
  // Threads that build routes (each route is built alone); the topology is the same
  // whatever the number.
  unsigned jobs = 1;
  // The time certificates' validity is judged at, in seconds since the epoch; 0: the time
  // buildTopology starts, once for the whole build.
  std::int64_t now = 0;
};

class Topology {
 public:
  std::vector<Gateway> gateways;  // in store order
  std::vector<Route> routes;      // in store order
  std::string meshControllerName;
  // The cluster runs Linkerd: the config says so (`linkerd:`) or the input names it
  // (linkerdNamed). Worked out once; the mesh profile and the Linkerd family read it.
  bool linkerd = false;
  // The mesh controller's profile: Istio's when the input uses Istio (an Istio Gateway or
  // class, or networking.istio.io objects) and no mesh controller was named, else Linkerd's
  // when the input or the config names Linkerd, else generic.
  const ControllerProfile* meshProfile = &genericProfile();
  ReferenceGrantIndex grants;  // of the Store the topology was built from

  // A Gateway, or a ListenerSet when `kind` names one.
  const Gateway* findGateway(std::string_view namespace_, std::string_view name,
                             std::string_view kind = "Gateway") const;
  const Route* findRoute(const model::Resource* resource) const;
  // The controller profile whose rules for backend policies (BackendTLSPolicy,
  // XBackendTrafficPolicy) apply: the first simulated Gateway's controller's when a profile
  // describes it, else the mesh controller's.
  const ControllerProfile& backendPolicyProfile() const;
};

Topology buildTopology(const model::Store& store, const TopologyOptions& options);

}  // namespace pg::graph
