// Controller profiles: where Gateway API implementations differ, what each one does. A
// Gateway's profile is chosen by its GatewayClass's controllerName; every stage that must
// behave as that controller does (backend resolution, listener protocols and certificates,
// backend policy status) asks the profile instead of naming a controller itself. A controller
// no profile knows gets the generic profile: the Gateway API specification as written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace pg::graph {

enum class ControllerId : std::uint8_t {
  Generic,
  EnvoyGateway,
  Istio,
  Linkerd,
  NginxGatewayFabric,
  Kgateway
};

// How a backendRef of a supported kind is resolved.
enum class BackendResolution : std::uint8_t {
  Service,        // a core Service of that name; port rules below
  ServiceImport,  // multicluster.x-k8s.io ServiceImport (Istio: the Service of that name)
  Hostname,       // networking.istio.io Hostname: a ServiceEntry host or a Service's FQDN
  Object,         // an object of the kind, found by group, kind, namespace and name
};

struct BackendKindSupport {
  std::string_view group;
  std::string_view kind;
  BackendResolution resolution;
  // Object resolution: the group the object is looked up in, when a controller takes the kind
  // under another group than its own (Envoy Gateway reads a ServiceImport written without its
  // group); empty: the reference's group.
  std::string_view objectGroup = {};
};

struct KindName {
  std::string_view group;
  std::string_view kind;
};

// Which cross-namespace backendRefs of a mesh route (one whose parent is a Service) need a
// ReferenceGrant.
enum class MeshBackendGrants {
  All,
  // All but those into the namespace of one of the route's mesh parents: a consumer route (in
  // the namespace of the clients, GEP-1294) sends to the producer's Service without one, since
  // it changes only its own namespace's requests (the GAMMA conformance test
  // MeshConsumerRoute).
  ExceptParentNamespace,
  None,  // Istio: route_collections.go converts mesh routes with enforceRefGrant false;
         // Linkerd's status index checks a backend's kind and existence only
};

// A listener protocol the controller accepts and the route kinds (group
// gateway.networking.k8s.io) it admits; for TLS, per mode ("" matches any mode).
struct ListenerProtocolSupport {
  std::string_view protocol;
  std::string_view tlsMode;
  std::span<const std::string_view> routeKinds;
  // Only Gateways of these controllerNames may use it (Istio's HBONE: waypoints and east-west
  // gateways); empty: every controller of the profile.
  std::span<const std::string_view> onlyControllers;
};

// A listener shape a controller requires of its Gateways (Istio's waypoints take only the
// HBONE listener on 15008): port 0 and an empty TLS mode match any.
struct ListenerShape {
  std::int64_t port = 0;
  std::string_view protocol;
  std::string_view tlsMode;
};

struct ListenerRequirement {
  std::string_view controllerName;
  std::span<const ListenerShape> shapes;  // a listener must have one of these
  std::string_view message;               // the Accepted condition's, UnsupportedProtocol
  // Routes may name these Gateways as parents; false: the controller translates no route for
  // them, so a route's parentRef to one gets no status and counts on no listener (Istio's
  // waypoints: conversion.go skips their listeners when it collects route parents).
  bool takesRoutes = true;
};

// How a controller checks the content of a route's rules.
enum class RouteRuleChecks : std::uint8_t {
  // The Gateway API's rules (and Envoy Gateway's restrictions): an invalid rule is dropped,
  // and a route none of whose rules is valid is Accepted False (rules_validation.h).
  Specification,
  // Istio (conversion.go convertHTTPRoute, convertGRPCRoute; conditions.go createRouteStatus
  // treats every route error as a reference error): content never makes Accepted False; a
  // rule filter of a type the controller does not translate ends the route's translation,
  // ResolvedRefs False with reason InvalidFilter.
  TranslationErrors,
};

// Where a controller reports a backend policy (BackendTLSPolicy, XBackendTrafficPolicy).
enum class BackendPolicyAncestors : std::uint8_t {
  RouteParents,  // the parents of the routes that send traffic to the target (Envoy Gateway)
  Targets,       // the target itself, under `meshControllerName` (Istio)
};

