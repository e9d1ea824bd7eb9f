#pragma once

// What Linkerd's admission webhook and its CRDs' schemas refuse, object by object: each
// function gives the fields at fault with what to do, empty when the object is admitted.
#include <vector>

#include "lib/model/store.h"
#include "lib/policy/linkerd/inbound.h"

namespace pg::policy::linkerd {

std::vector<Problem> refuseAuthorizationPolicy(const model::Resource& policy);
std::vector<Problem> refuseMeshTlsAuthentication(const model::Resource& authentication);
// NetworkAuthentication networks, and ServerAuthorization client networks.
std::vector<Problem> refuseNetworks(const model::Resource& object);
std::vector<Problem> refuseServer(const model::Resource& server);
std::vector<Problem> refuseServerAuthorization(const model::Resource& authorization);
// policy.linkerd.io HTTPRoute; Gateway API HTTPRoute, GRPCRoute, TLSRoute, TCPRoute.
std::vector<Problem> refuseRoute(const model::Resource& route);

// A MeshTLSAuthentication identity: DNS-like (`*`, `*.a.b`, `a.b`) or a SPIFFE ID.
bool validIdentity(std::string_view identity);

// Whether the input holds a Linkerd policy object (Server, ServerAuthorization,
// AuthorizationPolicy, MeshTLSAuthentication, NetworkAuthentication): the webhook only runs where
// Linkerd is installed, so Gateway API routes without a Server parent are checked against it only
// then.
bool linkerdInstalled(const model::Store& store);

}  // namespace pg::policy::linkerd
