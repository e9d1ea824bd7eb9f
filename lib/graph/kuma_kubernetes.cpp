// Kuma on Kubernetes: the proxies (Dataplanes) Kuma's control plane makes for injected
// workloads, and the MeshServices it generates from Services, as Kuma 2.x's pod converter,
// inbound converter and MeshService controller do. Nobody commits these objects: they are
// derived here from Deployments, Pods, ..., Services and Namespaces.
#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>

#include "lib/graph/kuma.h"
#include "lib/graph/workloads.h"
#include "lib/model/ascii.h"

namespace pg::graph::kuma {

namespace {

constexpr std::string_view kInjection = "kuma.io/sidecar-injection";
constexpr std::string_view kMeshKey = "kuma.io/mesh";
// The port of the inbound Kuma gives a pod no Service selects (a port never allocated).
constexpr std::int64_t kServicelessPort = 49151;

enum class Injection { Unset, Enabled, Disabled };

Injection injectionOf(std::string_view value) {
  if (value == "enabled" || value == "true") return Injection::Enabled;
  if (value == "disabled" || value == "false") return Injection::Disabled;
  return Injection::Unset;
}

// A label, else the annotation of the same key.
std::string_view labelOrAnnotation(yaml::NodeRef labels, yaml::NodeRef annotations,
                                   std::string_view key) {
  if (yaml::NodeRef v = labels.get(key); v.isScalar() && !v.str().empty()) return v.str();
  if (yaml::NodeRef v = annotations.get(key); v.isScalar() && !v.str().empty()) return v.str();
  return {};
}

Tags sortedTags(const std::map<std::string_view, std::string_view>& tags) {
  return Tags(tags.begin(), tags.end());
}

// `kuma.io/protocol` of a Service port: `appProtocol` when Kuma knows it, else the Service's
// `<port>.service.kuma.io/protocol` annotation, else tcp; lowercased.
std::string protocolOf(const model::Resource& service, yaml::NodeRef port) {
  std::string value = model::lowerAscii(port.get("appProtocol").str());
  if (value != "http" && value != "http2" && value != "grpc" && value != "tcp" &&
      value != "kafka" && value != "tls")
    value.clear();
  if (value.empty())
    value = model::lowerAscii(service.annotation(
        std::to_string(port.get("port").asInt().value_or(0)) + ".service.kuma.io/protocol"));
  return value.empty() ? "tcp" : value;
}

// The container port a Service port reaches (Kuma's FindPort): a named targetPort must name a
// TCP port of a container; a number is taken as is (with the name of the container port that
// has it, if any); no targetPort means the Service port.
struct Found {
  std::int64_t port = 0;
  std::string_view name;
};
std::optional<Found> findPort(yaml::NodeRef servicePort, yaml::NodeRef podSpec) {
  yaml::NodeRef target = servicePort.get("targetPort");
  std::optional<std::int64_t> number = target ? target.asInt() : servicePort.get("port").asInt();
  std::vector<ContainerPort> ports = containerPorts(podSpec);
  if (target && !number) {
    for (const ContainerPort& p : ports)
      if (!p.init && p.name == target.str() && p.protocol == "TCP") return Found{p.number, p.name};
    return std::nullopt;
  }
  if (!number || *number <= 0) return std::nullopt;
  for (const ContainerPort& p : ports)
    if (!p.init && p.number == *number && p.protocol == "TCP") return Found{p.number, p.name};
  return Found{*number, {}};
}

bool tcpPort(yaml::NodeRef servicePort) {
  std::string_view protocol = servicePort.get("protocol").str();
  return protocol.empty() || protocol == "TCP";
}

struct Context {
  Topology& topology;
  const model::Store& store;
  ServiceIndex services;
  std::unordered_map<std::string_view, const model::Resource*> namespaces;