// Which failing backendRef a route parent's ResolvedRefs reports when several fail.
enum class UnresolvedBackendChoice : std::uint8_t {
  First,  // the first, in rule order (each rule's backendRefs, then its mirrors)
  // Istio (route_collections.go computeRoute, conversion.go buildHTTPDestination): a
  // backendRef it can drop (BackendNotFound, InvalidKind, RefNotPermitted) is dropped and the
  // last one dropped is reported, a rule's mirrors only when none of its backendRefs is; any
  // other refusal (InvalidDestination) ends the translation, and that first one is reported.
  LastDropped,
  // Envoy Gateway (status/error.go, MultiStatusError): every refusal of every rule counts; the
  // reason lists their distinct reasons sorted and joined by commas, the message has one line
  // per refusal. The first refusal, in rule order, is the one findings point at.
  AllJoined,
  // NGINX Gateway Fabric (backend_refs.go addBackendRefsToRules, then conditions.go
  // DeduplicateConditions: the last condition of a type wins): the last refusal, in rule order
  // (each rule's backendRefs, then its mirrors); a rule dropped for its matches or filters
  // resolves none of its backendRefs.
  Last,
};

// How a controller decides which listeners of a Gateway clash on a port.
enum class ListenerConflicts : std::uint8_t {
  // Both listeners of a clashing pair within one Gateway are conflicted (a ListenerSet's own
  // listeners, and the Gateway's over a ListenerSet's, take precedence in order): protocols of
  // different families on a port clash (ProtocolConflict), and so do equal hostnames.
  BothOfAPair,
  // Istio (gatewaycommon listener_conflict.go ComputeGatewayListenerConflicts): in order, the
  // Gateway's listeners then its ListenerSets', a listener that clashes with an earlier one
  // that stands is conflicted alone, and takes no routes. On a port, a TCP or UDP listener
  // clashes with any other (ProtocolConflict); HTTP, HTTPS and TLS listeners clash only on the
  // same hostname (an unset one being `*`), ProtocolConflict when their protocols differ,
  // else HostnameConflict; others when their protocols are equal.
  FirstWins,
};

// The order a controller asks whether a listener takes a route in, and the reason a parent's
// Accepted condition gives when no listener does.
enum class ListenerAdmissionOrder : std::uint8_t {
  // AllowedRoutes (namespace, then kind), then hostnames: NoMatchingListenerHostname when a
  // listener admitted the route but shares no hostname with it, else NotAllowedByListeners.
  AllowedRoutesFirst,
  // Istio (conversion.go referenceAllowed, conditions.go createRouteStatus): hostnames, then
  // namespace, then kind: NotAllowedByListeners when a listener whose hostname matched refused
  // the route, else NoMatchingListenerHostname.
  HostnameFirst,
};

// Why a controller translates nothing for a route on a parent, so that the parentRef gets no
// status: the route's kind is one it does not watch (writesUdpRouteStatus), or the parent is a
// Gateway that takes no routes (ListenerRequirement::takesRoutes).
enum class IgnoredParent : std::uint8_t { No, RouteKind, Gateway };

struct ControllerProfile {
  ControllerId id = ControllerId::Generic;
  std::string_view name;  // for messages: "Envoy Gateway", "Istio", "the Gateway API"
  // The controllerNames this profile simulates (the first is the Gateway controller's).
  std::span<const std::string_view> controllerNames;

