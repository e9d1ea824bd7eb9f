// Internal to lib/policy/envoygateway: Envoy Gateway's policy kinds (BackendTrafficPolicy,
// ClientTrafficPolicy, SecurityPolicy, EnvoyExtensionPolicy). Their semantics, as the Envoy
// Gateway translator implements them:
//  - the whole spec is one block; the most specific target wins atomically (route rule >
//    route > listener > ListenerSet > Gateway), unless the route policy sets `mergeType`, in
//    which case it is merged over the policy of its listener, ListenerSet or Gateway;
//  - a second policy of the kind on the same target (and section) is rejected (Conflicted);
//  - status goes on ancestors: the targeted Gateway or ListenerSet (with the listener as
//    sectionName), or the parentRefs of a targeted route; a target that does not exist gets
//    no ancestor at all, since another controller may own it;
//  - the less specific policy keeps Accepted and is told which targets override or merge it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/model/finding.h"
#include "lib/policy/family.h"

namespace pg::policy::envoygateway {

inline constexpr std::string_view kGroup = "gateway.envoyproxy.io";

// A structural problem the translator rejects a policy for (Accepted False, reason Invalid).
struct Problem {
  std::string message;
  yaml::NodeRef at;
  std::optional<model::Missing> missing = std::nullopt;  // the object not in the input, if it is
};

// Every problem of `policy`'s spec that Envoy Gateway reports as Invalid, in the
// translator's order (it joins them in one message). Only checks that need nothing but the
// spec and the objects it names. Objects declared under `external:` are there, though not
// readable; `settings` are controllerSettings().
std::vector<Problem> validate(const Policy& policy, const model::Store& store,
                              const graph::Topology& topology,
                              const std::vector<config::ExternalObject>& external,
                              const config::EnvoyGatewaySettings& settings);

// Every problem of `object`'s spec the translator reports (the first only, with `firstOnly`):
// an Envoy Gateway policy kind, or an EnvoyProxy. The checks are one table in validation.cpp,
// each naming the upstream function it follows.
// `policy` and `topology` are for the checks that look at the policy's targets.
std::vector<Problem> validateAll(const model::Resource& object, const model::Store& store,
                                 const graph::ReferenceGrantIndex& grants,
                                 const std::vector<config::ExternalObject>& external,
                                 bool firstOnly, const Policy* policy = nullptr,
                                 const graph::Topology* topology = nullptr,
                                 const config::EnvoyGatewaySettings* settings = nullptr);

// Whether a parametersRef names an EnvoyProxy.
bool namesEnvoyProxy(yaml::NodeRef ref);
// The EnvoyProxy a GatewayClass's `parametersRef` names (with its namespace), or null.
const model::Resource* classEnvoyProxy(const model::Store& store,
                                       const model::Resource& gatewayClass);
// The EnvoyProxy a Gateway's `infrastructure.parametersRef` names (in the Gateway's
// namespace), or null.
const model::Resource* gatewayEnvoyProxy(const model::Store& store, const model::Resource& gateway);

// Whether a GatewayClass's EnvoyProxy (its parametersRef) sets `mergeGateways`: its
// Gateways then share one data plane.
bool mergesGateways(const model::Store& store, const model::Resource* gatewayClass);

// The EnvoyProxy the translator hands a Gateway (and its policies): the one the Gateway (or a
// ListenerSet's parent) names, else its GatewayClass's; null when none.
const model::Resource* envoyProxyOf(const model::Store& store, const graph::Gateway& gateway);

// Envoy Gateway's own settings as far as the run knows them: `.policygraph.yaml`'s
// `envoyGateway:` first, then the EnvoyGateway resource of an `envoy-gateway-config` ConfigMap
// in the repository (under `envoy-gateway.yaml`, as Envoy Gateway's Helm chart renders it);
// a setting neither gives stays unset.
config::EnvoyGatewaySettings controllerSettings(const model::Store& store,
                                                const config::Config& config);

// Every backendRef an EnvoyProxy's telemetry sends to, in the order the translator reads them:
// access log sinks (ALS, OpenTelemetry) unless the access log is disabled, the tracing
// provider, then OpenTelemetry metrics sinks.
std::vector<yaml::NodeRef> telemetryBackendRefs(const model::Resource& proxy);

// Whether a Secret or ConfigMap holds a CA certificate as Envoy Gateway reads one: under
// `ca.crt`, else as its only entry (a Secret's `stringData` counted with its `data`).
bool holdsCaCertificate(const model::Resource& object);

// A field of a mapping as Go's JSON decoder finds it: the exact key, else one that differs
// in case only. Envoy Gateway's own manifests rely on it (`Name:`, `Kind:` in backendRefs).
yaml::NodeRef goField(yaml::NodeRef map, std::string_view key);

// `mergeType` of a route policy: how it combines with its Gateway-side policy; nullopt when
// the policy replaces it (no mergeType).
std::optional<Strategy> mergeStrategy(const Policy& policy);

// Status of EnvoyProxy and EnvoyPatchPolicy objects (objects.cpp), into
// PolicyModel::objectStatuses.
void writeObjectStatus(FamilyContext& context);

// Status allows 16 ancestors: Envoy Gateway keeps the first 16 in reference order and says so
// on the last one kept. Also used for BackendTLSPolicy, whose status it writes the same way.
void truncateAncestors(Policy& policy);

}  // namespace pg::policy::envoygateway
