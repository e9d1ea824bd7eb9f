#include "lib/graph/workloads.h"

#include <algorithm>
#include <array>
#include <functional>

namespace pg::graph {

namespace {

struct Template {
  std::string_view group;
  std::string_view kind;
  std::array<std::string_view, 4> path;  // from the object to the pod template; empty = the pod
};

constexpr std::array kTemplates = {
    Template{"", "Pod", {}},
    Template{"apps", "Deployment", {"spec", "template"}},
    Template{"apps", "StatefulSet", {"spec", "template"}},
    Template{"apps", "DaemonSet", {"spec", "template"}},
    Template{"apps", "ReplicaSet", {"spec", "template"}},
    Template{"batch", "Job", {"spec", "template"}},
    Template{"batch", "CronJob", {"spec", "jobTemplate", "spec", "template"}},
};

const Template* templateOf(std::string_view group, std::string_view kind) {
  for (const Template& t : kTemplates)
    if (t.group == group && t.kind == kind) return &t;
  return nullptr;
}

void addPorts(yaml::NodeRef containers, bool init, std::vector<ContainerPort>& out) {
  for (yaml::NodeRef c : containers.items()) {
    for (yaml::NodeRef p : c.get("ports").items()) {
      std::optional<std::int64_t> number = p.get("containerPort").asInt();
      if (!number || *number < 1 || *number > 65535) continue;
      yaml::NodeRef protocol = p.get("protocol");
      out.push_back({c, p, p.get("name").str(), *number,
                     protocol.isScalar() && !protocol.isNull() ? protocol.str() : "TCP", init});
    }
  }
}

}  // namespace

bool isWorkloadKind(std::string_view group, std::string_view kind) {
  return templateOf(group, kind) != nullptr;
}

std::optional<Workload> workloadOf(const model::Resource& resource) {
  const Template* t = templateOf(resource.group, resource.kind);
  if (!t) return std::nullopt;
  yaml::NodeRef pod = resource.node;
  for (std::string_view step : t->path)
    if (!step.empty()) pod = pod.get(step);
  yaml::NodeRef metadata = pod.get("metadata");
  return Workload{&resource, resource.namespace_, metadata.get("labels"),
                  metadata.get("annotations"), pod.get("spec")};
}

std::vector<Workload> collectWorkloads(const model::Store& store) {
  // The indexed objects of each kind (a duplicate is not indexed), in Store order.
  std::vector<const model::Resource*> found;
  for (const Template& t : kTemplates)
    for (const model::Resource* r : store.ofKind(t.group, t.kind)) found.push_back(r);
  std::sort(found.begin(), found.end(), std::less<const model::Resource*>());
  std::vector<Workload> out;
  out.reserve(found.size());
  for (const model::Resource* r : found) out.push_back(*workloadOf(*r));
  return out;
}

namespace {

// Whether a label or annotation map holds a Linkerd key: `linkerd.io/...` or `<x>.linkerd.io/...`.
bool hasLinkerdKey(yaml::NodeRef map) {
  for (auto [key, value] : map.entries()) {
    std::string_view k = key.str();
    std::size_t slash = k.find('/');
    if (slash == std::string_view::npos) continue;
    std::string_view prefix = k.substr(0, slash);
    if (prefix == "linkerd.io" || prefix.ends_with(".linkerd.io")) return true;
  }
  return false;
}

}  // namespace

bool linkerdNamed(const model::Store& store, const std::vector<Workload>& workloads) {
  for (const model::Resource& r : store.all())
    if (r.group == "linkerd.io" || r.group.ends_with(".linkerd.io")) return true;
  for (const model::Resource* ns : store.ofKind("Namespace"))
    if (hasLinkerdKey(ns->labels()) || hasLinkerdKey(ns->metadata().get("annotations")))
      return true;
  return std::any_of(workloads.begin(), workloads.end(), [](const Workload& w) {
    return hasLinkerdKey(w.labels) || hasLinkerdKey(w.annotations);
  });
}

std::vector<ContainerPort> containerPorts(yaml::NodeRef podSpec) {
  std::vector<ContainerPort> out;
  addPorts(podSpec.get("containers"), false, out);
  addPorts(podSpec.get("initContainers"), true, out);
  return out;
}

std::vector<HttpProbe> httpProbes(yaml::NodeRef podSpec) {
  std::vector<HttpProbe> out;
  for (yaml::NodeRef c : podSpec.get("containers").items()) {
    for (std::string_view kind : {"livenessProbe", "readinessProbe", "startupProbe"}) {
      yaml::NodeRef get = c.get(kind).get("httpGet");
      if (!get.isMapping()) continue;
      HttpProbe probe{c, get, kind, std::nullopt, {}, std::nullopt};
      yaml::NodeRef port = get.get("port");
      if (std::optional<std::int64_t> n = port.asInt()) {
        probe.port = *n;
      } else if (port.isScalar() && !port.isNull()) {
        probe.portName = port.str();
        for (yaml::NodeRef p : c.get("ports").items())
          if (p.get("name").str() == probe.portName) probe.port = p.get("containerPort").asInt();
      }
      if (yaml::NodeRef path = get.get("path"); path.isScalar() && !path.isNull())
        probe.path = path.str();
      out.push_back(probe);
    }
  }
  return out;
}

bool serviceSelects(const model::Resource& service, const Workload& workload) {
  yaml::NodeRef selector = service.spec().get("selector");
  if (service.namespace_ != workload.namespace_ || !selector.isMapping() || selector.size() == 0)
    return false;
  // matchLabels semantics (LabelSelector::fromMatchLabels), read in place: this runs for
  // every Service and workload of a namespace, and a selector built each time allocates.
  for (auto [key, value] : selector.entries()) {
    yaml::NodeRef label = workload.labels.get(key.str());
    if (!label || label.str() != value.str()) return false;
  }
  return true;
}

ServiceIndex::ServiceIndex(const model::Store& store) {
  std::size_t order = 0;
  for (const model::Resource* service : store.ofKind("Service")) {
    ++order;
    if (!service->group.empty()) continue;
    yaml::NodeRef selector = service->spec().get("selector");
    if (!selector.isMapping() || selector.size() == 0) continue;  // selects nothing
    for (auto [key, value] : selector.entries()) {
      index_[service->namespace_][key.str()].emplace_back(order, service);
      break;
    }
  }
}

std::vector<const model::Resource*> ServiceIndex::selecting(const Workload& workload) const {
  auto ns = index_.find(workload.namespace_);
  if (ns == index_.end()) return {};
  Candidates found;
  for (auto [key, value] : workload.labels.entries()) {
    auto candidates = ns->second.find(key.str());
    if (candidates == ns->second.end()) continue;
    for (const auto& candidate : candidates->second)
      if (serviceSelects(*candidate.second, workload)) found.push_back(candidate);
  }
  // A label written twice (a duplicate key, reported by IN104) must not list a Service twice.
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  std::vector<const model::Resource*> out;
  out.reserve(found.size());
  for (const auto& f : found) out.push_back(f.second);
  return out;
}

std::optional<std::int64_t> serviceTargetPort(yaml::NodeRef servicePort, yaml::NodeRef podSpec) {
  yaml::NodeRef target = servicePort.get("targetPort");
  if (!target) return servicePort.get("port").asInt();
  if (std::optional<std::int64_t> n = target.asInt()) return n;
  for (const ContainerPort& p : containerPorts(podSpec))
    if (p.name == target.str()) return p.number;
  return std::nullopt;
}

}  // namespace pg::graph