  // Backends.
  std::span<const BackendKindSupport> backendKinds;
  // A Service backendRef's port must be one of the Service's ports, refused with this reason.
  bool servicePortMustExist = true;
  std::string_view missingServicePortReason = "BackendNotFound";
  // ...of the protocol the route kind is carried over (UDP for UDPRoutes, else TCP; a port
  // without `protocol` is TCP), and a ServiceImport's ports are checked alike (Envoy Gateway's
  // validateBackendService and validateBackendServiceImport).
  bool servicePortProtocolMatters = false;
  // ExternalName Services are refused (UnsupportedValue), as the spec recommends.
  bool refusesExternalName = true;
  // The ResolvedRefs reason of a Service backendRef without a port.
  std::string_view missingPortReason = "BackendNotFound";
  // Which backendRef ResolvedRefs reports when several fail.
  UnresolvedBackendChoice unresolvedBackendChoice = UnresolvedBackendChoice::First;
  // A backendRef to another namespace is checked against ReferenceGrants before its kind, so
  // an unsupported kind there without a grant is RefNotPermitted (Istio's buildDestination);
  // false: the kind first (InvalidKind).
  bool backendGrantBeforeKind = false;
  // A ServiceImport or Hostname backendRef without a port is refused with missingPortReason
  // before its object is looked up (Istio's buildDestination checks the port last and lets
  // that refusal replace a BackendNotFound); false: a missing object is BackendNotFound first.
  bool backendPortBeforeLookup = false;
  // Which backendRefs to another namespace need a ReferenceGrant when the route's parent is a
  // mesh parent (a Service); for a Gateway parent every one does.
  MeshBackendGrants meshBackendGrants = MeshBackendGrants::ExceptParentNamespace;
  // Backend kinds the controller takes in a way policygraph does not model (kgateway's route
  // delegation: an HTTPRoute backendRef): not resolved, noted as not simulated, never refused.
  std::span<const KindName> unmodelledBackendKinds;
  // An ExternalName Service backend is taken only behind a Gateway whose NginxProxy (its own
  // `infrastructure.parametersRef`, else its class's `parametersRef`) sets `dnsResolver`;
  // behind another, that parent's ResolvedRefs is UnsupportedValue (NGINX Gateway Fabric,
  // backend_refs.go checkExternalNameValidForGateways).
  bool externalNameNeedsNginxResolver = false;
  // A backendRef's own filters are refused whatever their type, UnsupportedValue (NGINX
  // Gateway Fabric, validateRouteBackendRef); backendRefFilterTypes is then unused.
  bool refusesBackendRefFilters = false;
  // A GRPCRoute method match needs both `service` and `method` (NGINX Gateway Fabric,
  // grpcroute.go validateGRPCMethodMatch; the specification needs one of them).
  bool grpcMethodNeedsServiceAndMethod = false;
  // Kinds a BackendTLSPolicy may target besides the Gateway API's (Service), each with its
  // ports named by `sectionName` (Istio's ServiceEntry).
  std::span<const KindName> backendTlsTargetKinds;
  // A backendRef of weight 0 is resolved like any other; false: the controller drops it before
  // resolving it (and before reading its filters), so it never makes ResolvedRefs False
  // (Istio's buildHTTPDestination and buildGRPCDestination).
  bool zeroWeightBackendsResolved = true;
  // The filter types a backendRef's own `filters` may hold; any other answers ResolvedRefs
  // False with reason InvalidFilter, a refusal that ends the route's translation (Istio's
  // buildHTTPDestination: header modifiers only). Empty: every type the route kind defines.
  std::span<const std::string_view> backendRefFilterTypes;
  // A URLRewrite filter with a `path` on an HTTPRoute backendRef answers ResolvedRefs False
  // with reason UnsupportedRefValue (Envoy Gateway: weighted clusters cannot rewrite paths;
  // only hostname rewrites are taken there).
  bool refusesBackendRefPathRewrite = false;
  // Envoy Gateway's own Backend kind is checked as its translator checks it when a route
  // refers to one (envoy_backends.h): valid addresses, no Unix socket, one address type, a
  // DynamicResolver alone in its rule and only behind TLS passthrough.
  bool checksEnvoyBackends = false;
  // ExtensionRef filters are resolved as Envoy Gateway's translator resolves them
  // (envoy_route_filters.h): its HTTPRouteFilter is looked up in the route's namespace, any
  // other kind is unknown; the rewrites and direct responses it holds are checked.
  bool checksEnvoyRouteFilters = false;
  // A Service name with a dot (a hostname written where the name goes) is refused with this
  // reason; empty: looked up as a name (and not found).
  std::string_view dottedServiceNameReason;
  // Kinds a controller does not know answer InvalidKind; with this set, a kind of a group that
  // is neither Kubernetes' nor the Gateway API's is "not simulated" instead (the generic
  // profile cannot know what the implementation does with it).
  bool implementationKindsNotSimulated = false;
  // Groups whose kinds the profile knows in full: with implementationKindsNotSimulated, a kind
  // of one of them the profile does not list is refused all the same (Envoy Gateway's own).
  std::span<const std::string_view> ownGroups;
  // Why a kind is not simulated under this profile, for the note (empty: the controller's
  // support for it is not known).
  std::string_view notSimulatedBecause;

