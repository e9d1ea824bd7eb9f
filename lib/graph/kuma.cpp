#include "lib/graph/kuma.h"

#include <algorithm>

namespace pg::graph::kuma {

Tags readTags(yaml::NodeRef map) {
  Tags out;
  for (auto [k, v] : map.entries())
    if (k.isScalar() && v.isScalar() && !v.isNull()) out.emplace_back(k.str(), v.str());
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  // A key written twice keeps its last value, as a map would.
  Tags unique;
  for (const auto& t : out) {
    if (!unique.empty() && unique.back().first == t.first)
      unique.back() = t;
    else
      unique.push_back(t);
  }
  return unique;
}

std::string_view tagValue(const Tags& tags, std::string_view key) {
  for (const auto& [k, v] : tags)
    if (k == key) return v;
  return {};
}

bool tagsMatch(const Tags& selector, const Tags& tags) {
  for (const auto& tag : selector) {
    auto it =
        std::find_if(tags.begin(), tags.end(), [&](const auto& t) { return t.first == tag.first; });
    if (it == tags.end()) return false;
    if (tag.second != "*" && it->second != tag.second) return false;
  }
  return true;
}

namespace {

std::int64_t intOf(yaml::NodeRef n) {
  return n.asInt().value_or(0);
}

Dataplane readDataplane(const model::Resource& r) {
  Dataplane dp;
  dp.resource = &r;
  dp.mesh = r.mesh;
  dp.name = r.name;
  dp.namespace_ = namespaceOf(r);
  dp.labels = readTags(r.labels());
  yaml::NodeRef networking = r.universal ? r.node.get("networking") : r.spec().get("networking");
  dp.address = networking.get("address").str();
  for (yaml::NodeRef in : networking.get("inbound").items()) {
    if (!in.isMapping()) continue;
    Inbound inbound;
    inbound.name = in.get("name").str();
    inbound.port = intOf(in.get("port"));
    inbound.servicePort = in.get("servicePort") ? intOf(in.get("servicePort")) : inbound.port;
    inbound.address = in.get("address").isString() ? in.get("address").str() : dp.address;
    inbound.tags = readTags(in.get("tags"));
    inbound.ignored = in.get("state").str() == "Ignored";
    inbound.node = in;
    dp.inbounds.push_back(std::move(inbound));
  }
  yaml::NodeRef gw = networking.get("gateway");
  if (gw.isMapping()) {
    dp.gateway = true;
    dp.builtinGateway = gw.get("type").str() == "BUILTIN";
    dp.gatewayTags = readTags(gw.get("tags"));
  }
  return dp;
}

MeshGateway readGateway(const model::Resource& r) {
  MeshGateway g;
  g.resource = &r;
  yaml::NodeRef body = r.universal ? r.node : r.spec();
  for (yaml::NodeRef s : body.get("selectors").items())
    g.selectors.push_back(readTags(s.get("match")));
  g.tags = readTags(body.get("tags"));
  for (yaml::NodeRef l : body.get("conf").get("listeners").items()) {
    if (!l.isMapping()) continue;
    g.listeners.push_back({intOf(l.get("port")), l.get("protocol").str(), l.get("hostname").str(),
                           readTags(l.get("tags")), l});
  }
  return g;
}

MeshService readService(const model::Resource& r) {
  MeshService s;
  s.resource = &r;
  s.mesh = r.mesh;
  s.name = r.name;
  s.namespace_ = namespaceOf(r);
  yaml::NodeRef selector = r.spec().get("selector");
  s.dataplaneTags = readTags(selector.get("dataplaneTags"));
  s.hasDataplaneTags = selector.get("dataplaneTags").isMapping();
  if (yaml::NodeRef dp = selector.get("dataplane"); dp.isMapping())
    s.dataplaneLabels = readTags(dp.get("matchLabels"));
  s.dataplaneRef = selector.get("dataplaneRef").get("name").str();
  for (yaml::NodeRef p : r.spec().get("ports").items()) {
    if (!p.isMapping()) continue;
    s.ports.push_back({intOf(p.get("port")), p.get("targetPort").str(), p.get("appProtocol").str(),
                       p.get("name").str()});
  }
  return s;
}

template <class T>
const T* findIn(const std::vector<T>& items, std::string_view mesh, std::string_view name) {
  for (const T& t : items)
    if (t.resource->mesh == mesh && t.resource->name == name) return &t;
  return nullptr;
}

}  // namespace

const Mesh* Topology::mesh(std::string_view name) const {
  for (const Mesh& m : meshes)
    if (m.resource->name == name) return &m;
  return nullptr;
}

Topology::Topology() : strings_(std::make_unique<std::deque<std::string>>()) {}

std::string_view Topology::own(std::string text) {
  return strings_->emplace_back(std::move(text));
}

const Dataplane* Topology::dataplane(std::string_view mesh, std::string_view name) const {
  for (const Dataplane& dp : dataplanes) {
    if (dp.mesh != mesh) continue;
    if (dp.name == name) return &dp;
    if (dp.derived && name.size() == dp.name.size() + 1 + dp.namespace_.size() &&
        name.starts_with(dp.name) && name[dp.name.size()] == '.' && name.ends_with(dp.namespace_))
      return &dp;
  }
  return nullptr;
}

const Dataplane* Topology::derivedDataplane(std::string_view namespace_,
                                            std::string_view name) const {
  for (const Dataplane& dp : dataplanes)
    if (dp.derived && dp.namespace_ == namespace_ && dp.name == name) return &dp;
  return nullptr;
}

const Dataplane* Topology::dataplaneOf(const model::Resource& workload) const {
  for (const Dataplane& dp : dataplanes)
    if (dp.derived && dp.resource == &workload) return &dp;
  return nullptr;
}

const MeshGateway* Topology::gateway(std::string_view mesh, std::string_view name) const {
  return findIn(gateways, mesh, name);
}

const MeshGateway* Topology::gatewayOf(const Dataplane& dp) const {
  if (!dp.builtinGateway) return nullptr;
  const MeshGateway* best = nullptr;
  for (const MeshGateway& g : gateways) {
    if (g.resource->mesh != dp.resource->mesh) continue;
    bool matches = std::any_of(g.selectors.begin(), g.selectors.end(),
                               [&](const Tags& sel) { return tagsMatch(sel, dp.gatewayTags); });
    if (matches && (!best || g.resource->name < best->resource->name)) best = &g;
  }
  return best;
}

std::vector<const Dataplane*> Topology::selectedBy(const MeshService& service) const {
  std::vector<const Dataplane*> out;
  for (const Dataplane& dp : dataplanes) {
    if (dp.mesh != service.mesh) continue;
    bool matches = false;
    if (!service.dataplaneRef.empty()) {
      matches = dp.name == service.dataplaneRef;
    } else if (service.hasDataplaneTags) {
      matches = std::any_of(
                    dp.inbounds.begin(), dp.inbounds.end(),
                    [&](const Inbound& in) { return tagsMatch(service.dataplaneTags, in.tags); }) ||
                (dp.gateway && tagsMatch(service.dataplaneTags, dp.gatewayTags));
    } else if (service.dataplaneLabels) {
      matches = tagsMatch(*service.dataplaneLabels, dp.labels);
    }
    if (matches) out.push_back(&dp);
  }
  return out;
}

Topology build(const model::Store& store, std::string_view systemNamespace) {
  Topology t;
  for (const model::Resource* r : store.ofKind("Mesh"))
    if (r->group == "kuma.io") {
      Mesh m;
      m.resource = r;
      yaml::NodeRef body = r->universal ? r->node : r->spec();
      yaml::NodeRef mode = body.get("meshServices").get("mode");
      if (mode.isString() && !mode.str().empty()) m.meshServicesMode = mode.str();
      t.meshes.push_back(m);
    }
  for (const model::Resource* r : store.ofKind("Dataplane"))
    if (r->group == "kuma.io") t.dataplanes.push_back(readDataplane(*r));
  for (const model::Resource* r : store.ofKind("MeshGateway"))
    if (r->group == "kuma.io") t.gateways.push_back(readGateway(*r));
  for (const model::Resource* r : store.ofKind("MeshService"))
    if (r->group == "kuma.io") t.services.push_back(readService(*r));
  deriveFromKubernetes(t, store, systemNamespace);
  return t;
}

}  // namespace pg::graph::kuma
