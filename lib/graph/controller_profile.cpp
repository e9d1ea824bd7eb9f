// The profiles, one table each. Facts come from each controller's documentation and
// translator, named beside the field they set.
#include "lib/graph/controller_profile.h"

#include <algorithm>
#include <array>

namespace pg::graph {

namespace {

using R = BackendResolution;

constexpr std::array<std::string_view, 2> kHttpKinds{"HTTPRoute", "GRPCRoute"};
constexpr std::array<std::string_view, 1> kTlsPassthroughKinds{"TLSRoute"};
constexpr std::array<std::string_view, 2> kTlsTerminateKinds{"TLSRoute", "TCPRoute"};
constexpr std::array<std::string_view, 1> kTcpKinds{"TCPRoute"};
constexpr std::array<std::string_view, 1> kUdpKinds{"UDPRoute"};

// The specification's protocols (ListenerStatus.supportedKinds, the conformance suite's
// expectations): a TLS listener that terminates hands the stream to a TLSRoute or a TCPRoute.
constexpr std::array<ListenerProtocolSupport, 6> kSpecProtocols{{
    {"HTTP", "", kHttpKinds, {}},
    {"HTTPS", "", kHttpKinds, {}},
    {"TLS", "Passthrough", kTlsPassthroughKinds, {}},
    {"TLS", "", kTlsTerminateKinds, {}},
    {"TCP", "", kTcpKinds, {}},
    {"UDP", "", kUdpKinds, {}},
}};

// ---- Generic: the Gateway API as written ------------------------------------------------

constexpr std::array<BackendKindSupport, 2> kGenericBackends{{
    {"", "Service", R::Service},
    {"multicluster.x-k8s.io", "ServiceImport", R::Object},
}};

constexpr ControllerProfile makeGeneric() {
  ControllerProfile p;
  p.id = ControllerId::Generic;
  p.name = "the Gateway API";
  p.backendKinds = kGenericBackends;
  p.implementationKindsNotSimulated = true;
  p.protocols = kSpecProtocols;
  return p;
}

// ---- Envoy Gateway ------------------------------------------------------------------------

constexpr std::array<std::string_view, 1> kEnvoyGatewayControllers{
    "gateway.envoyproxy.io/gatewayclass-controller"};

// internal/gatewayapi/route.go (processDestination and validateBackendRef*): Services,
// ServiceImports and its own Backend resource; a port the Service or ServiceImport lacks, or
// has with another protocol, is PortNotFound ("TCP Port X not found on Service"). The group
// check lets the core group through for every kind it takes, so `kind: ServiceImport` or
// `kind: Backend` without a group is the multicluster ServiceImport or its own Backend.
constexpr std::array<BackendKindSupport, 5> kEnvoyGatewayBackends{{
    {"", "Service", R::Service},
    {"multicluster.x-k8s.io", "ServiceImport", R::Object},
    {"", "ServiceImport", R::Object, "multicluster.x-k8s.io"},
    {"gateway.envoyproxy.io", "Backend", R::Object},
    {"", "Backend", R::Object, "gateway.envoyproxy.io"},
}};

constexpr std::array<std::string_view, 1> kEnvoyGatewayGroups{"gateway.envoyproxy.io"};

constexpr ControllerProfile makeEnvoyGateway() {
  ControllerProfile p;
  // route.go processDestination: a kind of another group is taken only as a custom backend of
  // an extension server that lists it (extensionManager.backendResources, as Envoy AI Gateway
  // does for InferencePools), a setting of the installation the input rarely holds.
  p.implementationKindsNotSimulated = true;
  p.ownGroups = kEnvoyGatewayGroups;
  p.notSimulatedBecause =
      "Envoy Gateway takes a backend kind of another group only through an extension server "
      "that lists it (extensionManager.backendResources of its EnvoyGateway configuration, as "
      "Envoy AI Gateway sets for InferencePools), which the input does not show";
  p.id = ControllerId::EnvoyGateway;
  p.name = "Envoy Gateway";
  p.controllerNames = kEnvoyGatewayControllers;
  p.backendKinds = kEnvoyGatewayBackends;
  p.protocols = kSpecProtocols;
  // listener.go validateTerminateModeAndGetTLSSecrets -> parseCertsFromTLSSecretsData and
  // filterValidCertificates.
  p.partialCertificateRefsReason = "PartiallyInvalidCertificateRef";
  // route.go, a backendRef's filters: URLRewrite only rewrites the hostname there.
  p.refusesBackendRefPathRewrite = true;
  p.refusesExpiredCertificates = true;
  p.takesSdsSecrets = true;
  // route.go processHTTPRouteParentRefs: the errors of every rule are collected by condition
  // type, and one ResolvedRefs condition reports them all.
  p.unresolvedBackendChoice = UnresolvedBackendChoice::AllJoined;
  // backend.go validateBackend, route.go processBackendDestinationSetting.
  p.checksEnvoyBackends = true;
  p.missingServicePortReason = "PortNotFound";
  // route.go: processHTTPRouteParentRefListener counts an HTTPRoute whose every rule failed;
  // the other kinds' parents are left before their listeners count the route.
  p.invalidNonHttpRoutesAttach = false;
  p.servicePortProtocolMatters = true;
  // filters.go processExtensionRefHTTPFilter and processURLRewriteFilter.
  p.checksEnvoyRouteFilters = true;
  // helpers.go computeHosts: a route hostname another listener on the port names is that
  // listener's alone.
  p.isolatesListenerHostnames = true;
  // route.go processHTTPRouteRule, processGRPCRouteRule: regex.Validate on every pattern.
  p.compilesMatchRegexes = true;
  return p;
}

// ---- Istio --------------------------------------------------------------------------------

// pilot/pkg/config/kube/gateway: the Gateway controller, the waypoint (mesh) controller, the
// east-west controller and remote (unmanaged) Gateways.
constexpr std::array<std::string_view, 4> kIstioControllers{
    "istio.io/gateway-controller", "istio.io/mesh-controller", "istio.io/eastwest-controller",
    "istio.io/unmanaged-gateway"};
constexpr std::array<std::string_view, 2> kIstioWaypointControllers{"istio.io/mesh-controller",
                                                                    "istio.io/eastwest-controller"};

// conversion.go buildDestination: Service (by name; the port is not checked against the
// Service, and a name with a dot is InvalidDestination), networking.istio.io Hostname (a
// ServiceEntry host or a Service's FQDN, no namespace), ServiceImport (looked up as the
// Service of that name), InferencePool, and the Gateway API's XBackend (backend_binding.go:
// found by name, else BackendNotFound; its one port, `spec.port.port`, is the only one a
// backendRef may name, and may be left out); any other kind is InvalidKind. A missing port is
// InvalidDestination ("port is required in backendRef").
constexpr std::array<BackendKindSupport, 5> kIstioBackends{{
    {"", "Service", R::Service},
    {"networking.istio.io", "Hostname", R::Hostname},
    {"multicluster.x-k8s.io", "ServiceImport", R::ServiceImport},
    {"inference.networking.k8s.io", "InferencePool", R::Object},
    {"gateway.networking.x-k8s.io", "XBackend", R::Object},
}};

// conversion.go listenerProtocolToIstio and generateSupportedKinds: HTTP and HTTPS take HTTP
// and gRPC routes; TLS takes TLSRoutes, and a terminating TLS listener TCPRoutes too; UDP is
// unsupported; HBONE only on waypoints and east-west gateways.
constexpr std::array<ListenerProtocolSupport, 6> kIstioProtocols{{
    {"HTTP", "", kHttpKinds, {}},
    {"HTTPS", "", kHttpKinds, {}},
    {"TLS", "Passthrough", kTlsPassthroughKinds, {}},
    {"TLS", "", kTlsTerminateKinds, {}},
    {"TCP", "", kTcpKinds, {}},
    {"HBONE", "", {}, kIstioWaypointControllers},
}};

// conversion.go buildListener: a waypoint takes one HBONE listener on 15008; an east-west
// gateway that, terminating (with Istio's own certificate), or TLS passthrough listeners.
constexpr std::array<ListenerShape, 1> kWaypointShapes{{{15008, "HBONE", ""}}};
constexpr std::array<ListenerShape, 2> kEastWestShapes{
    {{15008, "HBONE", "Terminate"}, {0, "TLS", "Passthrough"}}};
constexpr std::array<ListenerRequirement, 2> kIstioListenerRequirements{{
    {"istio.io/mesh-controller", kWaypointShapes,
     "Expected a single listener on port 15008 with protocol \"HBONE\"",
     /*takesRoutes=*/false},
    {"istio.io/eastwest-controller", kEastWestShapes,
     "East-west gateway listeners must be either port 15008 with protocol \"HBONE\" and "
     "TLS.Mode == Terminate, or TLS with TLS.Mode == Passthrough"},
}};
// buildTLS: `gateway.istio.io/tls-terminate-mode` ISTIO_SIMPLE or ISTIO_MUTUAL serves the
// workload certificate; at most two certificateRefs.
// buildHTTPDestination and buildGRPCDestination: a backendRef's own filters may only modify
// headers; another type is InvalidFilter.
constexpr std::array<std::string_view, 2> kIstioBackendRefFilterTypes{"RequestHeaderModifier",
                                                                      "ResponseHeaderModifier"};
// convertHTTPRoute and convertGRPCRoute: the rule filter types translated; any other (an
// ExtensionRef, an ExternalAuth...) is InvalidFilter, "unsupported filter type".
constexpr std::array<std::string_view, 6> kIstioHttpRuleFilterTypes{"RequestHeaderModifier",
                                                                    "ResponseHeaderModifier",
                                                                    "RequestRedirect",
                                                                    "RequestMirror",
                                                                    "URLRewrite",
                                                                    "CORS"};
constexpr std::array<std::string_view, 3> kIstioGrpcRuleFilterTypes{
    "RequestHeaderModifier", "ResponseHeaderModifier", "RequestMirror"};
constexpr std::array<std::string_view, 2> kIstioBuiltinCertificateValues{"ISTIO_SIMPLE",
                                                                         "ISTIO_MUTUAL"};

// conversion.go allowedParentReferences: besides Gateways and ListenerSets, Services and
// ServiceEntries; route_collections.go writes mesh parents' status as the Gateway controller.
constexpr std::array<KindName, 1> kIstioMeshParents{{{"networking.istio.io", "ServiceEntry"}}};

// backend_policies.go BackendTLSPolicyCollection: a Service or a ServiceEntry, a sectionName
// naming one of its ports.
constexpr std::array<KindName, 1> kIstioBackendTlsTargets{
    {{"networking.istio.io", "ServiceEntry"}}};

constexpr ControllerProfile makeIstio() {
  ControllerProfile p;
  p.id = ControllerId::Istio;
  p.name = "Istio";
  p.controllerNames = kIstioControllers;
  p.backendKinds = kIstioBackends;
  p.servicePortMustExist = false;
  p.refusesExternalName = false;
  p.missingPortReason = "InvalidDestination";
  p.dottedServiceNameReason = "InvalidDestination";
  // buildHTTPDestination and computeRoute: the last backendRef dropped is the one reported,
  // unless one is refused outright; route_collections.go converts mesh routes with
  // enforceRefGrant false, so backendRefs (and mirrors) of routes to a Service or a
  // ServiceEntry need no ReferenceGrant.
  p.unresolvedBackendChoice = UnresolvedBackendChoice::LastDropped;
  p.meshBackendGrants = MeshBackendGrants::None;
  // buildHTTPDestination skips a backendRef of weight 0 before building its destination and
  // reading its filters; a filter other than a header modifier on a backendRef is an error
  // that ends the translation (ResolvedRefs False, InvalidFilter).
  p.zeroWeightBackendsResolved = false;
  // createRouteStatus writes Accepted and ResolvedRefs only, and reports every error of a
  // route's translation under ResolvedRefs.
  p.writesPartiallyInvalid = false;
  p.routeRuleChecks = RouteRuleChecks::TranslationErrors;
  p.httpRuleFilterTypes = kIstioHttpRuleFilterTypes;
  p.grpcRuleFilterTypes = kIstioGrpcRuleFilterTypes;
  // There is no UDPRoute collection.
  p.writesUdpRouteStatus = false;
  // buildDestination: the ReferenceGrant first (its kind is checked after), and a missing
  // port last, replacing a pending BackendNotFound.
  p.backendGrantBeforeKind = true;
  // gatewaycommon listener_conflict.go: the first listener wins.
  p.listenerConflicts = ListenerConflicts::FirstWins;
  p.backendPortBeforeLookup = true;
  p.backendRefFilterTypes = kIstioBackendRefFilterTypes;
  p.protocols = kIstioProtocols;
  p.listenerRequirements = kIstioListenerRequirements;
  p.builtinCertificateOption = "gateway.istio.io/tls-terminate-mode";
  p.builtinCertificateValues = kIstioBuiltinCertificateValues;
  p.maxCertificateRefs = 2;
  // buildTLS: the certificateRefs that fail are left out while one is usable; with none, the
  // errors are joined, the first one's reason first.
  p.anyValidCertificateRefResolves = true;
  // buildTLS: a listener without a `tls` block, or without certificateRefs, is no error.
  p.certificateRefsRequired = false;
  // referenceAllowed: a listener's hostnames are matched before its allowed namespaces and
  // kinds; createRouteStatus reports NotAllowedByListeners over NoMatchingListenerHostname.
  p.listenerAdmissionOrder = ListenerAdmissionOrder::HostnameFirst;
  p.meshParentKinds = kIstioMeshParents;
  p.meshRouteControllerName = kIstioControllers[0];
  // A refused certificate or CA reference, or frontend validation without a usable CA, makes
  // the listener not Accepted (NoValidCACertificate); a missing or malformed certificate only
  // makes ResolvedRefs False. Frontend validation takes one caCertificateRef.
  p.refusedTlsReferenceUnaccepts = true;
  p.maxFrontendCaCertificateRefs = 1;
  // backend_policies.go: BackendTLSPolicy and XBackendTrafficPolicy report each target
  // (under the mesh controller) and each Gateway whose routes use it; policies on one
  // target merge, the oldest first, and none is Conflicted; the ignore annotation hides one.
  p.backendPolicyAncestors = BackendPolicyAncestors::Targets;
  p.backendTlsTargetKinds = kIstioBackendTlsTargets;
  p.meshControllerName = "istio.io/mesh-controller";
  p.backendPoliciesConflict = false;
  p.ignorePolicyAnnotation = "istio.io/ignore-policy-attachment";
  p.ignoredPolicyReason = "IgnoredByIstio";
  return p;
}

// ---- Linkerd: mesh routes ------------------------------------------------------------------

constexpr std::array<std::string_view, 1> kLinkerdControllers{"linkerd.io/policy-controller"};

// policy-controller/k8s/status/src/index.rs backend_condition: a Service or an EgressNetwork
// that exists; any other kind is InvalidKind. No port, ExternalName or ReferenceGrant check.
constexpr std::array<BackendKindSupport, 2> kLinkerdBackends{{
    {"", "Service", R::Service},
    {"policy.linkerd.io", "EgressNetwork", R::Object},
}};

// The policy controller's status for routes whose parent is a Service (a GAMMA mesh route) when
// the cluster runs Linkerd: Accepted when the Service exists, ResolvedRefs from the backends'
// kinds and existence alone (index.rs backend_condition).
constexpr ControllerProfile makeLinkerd() {
  ControllerProfile p;
  p.id = ControllerId::Linkerd;
  p.name = "Linkerd";
  p.controllerNames = kLinkerdControllers;
  p.backendKinds = kLinkerdBackends;
  p.servicePortMustExist = false;
  p.refusesExternalName = false;
  p.meshBackendGrants = MeshBackendGrants::None;
  p.protocols = kSpecProtocols;
  p.meshRouteControllerName = kLinkerdControllers[0];
  return p;
}

// ---- NGINX Gateway Fabric ------------------------------------------------------------------

constexpr std::array<std::string_view, 1> kNginxControllers{
    "gateway.nginx.org/nginx-gateway-controller"};

// backend_refs.go validateBackendRefHTTPRouteGroupKind: a core Service, or an InferencePool.
constexpr std::array<BackendKindSupport, 2> kNginxBackends{{
    {"", "Service", R::Service},
    {"inference.networking.k8s.io", "InferencePool", R::Object},
}};

// gateway_listener.go getAndValidateListenerSupportedKinds: HTTP and HTTPS (terminating) take
// HTTPRoutes and GRPCRoutes; TLS only in Passthrough mode, TLSRoutes; TCP and UDP their routes.
constexpr std::array<ListenerProtocolSupport, 5> kNginxProtocols{{
    {"HTTP", "", kHttpKinds, {}},
    {"HTTPS", "Terminate", kHttpKinds, {}},
    {"TLS", "Passthrough", kTlsPassthroughKinds, {}},
    {"TCP", "", kTcpKinds, {}},
    {"UDP", "", kUdpKinds, {}},
}};

// common_filter.go supportedHTTPFilterTypes and supportedGRPCFilterTypes: CORS and
// ExternalAuth are not among them.
constexpr std::array<std::string_view, 6> kNginxHttpRuleFilterTypes{
    "RequestHeaderModifier", "ResponseHeaderModifier",
    "RequestRedirect",       "URLRewrite",
    "RequestMirror",         "ExtensionRef"};
constexpr std::array<std::string_view, 4> kNginxGrpcRuleFilterTypes{
    "RequestHeaderModifier", "ResponseHeaderModifier", "RequestMirror", "ExtensionRef"};

constexpr ControllerProfile makeNginxGatewayFabric() {
  ControllerProfile p;
  p.id = ControllerId::NginxGatewayFabric;
  p.name = "NGINX Gateway Fabric";
  p.controllerNames = kNginxControllers;
  p.backendKinds = kNginxBackends;
  // getServicePort: the port must be one of the Service's spec.ports[].port, else
  // BackendNotFound; a nil port is UnsupportedValue.
  p.missingPortReason = "UnsupportedValue";
  p.refusesExternalName = false;
  p.externalNameNeedsNginxResolver = true;
  p.refusesBackendRefFilters = true;
  p.unresolvedBackendChoice = UnresolvedBackendChoice::Last;
  p.protocols = kNginxProtocols;
  // createHTTPSListenerValidator: one certificateRef (more: UnsupportedValue).
  p.maxCertificateRefs = 1;
  p.httpRuleFilterTypes = kNginxHttpRuleFilterTypes;
  p.grpcRuleFilterTypes = kNginxGrpcRuleFilterTypes;
  p.grpcMethodNeedsServiceAndMethod = true;
  return p;
}

// ---- kgateway ------------------------------------------------------------------------------

constexpr std::array<std::string_view, 1> kKgatewayControllers{"kgateway.dev/kgateway"};

// extensions2/registry: the kubernetes plugin's Services and its own Backend (Static, AWS,
// DynamicForwardProxy); Istio's ServiceEntry and Hostname only with the Istio integration on,
// which the input does not say, so they are left unsimulated as any implementation's kind.
constexpr std::array<BackendKindSupport, 2> kKgatewayBackends{{
    {"", "Service", R::Service},
    {"gateway.kgateway.dev", "Backend", R::Object},
}};
// Route delegation: a parent rule's backendRef to HTTPRoutes (a name, `*`, or a label
// selector), getDelegatedChildren.
constexpr std::array<KindName, 1> kKgatewayUnmodelledBackends{
    {{"gateway.networking.k8s.io", "HTTPRoute"}}};

// translator/listener getSupportedRouteKindsForListener: HTTP and HTTPS take HTTPRoutes and
// GRPCRoutes, TCP TCPRoutes, a terminating TLS listener TLSRoutes and TCPRoutes, a passthrough
// one TLSRoutes; anything else (UDP) is UnsupportedProtocol.
constexpr std::array<ListenerProtocolSupport, 5> kKgatewayProtocols{{
    {"HTTP", "", kHttpKinds, {}},
    {"HTTPS", "", kHttpKinds, {}},
    {"TCP", "", kTcpKinds, {}},
    {"TLS", "Terminate", kTlsTerminateKinds, {}},
    {"TLS", "Passthrough", kTlsPassthroughKinds, {}},
}};

constexpr ControllerProfile makeKgateway() {
  ControllerProfile p;
  p.id = ControllerId::Kgateway;
  p.name = "kgateway";
  p.controllerNames = kKgatewayControllers;
  p.backendKinds = kKgatewayBackends;
  p.unmodelledBackendKinds = kKgatewayUnmodelledBackends;
  p.implementationKindsNotSimulated = true;
  // krtcollections getBackend: the port is part of the backend's key, so a port the Service
  // lacks is BackendNotFound; an ExternalName Service is taken as any other (k8s.go).
  p.refusesExternalName = false;
  // setRouteAction: every failing backendRef writes ResolvedRefs, the last write stays.
  p.unresolvedBackendChoice = UnresolvedBackendChoice::Last;
  // A rule it cannot program is replaced by a direct 500 (finalizeRoute), never reported
  // with PartiallyInvalid.
  p.writesPartiallyInvalid = false;
  // NewRoutesIndex: no UDPRoute.
  p.writesUdpRouteStatus = false;
  p.protocols = kKgatewayProtocols;
  return p;
}

constexpr ControllerProfile kGeneric = makeGeneric();
constexpr ControllerProfile kEnvoyGateway = makeEnvoyGateway();
constexpr ControllerProfile kIstio = makeIstio();
constexpr ControllerProfile kLinkerd = makeLinkerd();
constexpr ControllerProfile kNginxGatewayFabric = makeNginxGatewayFabric();
constexpr ControllerProfile kKgateway = makeKgateway();
constexpr std::array<const ControllerProfile*, 6> kProfiles{
    &kGeneric, &kEnvoyGateway, &kIstio, &kLinkerd, &kNginxGatewayFabric, &kKgateway};

// Groups of Kubernetes itself and of the Gateway API: a kind of these that a profile does not
// support is InvalidKind under any controller. Extensions (InferencePool, ServiceImport) and
// implementations' own groups are not among them.
constexpr std::array<std::string_view, 8> kStandardGroups{"",
                                                          "apps",
                                                          "batch",
                                                          "policy",
                                                          "autoscaling",
                                                          "networking.k8s.io",
                                                          "gateway.networking.k8s.io",
                                                          "gateway.networking.x-k8s.io"};

}  // namespace

const BackendKindSupport* ControllerProfile::backendKind(std::string_view group,
                                                         std::string_view kind) const {
  for (const BackendKindSupport& b : backendKinds)
    if (b.group == group && b.kind == kind) return &b;
  return nullptr;
}

bool ControllerProfile::supportsBackendKind(std::string_view group, std::string_view kind) const {
  return backendKind(group, kind) != nullptr;
}

IgnoredParent ControllerProfile::ignoresParent(std::string_view controllerName,
                                               bool udpRoute) const {
  if (udpRoute && !writesUdpRouteStatus) return IgnoredParent::RouteKind;
  if (controllerName.empty()) return IgnoredParent::No;
  const ListenerRequirement* shape = listenerRequirement(controllerName);
  return shape && !shape->takesRoutes ? IgnoredParent::Gateway : IgnoredParent::No;
}

const ListenerRequirement* ControllerProfile::listenerRequirement(
    std::string_view controllerName) const {
  for (const ListenerRequirement& r : listenerRequirements)
    if (r.controllerName == controllerName) return &r;
  return nullptr;
}

bool ControllerProfile::takesMeshParent(std::string_view group, std::string_view kind) const {
  if (group.empty() && kind == "Service") return true;
  return std::any_of(meshParentKinds.begin(), meshParentKinds.end(),
                     [&](const KindName& k) { return k.group == group && k.kind == kind; });
}

bool ControllerProfile::takesBackendTlsTarget(std::string_view group, std::string_view kind) const {
  if (group.empty() && kind == "Service") return true;
  return std::any_of(backendTlsTargetKinds.begin(), backendTlsTargetKinds.end(),
                     [&](const KindName& k) { return k.group == group && k.kind == kind; });
}

const ListenerProtocolSupport* ControllerProfile::protocol(std::string_view name,
                                                           std::string_view tlsMode,
                                                           std::string_view controllerName) const {
  for (const ListenerProtocolSupport& p : protocols) {
    if (p.protocol != name || (!p.tlsMode.empty() && p.tlsMode != tlsMode)) continue;
    if (!p.onlyControllers.empty() && std::find(p.onlyControllers.begin(), p.onlyControllers.end(),
                                                controllerName) == p.onlyControllers.end())
      return nullptr;
    return &p;
  }
  return nullptr;
}

std::string ControllerProfile::onlyTlsModesOf(std::string_view name) const {
  std::string modes;
  for (const ListenerProtocolSupport& p : protocols) {
    if (p.protocol != name) continue;
    if (p.tlsMode.empty()) return {};
    if (modes.find(p.tlsMode) == std::string::npos)
      modes += (modes.empty() ? "" : " or ") + std::string(p.tlsMode);
  }
  return modes;
}

const ControllerProfile& profileForController(std::string_view controllerName) {
  for (const ControllerProfile* p : kProfiles)
    for (std::string_view name : p->controllerNames)
      if (name == controllerName) return *p;
  return kGeneric;
}

const ControllerProfile& genericProfile() {
  return kGeneric;
}

std::span<const ControllerProfile* const> controllerProfiles() {
  return kProfiles;
}

bool isStandardGroup(std::string_view group) {
  return std::find(kStandardGroups.begin(), kStandardGroups.end(), group) != kStandardGroups.end();
}

}  // namespace pg::graph