  // Listeners.
  std::span<const ListenerProtocolSupport> protocols;
  // A route none of whose rules is valid (Accepted False for its content) still counts in the
  // attachedRoutes of the listeners that admit it, as the specification defines attachment;
  // false: only an HTTPRoute does, the controller stops before counting a GRPCRoute, TCPRoute,
  // UDPRoute or TLSRoute (Envoy Gateway's route.go).
  bool invalidNonHttpRoutesAttach = true;
  // A route some of whose rules are invalid, while others are valid, keeps the valid ones
  // (Accepted True) and says which it dropped: PartiallyInvalid True, reason UnsupportedValue,
  // a message starting "Dropped Rule" (the Gateway API's RouteConditionPartiallyInvalid, its
  // "Drop Rule(s)" approach; Envoy Gateway's route.go). False: no such condition is written.
  bool writesPartiallyInvalid = true;
  // How the content of route rules is checked, and the rule filter types the controller takes,
  // per route kind: for RouteRuleChecks::TranslationErrors any other is InvalidFilter; for
  // Specification a rule with another is dropped, UnsupportedValue (empty: every type the
  // Gateway API defines for the route kind).
  RouteRuleChecks routeRuleChecks = RouteRuleChecks::Specification;
  // The patterns of RegularExpression matches (an HTTPRoute's path, headers and query
  // parameters; a GRPCRoute's headers, service and method) must compile as RE2, the syntax of
  // Go's regexp, or the rule is dropped with UnsupportedValue (Envoy Gateway's route.go
  // processHTTPRouteRule and processGRPCRouteRule, regex.Validate). False: not compiled (the
  // specification leaves the syntax to the implementation).
  bool compilesMatchRegexes = false;
  std::span<const std::string_view> httpRuleFilterTypes;
  std::span<const std::string_view> grpcRuleFilterTypes;
  // UDPRoutes get a status from this controller; false: it does not watch them (Istio has no
  // UDPRoute support), so their parents are not simulated.
  bool writesUdpRouteStatus = true;
  std::span<const ListenerRequirement> listenerRequirements;
  // A TLS option (listener tls.options) whose listed values make the controller serve its own
  // certificate, so that certificateRefs are not needed (Istio's ISTIO_SIMPLE, ISTIO_MUTUAL).
  std::string_view builtinCertificateOption;
  std::span<const std::string_view> builtinCertificateValues;
  // A terminating listener without certificateRefs (no `tls` block on an HTTPS listener) has
  // ResolvedRefs False; false: the controller builds it without a certificate and reports no
  // error (Istio's buildTLS).
  bool certificateRefsRequired = true;
  // A listener with several certificateRefs resolves when any one of them is usable: the
  // others are left out, and only when none is does ResolvedRefs say why (the first refused
  // reference's reason, every refusal's message); false: every reference must resolve.
  bool anyValidCertificateRefResolves = false;
  // With several certificateRefs of which some are usable: ResolvedRefs False with this
  // reason ("Some secrets are invalid: ..."), the listener still Accepted and Programmed with
  // the usable ones (Envoy Gateway's PartiallyInvalidCertificateRef). Empty: as
  // anyValidCertificateRefResolves says.
  std::string_view partialCertificateRefsReason;
  // Certificates outside their validity period (at the time of the run) are left out of a
  // Secret's chain, and a Secret with none left is refused (Envoy Gateway's
  // filterValidCertificates); false: validity is not checked.
  bool refusesExpiredCertificates = false;
  // A certificateRef may name a Secret of type gateway.envoyproxy.io/sds, whose `url` (the SDS
  // server's socket) and `secretName` (what to ask it for) stand for a certificate the proxy
  // fetches at run time (Envoy Gateway's SDS secret references).
  bool takesSdsSecrets = false;
  // How many certificateRefs a listener may hold; 0: any number.
  std::size_t maxCertificateRefs = 0;
  // A listener whose TLS references are refused by a ReferenceGrant, or whose Gateway's
  // frontend client validation (spec.tls.frontend) has no usable CA certificate, is not
  // Accepted (NoValidCACertificate); otherwise only ResolvedRefs says so.
  bool refusedTlsReferenceUnaccepts = false;
  // How many caCertificateRefs a frontend validation may hold; 0: any number.
  std::size_t maxFrontendCaCertificateRefs = 0;

