// Envoy Gateway's own backend kind, `Backend` (gateway.envoyproxy.io): the checks its
// translator makes when a route refers to one. They live here, in one place, and the topology
// asks for them through ControllerProfile::checksEnvoyBackends.
//
// Upstream (internal/gatewayapi): backend.go validateBackend and validateHostname; route.go
// processBackendDestinationSetting and validateDestinationSettings (address types), the
// rule's destinations (a DynamicResolver Backend alone in its rule) and TLSRoute listeners (a
// DynamicResolver Backend only behind TLS passthrough).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "lib/model/resource.h"
#include "lib/model/store.h"
#include "lib/yaml/tree.h"

namespace pg::graph {

struct EnvoyBackendRefusal {
  std::string_view reason;  // the route's ResolvedRefs reason
  std::string message;
  yaml::NodeRef at;  // the field at fault, in the backend
  const model::Resource* object = nullptr;  // the object `at` is in, when not the backend
};

inline constexpr std::string_view kEnvoyGatewayGroup = "gateway.envoyproxy.io";

// Whether a backendRef names Envoy Gateway's Backend kind (which its translator also reads in
// a reference that leaves the group out).
inline bool isEnvoyBackendKind(std::string_view group, std::string_view kind) {
  return (group == kEnvoyGatewayGroup || group.empty()) && kind == "Backend";
}

// Why Envoy Gateway does not accept this Backend (validateBackend: InvalidBackendRef or
// InvalidAddress), what the Backend's own status says; nullopt when it is valid.
std::optional<EnvoyBackendRefusal> validateEnvoyBackend(const model::Resource& backend);

// Why Envoy Gateway refuses a route's backendRef to this Backend on its own: the Backend is
// invalid (InvalidBackendRef, InvalidAddress), serves a Unix socket, or mixes address types
// (UnsupportedAddressType). Nullopt when it takes it.
std::optional<EnvoyBackendRefusal> checkEnvoyBackend(const model::Resource& backend);

// Why Envoy Gateway refuses a backendRef to a Service or ServiceImport (`serviceImport`) on
// `port`, routing to its endpoints: the EndpointSlices behind that port mix FQDN addresses with
// IP addresses (UnsupportedAddressType). `at` is the EndpointSlice of the other type.
std::optional<EnvoyBackendRefusal> checkEndpointSliceTypes(const model::Store& store,
                                                           const model::Resource& service,
                                                           std::int64_t port, bool serviceImport);

// Whether a Backend is a DynamicResolver: its destination is the request's own host.
bool isDynamicResolver(const model::Resource& backend);

// The message of the refusals that depend on where a DynamicResolver Backend is used.
inline constexpr std::string_view kDynamicResolverNotAlone =
    "dynamic resolver is not supported for multiple backendRefs: a DynamicResolver Backend "
    "must be the only backendRef of its rule; move the other backendRefs to a rule of their "
    "own";
inline constexpr std::string_view kDynamicResolverNeedsPassthrough =
    "Dynamic resolver backend is only supported with TLS passthrough listeners: Envoy Gateway "
    "cannot resolve the destination of a connection it terminates; attach the TLSRoute to a "
    "listener with tls.mode Passthrough";

}  // namespace pg::graph
