#pragma once

// Workloads as a mesh sees them: every Pod, and the pod template of each controller kind
// (the template's labels and annotations, the controller's namespace). Shared by the mesh
// families; what a mesh makes of a workload lives in that family's policy folder.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lib/model/store.h"
#include "lib/yaml/tree.h"

namespace pg::graph {

struct Workload {
  const model::Resource* resource = nullptr;  // the Pod, or the object holding the template
  std::string_view namespace_;
  yaml::NodeRef labels;       // the pod's (or template's) labels; may be missing
  yaml::NodeRef annotations;  // likewise
  yaml::NodeRef podSpec;      // the pod spec (a mapping when well formed)
};

// Kinds whose objects are workloads (Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, Job,
// CronJob), in core or `apps`/`batch`.
bool isWorkloadKind(std::string_view group, std::string_view kind);

// The pod spec and metadata of a workload object; nullopt when it is not a workload kind.
std::optional<Workload> workloadOf(const model::Resource& resource);

// Every workload of the Store, in Store order.
std::vector<Workload> collectWorkloads(const model::Store& store);

// Whether anything in the input is Linkerd's: an object of a `linkerd.io` group, or a Namespace
// or one of `workloads` (the Store's) labelled or annotated for it (`linkerd.io/inject`,
// `config.linkerd.io/default-inbound-policy`...). Without any of these no pod runs a Linkerd
// proxy, unless the config says the cluster runs Linkerd.
bool linkerdNamed(const model::Store& store, const std::vector<Workload>& workloads);

struct ContainerPort {
  yaml::NodeRef container;  // the container holding the port
  yaml::NodeRef node;       // the port's entry
  std::string_view name;    // empty when unnamed
  std::int64_t number = 0;
  std::string_view protocol;  // as written, "TCP" when absent
  bool init = false;          // in initContainers
};

// The ports of every container then every init container, in manifest order; entries without a
// valid containerPort are left out.
std::vector<ContainerPort> containerPorts(yaml::NodeRef podSpec);

struct HttpProbe {
  yaml::NodeRef container;
  yaml::NodeRef node;                    // the httpGet mapping
  std::string_view kind;                 // livenessProbe, readinessProbe, startupProbe
  std::optional<std::int64_t> port;      // a named port is looked up in the probe's own container
  std::string_view portName;             // as written when the port is a name
  std::optional<std::string_view> path;  // as written; nullopt when absent
};

// Every HTTP probe (httpGet) of every container, in manifest order.
std::vector<HttpProbe> httpProbes(yaml::NodeRef podSpec);

// Whether a Service's `spec.selector` selects the workload (same namespace; a Service without
// selector selects nothing: its endpoints are managed by hand).
bool serviceSelects(const model::Resource& service, const Workload& workload);

// The core Services of a Store, indexed to answer "which Services select this workload?" without
// testing every Service of the namespace: a Service can select a workload only if the workload
// carries the first label of the Service's selector, so each Service is filed under its
// namespace and that label's key.
class ServiceIndex {
 public:
  explicit ServiceIndex(const model::Store& store);
  // The Services whose selector selects the workload (serviceSelects), in Store order.
  std::vector<const model::Resource*> selecting(const Workload& workload) const;

 private:
  using Candidates = std::vector<std::pair<std::size_t, const model::Resource*>>;  // Store order
  // namespace -> first selector key -> Services
  std::unordered_map<std::string_view, std::unordered_map<std::string_view, Candidates>> index_;
};

// The container port a Service port sends to on a workload: `targetPort` as a number, or the
// name of a container port; `port` when targetPort is absent. nullopt when a name matches none.
std::optional<std::int64_t> serviceTargetPort(yaml::NodeRef servicePort, yaml::NodeRef podSpec);

}  // namespace pg::graph