  // Route attachment: the order a listener's admission of a route is checked in.
  ListenerAdmissionOrder listenerAdmissionOrder = ListenerAdmissionOrder::AllowedRoutesFirst;
  // Listener isolation (the Gateway API's GatewayHTTPListenerIsolation): a listener does not
  // take a route hostname that another listener of the Gateway on the same port names
  // exactly, so the route attaches only where the hostname is its listener's own (Envoy
  // Gateway's computeHosts: literal names; a route left with no hostname on any listener its
  // parentRef selects is NoMatchingListenerHostname).
  bool isolatesListenerHostnames = false;
  ListenerConflicts listenerConflicts = ListenerConflicts::BothOfAPair;

  // Mesh (GAMMA) routes: the parent kinds the mesh controller takes besides core Services,
  // and the controllerName it writes in their status.
  std::span<const KindName> meshParentKinds;
  std::string_view meshRouteControllerName;

  // Backend policies.
  BackendPolicyAncestors backendPolicyAncestors = BackendPolicyAncestors::RouteParents;
  std::string_view meshControllerName;  // for BackendPolicyAncestors::Targets
  // Two policies of a kind on one target: the later one is Conflicted (else both apply, the
  // older first, as Istio merges them).
  bool backendPoliciesConflict = true;
  // An annotation that takes a policy out of the controller's view ("true"), and the reason
  // its ancestors then say (Istio: istio.io/ignore-policy-attachment, IgnoredByIstio).
  std::string_view ignorePolicyAnnotation;
  std::string_view ignoredPolicyReason;

  bool supportsBackendKind(std::string_view group, std::string_view kind) const;
  const BackendKindSupport* backendKind(std::string_view group, std::string_view kind) const;
  // The requirement on listeners of Gateways of `controllerName`, or null.
  const ListenerRequirement* listenerRequirement(std::string_view controllerName) const;
  // Whether it ignores a route (a UDPRoute when `udpRoute`) on a parent: a Gateway of
  // `controllerName`, or, with an empty one, a mesh parent.
  IgnoredParent ignoresParent(std::string_view controllerName, bool udpRoute) const;
  bool takesMeshParent(std::string_view group, std::string_view kind) const;
  // Whether a BackendTLSPolicy may target the kind: a core Service, or one of
  // backendTlsTargetKinds.
  bool takesBackendTlsTarget(std::string_view group, std::string_view kind) const;
  // The TLS modes the controller takes the protocol in ("Passthrough", "Terminate or
  // Passthrough"), when it takes it in some modes only (NGINX Gateway Fabric's TLS); empty when
  // it takes the protocol in any mode, or not at all.
  std::string onlyTlsModesOf(std::string_view protocol) const;
  // The protocol entry for a listener, or null when the controller does not accept it.
  const ListenerProtocolSupport* protocol(std::string_view protocol, std::string_view tlsMode,
                                          std::string_view controllerName) const;
};

// The profile of a controllerName: Envoy Gateway's, Istio's (its Gateway, waypoint,
// east-west and remote controllers), else the generic one.
const ControllerProfile& profileForController(std::string_view controllerName);
const ControllerProfile& genericProfile();
std::span<const ControllerProfile* const> controllerProfiles();

// Whether a group belongs to Kubernetes or the Gateway API itself (so a kind of it that a
// profile does not support is InvalidKind, whatever the implementation).
bool isStandardGroup(std::string_view group);

}  // namespace pg::graph
