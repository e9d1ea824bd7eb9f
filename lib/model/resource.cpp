#include "lib/model/resource.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

namespace pg::model {

ObjectRef Resource::ref() const {
  return {std::string(group), std::string(kind), std::string(namespace_), std::string(name), {}};
}

std::string Resource::display() const {
  std::string out(kind);
  out += '/';
  if (!namespace_.empty()) {
    out += namespace_;
    out += '/';
  }
  out += name;
  if (universal && !mesh.empty()) {
    out += " in mesh ";
    out += mesh;
  }
  return out;
}

std::string Resource::pathOf(yaml::NodeRef at) const {
  if (at.tree())
    if (std::string_view origin = at.tree()->originOf(at); !origin.empty())
      return std::string(origin);
  return file ? file->path : std::string();
}

Location Resource::locate(yaml::NodeRef at) const {
  if (!at) at = node;
  return {pathOf(at), at.start(), at.end()};
}

Location Resource::locateField(yaml::NodeRef map, std::string_view key) const {
  yaml::NodeRef k = map.keyNode(key);
  if (!k) return locate(map);
  yaml::NodeRef v = map.get(key);
  return {pathOf(k), k.start(), v ? v.end() : k.end()};
}

bool isBuiltinClusterScoped(std::string_view group, std::string_view kind) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 24> kKinds{{
      {"", "Namespace"},
      {"", "Node"},
      {"", "PersistentVolume"},
      {"apiextensions.k8s.io", "CustomResourceDefinition"},
      {"rbac.authorization.k8s.io", "ClusterRole"},
      {"rbac.authorization.k8s.io", "ClusterRoleBinding"},
      {"storage.k8s.io", "StorageClass"},
      {"storage.k8s.io", "CSIDriver"},
      {"scheduling.k8s.io", "PriorityClass"},
      {"networking.k8s.io", "IngressClass"},
      {"admissionregistration.k8s.io", "ValidatingWebhookConfiguration"},
      {"admissionregistration.k8s.io", "MutatingWebhookConfiguration"},
      {"admissionregistration.k8s.io", "ValidatingAdmissionPolicy"},
      {"admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"},
      {"apiregistration.k8s.io", "APIService"},
      {"certificates.k8s.io", "ClusterTrustBundle"},
      {"gateway.networking.k8s.io", "GatewayClass"},
      {"cert-manager.io", "ClusterIssuer"},
      {"kuma.io", "Mesh"},
      {"kuma.io", "MeshGateway"},
      {"kuma.io", "ZoneIngress"},
      {"kuma.io", "ZoneEgress"},
      {"policy", "PodSecurityPolicy"},
      {"node.k8s.io", "RuntimeClass"},
  }};
  // Asked for every reference resolved: most kinds are ruled out by their length alone.
  static constexpr std::uint64_t kLengths = [] {
    std::uint64_t mask = 0;
    for (const auto& k : kKinds) mask |= std::uint64_t{1} << k.second.size();
    return mask;
  }();
  if (kind.size() >= 64 || (kLengths & (std::uint64_t{1} << kind.size())) == 0) return false;
  return std::any_of(kKinds.begin(), kKinds.end(),
                     [&](const auto& k) { return k.second == kind && k.first == group; });
}

}  // namespace pg::model
