// The Kuma topology: meshes and the proxies, services and gateways in them, read from Kuma
// objects (Universal documents or Kubernetes-form kuma.io objects). Policies are not read here:
// their semantics live in lib/policy/kuma/.
#pragma once

#include <deque>
#include <memory>
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
inline constexpr std::string_view kNamespaceTag = "k8s.kuma.io/namespace";

// The Kubernetes namespace a Kuma object lives in: its own, or for a Universal object (which has
// none) the `k8s.kuma.io/namespace` label a zone synced from Kubernetes gives it.
inline std::string_view namespaceOf(const model::Resource& r) {
  return r.universal ? r.label(kNamespaceTag) : r.namespace_;
}

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

// A Dataplane object, or the one Kuma's control plane makes for an injected Kubernetes
// workload (`derived`): then `resource` is the workload (a Pod, or a controller whose pod
// template stands for all its pods) and name, namespace and labels are what Kuma gives it.
struct Dataplane {
  const model::Resource* resource = nullptr;
  std::string_view mesh;
  std::string_view name;        // a derived proxy: the Pod's or the controller's name
  std::string_view namespace_;  // Kubernetes namespace (Universal: k8s.kuma.io/namespace)
  Tags labels;                  // the object's labels; derived: pod labels, kuma.io/mesh and
                                // k8s.kuma.io/namespace
  bool derived = false;
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

// A MeshService object, or the one Kuma generates from a Kubernetes Service of an injected
// namespace when the mesh's `meshServices.mode` is not Disabled (`derived`, `resource` is the
// Service, the selector its `spec.selector` as dataplaneTags).
struct MeshService {
  const model::Resource* resource = nullptr;
  std::string_view mesh;
  std::string_view name;
  std::string_view namespace_;
  bool derived = false;
  Tags dataplaneTags;  // spec.selector.dataplaneTags
  bool hasDataplaneTags = false;
  std::string_view dataplaneRef;        // spec.selector.dataplaneRef.name
  std::optional<Tags> dataplaneLabels;  // spec.selector.dataplane.matchLabels
  std::vector<ServicePort> ports;
};

struct Topology {
  Topology();
  std::vector<Mesh> meshes;
  std::vector<Dataplane> dataplanes;
  std::vector<MeshGateway> gateways;
  std::vector<MeshService> services;

  const Mesh* mesh(std::string_view name) const;
  // By mesh and name; a derived proxy also answers to `name.namespace` (Kuma's name for it).
  const Dataplane* dataplane(std::string_view mesh, std::string_view name) const;
  // A derived proxy by namespace and name (any mesh), and the one derived from a workload.
  const Dataplane* derivedDataplane(std::string_view namespace_, std::string_view name) const;
  const Dataplane* dataplaneOf(const model::Resource& workload) const;
  const MeshGateway* gateway(std::string_view mesh, std::string_view name) const;
  // The MeshGateway a builtin gateway dataplane runs: the first, by name, one of whose
  // selectors matches its gateway tags.
  const MeshGateway* gatewayOf(const Dataplane& dp) const;
  // The dataplanes of a mesh a MeshService selects: by name (dataplaneRef), by tags
  // (dataplaneTags, on an inbound or the gateway), or by the dataplane's labels.
  std::vector<const Dataplane*> selectedBy(const MeshService& service) const;

  // Storage for the strings derived objects are given (tag values Kuma synthesizes): a deque
  // never moves what it holds, and the Topology moves it whole.
  std::string_view own(std::string text);

 private:
  std::unique_ptr<std::deque<std::string>> strings_;
};

// Reads every Kuma object of the store (objects with a mesh, and Meshes), then derives the
// proxies and MeshServices of Kubernetes workloads (kuma_kubernetes.cpp). Kuma's system
// namespace gets none.
Topology build(const model::Store& store, std::string_view systemNamespace = "kuma-system");
// The Kubernetes part: the proxies of injected workloads and their MeshServices.
void deriveFromKubernetes(Topology& topology, const model::Store& store,
                          std::string_view systemNamespace);

}  // namespace pg::graph::kuma
