// The Kuma topology: meshes and the proxies, services and gateways in them, read from Kuma
// objects (Universal documents or Kubernetes-form kuma.io objects). Policies are not read here:
// their semantics live in lib/policy/kuma/.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/model/store.h"

namespace pg::graph::kuma {

// Tags or labels, sorted by key (one value per key).
using Tags = std::vector<std::pair<std::string_view, std::string_view>>;

// A mapping of strings as tags (non-string values are skipped), sorted by key.
Tags readTags(yaml::NodeRef map);
// Whether every tag of `selector` is in `tags` with the same value (`*` matches any value).
bool tagsMatch(const Tags& selector, const Tags& tags);
std::string_view tagValue(const Tags& tags, std::string_view key);

inline constexpr std::string_view kServiceTag = "kuma.io/service";

struct Mesh {
  const model::Resource* resource = nullptr;
  // `meshServices.mode`: Disabled (default), Everywhere, ReachableBackends or Exclusive.
  std::string_view meshServicesMode = "Disabled";
  bool exclusive() const { return meshServicesMode == "Exclusive"; }
};

struct Inbound {
  std::string_view name;  // the section name (`name:`), "" when unnamed
  std::int64_t port = 0;
  std::int64_t servicePort = 0;
  std::string_view address;  // the inbound's own address, else the dataplane's
  Tags tags;
  bool ignored = false;  // state: Ignored
  yaml::NodeRef node;
};

struct Dataplane {
  const model::Resource* resource = nullptr;
  std::string_view address;
  std::vector<Inbound> inbounds;
  bool gateway = false;         // networking.gateway is set
  bool builtinGateway = false;  // networking.gateway.type: BUILTIN
  Tags gatewayTags;             // networking.gateway.tags
};

struct GatewayListener {
  std::int64_t port = 0;
  std::string_view protocol;
  std::string_view hostname;
  Tags tags;
  yaml::NodeRef node;
};

struct MeshGateway {
  const model::Resource* resource = nullptr;
  std::vector<Tags> selectors;  // each selector's `match`
  Tags tags;                    // conf-level `tags`
  std::vector<GatewayListener> listeners;
};

struct ServicePort {
  std::int64_t port = 0;
  std::string_view targetPort;  // a number or a name, as written
  std::string_view appProtocol;
  std::string_view name;
};

struct MeshService {
  const model::Resource* resource = nullptr;
  Tags dataplaneTags;  // spec.selector.dataplaneTags
  bool hasDataplaneTags = false;
  std::string_view dataplaneRef;        // spec.selector.dataplaneRef.name
  std::optional<Tags> dataplaneLabels;  // spec.selector.dataplane.matchLabels
  std::vector<ServicePort> ports;
};

struct Topology {
  std::vector<Mesh> meshes;
  std::vector<Dataplane> dataplanes;
  std::vector<MeshGateway> gateways;
  std::vector<MeshService> services;

  const Mesh* mesh(std::string_view name) const;
  const Dataplane* dataplane(std::string_view mesh, std::string_view name) const;
  const MeshGateway* gateway(std::string_view mesh, std::string_view name) const;
  // The MeshGateway a builtin gateway dataplane runs: the first, by name, one of whose
  // selectors matches its gateway tags.
  const MeshGateway* gatewayOf(const Dataplane& dp) const;
  // The dataplanes of a mesh a MeshService selects: by name (dataplaneRef), by tags
  // (dataplaneTags, on an inbound or the gateway), or by the dataplane's labels.
  std::vector<const Dataplane*> selectedBy(const MeshService& service) const;
};

// Reads every Kuma object of the store (objects with a mesh, and Meshes).
Topology build(const model::Store& store);

}  // namespace pg::graph::kuma
