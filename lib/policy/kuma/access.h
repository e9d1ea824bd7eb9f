// What Kuma's proxy decides for a client connecting to one inbound of a destination proxy: the
// mesh's mutual TLS first (without it MeshTrafficPermission is not enforced; with it a client
// without a Kuma certificate fails the handshake in STRICT mode and is not checked at all in
// PERMISSIVE mode), then the inbound's MeshTrafficPermission `from` rules as Kuma's rule
// builder makes them (kuma.h), read the way Envoy's RBAC filter Kuma configures reads them: the
// client is allowed when one rule whose action is Allow or AllowWithShadowDeny covers its tags,
// and refused otherwise (403 on an HTTP inbound, a closed connection on a TCP one).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lib/graph/kuma.h"
#include "lib/model/store.h"
#include "lib/policy/access.h"
#include "lib/policy/kuma/kuma.h"

namespace pg::policy::kuma {

// The mesh's mutual TLS as its Mesh object states it (`mtls.enabledBackend` and that backend's
// `mode`), and whether Kuma's control plane creates its initial policies for it.
struct MeshTls {
  const model::Resource* mesh = nullptr;  // null: the Mesh is not in the repository
  bool enabled = false;
  std::string backend;
  std::string mode;  // STRICT (Kuma's default) or PERMISSIVE
  // `skipCreatingInitialPolicies` names MeshTrafficPermission or `*`.
  bool skipsInitialPermission = false;
};
MeshTls meshTls(const graph::kuma::Topology& topology, std::string_view mesh);

// A Kuma proxy as a client: meshed, with the tags of all its inbounds (and its gateway tags),
// which its certificate carries; its identity is `spiffe://<mesh>/<kuma.io/service>`.
AccessClient dataplaneClient(const graph::kuma::Dataplane& dataplane, std::string display);
// A client known only by tags (`kuma.io/service=web`), as a proxy of `mesh` carrying them.
AccessClient tagsClient(std::vector<AccessTag> tags, std::string display, std::string_view mesh);

// The decision for `client` connecting to `inbound` of `destination`. `policies` are the
// mesh's (readPolicies). A `--request` does not change it: Kuma enforces MeshTrafficPermission
// per connection.
AccessResult decideAccess(const graph::kuma::Dataplane& destination,
                          const graph::kuma::Inbound& inbound, const AccessClient& client,
                          const std::vector<Policy>& policies, const model::Store& store,
                          const graph::kuma::Topology& topology, const Settings& settings);

// Whether a client with these tags is in the subset: it has every positive tag and none of
// the negated ones (a key may have several values: a proxy with several inbounds).
bool covers(const Subset& subset, const std::vector<AccessTag>& tags);

}  // namespace pg::policy::kuma