  const model::Resource* namespaceObject(std::string_view name) const {
    auto it = namespaces.find(name);
    return it == namespaces.end() ? nullptr : it->second;
  }
};

// Whether Kuma injects a sidecar into the workload's pods: the pod's label (else annotation)
// wins over the namespace's.
bool injected(const Context& c, const Workload& w) {
  Injection pod = injectionOf(labelOrAnnotation(w.labels, w.annotations, kInjection));
  if (pod != Injection::Unset) return pod == Injection::Enabled;
  const model::Resource* ns = c.namespaceObject(w.namespace_);
  if (!ns) return false;
  return injectionOf(labelOrAnnotation(ns->labels(), ns->metadata().get("annotations"),
                                       kInjection)) == Injection::Enabled;
}

// The pod's `kuma.io/mesh` (label, else annotation), else its namespace's, else `default`.
std::string_view meshOf(const Context& c, const Workload& w) {
  if (std::string_view m = labelOrAnnotation(w.labels, w.annotations, kMeshKey); !m.empty())
    return m;
  if (const model::Resource* ns = c.namespaceObject(w.namespace_))
    if (std::string_view m =
            labelOrAnnotation(ns->labels(), ns->metadata().get("annotations"), kMeshKey);
        !m.empty())
      return m;
  return "default";
}

bool externalName(const model::Resource& service) {
  return service.spec().get("type").str() == "ExternalName";
}

// The pod labels as inbound tags: empty values left out; `withKuma` false also leaves out keys
// holding `kuma.io/` (Kuma's internal labels) as Kuma does for Service inbounds.
std::map<std::string_view, std::string_view> podTags(const Workload& w, bool withKuma) {
  std::map<std::string_view, std::string_view> tags;
  for (auto [k, v] : w.labels.entries()) {
    if (!k.isScalar() || !v.isScalar() || v.isNull() || v.str().empty()) continue;
    if (!withKuma && k.str().find("kuma.io/") != std::string_view::npos) continue;
    tags[k.str()] = v.str();
  }
  return tags;
}

std::vector<Inbound> inboundsOf(Context& c, const Workload& w, bool exclusive) {
  Topology& t = c.topology;
  std::vector<Inbound> out;
  for (const model::Resource* service : c.services.selecting(w)) {
    if (externalName(*service)) continue;
    bool headless = service->spec().get("clusterIP").str() == "None";
    for (yaml::NodeRef p : service->spec().get("ports").items()) {
      if (!p.isMapping() || !tcpPort(p)) continue;
      std::optional<Found> found = findPort(p, w.podSpec);
      if (!found) continue;  // the pod has no such port: Kuma leaves it out
      std::int64_t servicePort = p.get("port").asInt().value_or(0);
      std::map<std::string_view, std::string_view> tags = podTags(w, false);
      tags[kNamespaceTag] = w.namespace_;
      tags["k8s.kuma.io/service-name"] = service->name;
      tags["k8s.kuma.io/service-port"] = t.own(std::to_string(servicePort));
      tags[kServiceTag] = t.own(std::string(service->name) + "_" + std::string(w.namespace_) +
                                "_svc_" + std::to_string(servicePort));
      tags["kuma.io/protocol"] = t.own(protocolOf(*service, p));
      if (headless) tags["kuma.io/instance"] = w.resource->name;
      if (exclusive && std::any_of(out.begin(), out.end(),
                                   [&](const Inbound& in) { return in.port == found->port; }))
        continue;  // Exclusive: inbounds are deduplicated by address and port
      Inbound in;
      in.name = found->name;
      in.port = found->port;
      in.servicePort = servicePort;
      in.tags = sortedTags(tags);
      in.node = p;
      out.push_back(std::move(in));
    }
  }
  if (out.empty()) {
    // No Service selects the pod: one inbound on a reserved port, for the pod itself.
    std::map<std::string_view, std::string_view> tags = podTags(w, true);
    tags[kNamespaceTag] = w.namespace_;
    tags[kServiceTag] =
        t.own(std::string(w.resource->name) + "_" + std::string(w.namespace_) + "_svc");
    tags["kuma.io/protocol"] = "tcp";
    tags["kuma.io/instance"] = w.resource->name;
    Inbound in;
    in.port = kServicelessPort;
    in.servicePort = kServicelessPort;
    in.tags = sortedTags(tags);
    in.node = w.podSpec;
    out.push_back(std::move(in));
  }
  return out;
}

bool generatesMeshServices(const Topology& t, std::string_view mesh) {
  const Mesh* m = t.mesh(mesh);
  return m && m->meshServicesMode != "Disabled";
}

}  // namespace

void deriveFromKubernetes(Topology& t, const model::Store& store,
                          std::string_view systemNamespace) {
  Context c{t, store, ServiceIndex(store), {}};
  for (const model::Resource* r : store.ofKind("Namespace"))
    if (r->group.empty()) c.namespaces.emplace(r->name, r);

  // Namespaces whose Services Kuma turns into MeshServices, with their mesh.
  std::map<std::string_view, std::string_view> injectedNamespaces;
  for (const Workload& w : collectWorkloads(store)) {
    if (w.namespace_ == systemNamespace || !injected(c, w)) continue;
    Dataplane dp;
    dp.resource = w.resource;
    dp.mesh = meshOf(c, w);
    dp.name = w.resource->name;
    dp.namespace_ = w.namespace_;
    dp.derived = true;
    std::map<std::string_view, std::string_view> labels = podTags(w, true);
    labels[kMeshKey] = dp.mesh;
    labels[kNamespaceTag] = dp.namespace_;
    dp.labels = sortedTags(labels);
    const Mesh* mesh = t.mesh(dp.mesh);
    dp.inbounds = inboundsOf(c, w, mesh && mesh->exclusive());
    t.dataplanes.push_back(std::move(dp));
  }
  for (const auto& [name, ns] : c.namespaces) {
    if (name == systemNamespace) continue;
    if (injectionOf(labelOrAnnotation(ns->labels(), ns->metadata().get("annotations"),
                                      kInjection)) != Injection::Enabled)
      continue;
    std::string_view mesh =
        labelOrAnnotation(ns->labels(), ns->metadata().get("annotations"), kMeshKey);
    injectedNamespaces[name] = mesh.empty() ? std::string_view("default") : mesh;
  }

  // MeshServices: one per Service with a selector of an injected namespace, in Store order.
  for (const model::Resource* r : store.ofKind("Service")) {
    if (!r->group.empty() || externalName(*r)) continue;
    auto ns = injectedNamespaces.find(r->namespace_);
    if (ns == injectedNamespaces.end()) continue;
    std::string_view mesh = r->label(kMeshKey).empty() ? ns->second : r->label(kMeshKey);
    if (!generatesMeshServices(t, mesh)) continue;
    yaml::NodeRef selector = r->spec().get("selector");
    if (!selector.isMapping() || selector.size() == 0) continue;
    MeshService s;
    s.resource = r;
    s.mesh = mesh;
    s.name = r->name;
    s.namespace_ = r->namespace_;
    s.derived = true;
    std::map<std::string_view, std::string_view> tags;
    for (const auto& [k, v] : readTags(selector)) tags[k] = v;
    tags[kNamespaceTag] = r->namespace_;
    s.dataplaneTags = sortedTags(tags);
    s.hasDataplaneTags = true;
    for (yaml::NodeRef p : r->spec().get("ports").items()) {
      if (!p.isMapping() || !tcpPort(p)) continue;
      yaml::NodeRef target = p.get("targetPort");
      s.ports.push_back({p.get("port").asInt().value_or(0),
                         target ? target.str() : p.get("port").str(), t.own(protocolOf(*r, p)),
                         p.get("name").str()});
    }
    t.services.push_back(std::move(s));
  }
}

}  // namespace pg::graph::kuma
