#include "lib/policy/kuma/validate.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <exception>
#include <map>
#include <set>

namespace pg::policy::kuma {

namespace {

using Kinds = std::vector<std::string_view>;

// The kinds Kuma's v2.x validators (pkg/plugins/policies/<type>/api/v1alpha1/validator.go)
// accept per section. Top-level `Dataplane` is accepted by every type since 2.9.
const std::vector<AllowedKinds>& table() {
  static const Kinds kWorkloads{"Mesh", "MeshSubset", "MeshService", "MeshServiceSubset",
                                "Dataplane"};
  static const Kinds kWithGateway{"Mesh",        "MeshSubset", "MeshService", "MeshServiceSubset",
                                  "MeshGateway", "Dataplane"};
  static const Kinds kWithRoute{"Mesh",        "MeshSubset",    "MeshService", "MeshServiceSubset",
                                "MeshGateway", "MeshHTTPRoute", "Dataplane"};
  static const Kinds kDestinations{"Mesh", "MeshService", "MeshExternalService",
                                   "MeshMultiZoneService"};
  static const Kinds kRouteDestinations{"Mesh", "MeshService", "MeshExternalService",
                                        "MeshMultiZoneService", "MeshHTTPRoute"};
  static const Kinds kMesh{"Mesh"};
  static const Kinds kSources{"Mesh", "MeshSubset", "MeshService", "MeshServiceSubset"};
  static const Kinds kNone{};
  static const std::vector<AllowedKinds> kTable{
      {"MeshAccessLog", kWithRoute, kDestinations, kMesh, true},
      {"MeshCircuitBreaker", kWithGateway, kDestinations, kMesh, true},
      {"MeshFaultInjection", kWithGateway, kDestinations, kSources, false},
      {"MeshHTTPRoute", kWithGateway, kDestinations, kNone, false},
      {"MeshHealthCheck", kWithGateway, kDestinations, kNone, false},
      {"MeshLoadBalancingStrategy",
       kWithGateway,
       {"Mesh", "MeshService", "MeshMultiZoneService"},
       kNone,
       false},
      {"MeshMetric", kWorkloads, kNone, kNone, false},
      {"MeshPassthrough", {"Mesh", "MeshSubset", "Dataplane"}, kNone, kNone, false},
      {"MeshProxyPatch", kWithGateway, kNone, kNone, false},
      {"MeshRateLimit", kWithRoute, kMesh, kMesh, true},
      {"MeshRetry", kWithRoute, kRouteDestinations, kNone, false},
      {"MeshTCPRoute", kWithGateway, kDestinations, kNone, false},
      {"MeshTLS", kWorkloads, kNone, kMesh, true},
      {"MeshTimeout", kWithRoute, kRouteDestinations, kMesh, true},
      {"MeshTrace", kWithGateway, kNone, kNone, false},
      {"MeshTrafficPermission", kWorkloads, kNone, kSources, true},
  };
  // Kuma's validators of these types accept a top-level MeshGateway or MeshHTTPRoute only from
  // a system policy; MeshCircuitBreaker and MeshHealthCheck, which configure only clusters,
  // from any role.
  static const std::vector<AllowedKinds> kWithRoles = [] {
    std::vector<AllowedKinds> out = kTable;
    for (AllowedKinds& a : out)
      for (std::string_view t :
           {"MeshFaultInjection", "MeshHTTPRoute", "MeshMetric", "MeshProxyPatch", "MeshRateLimit",
            "MeshRetry", "MeshTCPRoute", "MeshTimeout"})
        if (a.type == t) a.gatewayOnlyForSystem = true;
    return out;
  }();
  return kWithRoles;
}

bool contains(const Kinds& kinds, std::string_view kind) {
  return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

std::string join(const Kinds& kinds) {
  std::string out;
  for (std::string_view k : kinds) {
    if (!out.empty()) out += ", ";
    out += k;
  }
  return out;
}

std::string text(std::string_view s) {
  return std::string(s);
}

std::string tagsText(const Tags& tags) {
  std::string out = "{";
  for (const auto& [k, v] : tags) {
    if (out.size() > 1) out += ", ";
    out += text(k) + ": " + text(v);
  }
  return out + "}";
}

std::string_view displayOf(const model::Resource& r) {
  std::string_view display = r.label("kuma.io/display-name");
  return display.empty() ? r.name : display;
}

bool isApplicationNamespace(const Policy& p, const Settings& settings) {
  return !p.namespace_.empty() && p.namespace_ != settings.systemNamespace;
}

class Validator {
 public:
  Validator(const model::Store& store, const graph::kuma::Topology& topology,
            const Settings& settings)
      : store_(store), topology_(topology), settings_(settings) {}

  std::vector<Problem> run() {
    std::set<std::string_view> meshes;
    for (const model::Resource& r : store_.all())
      if (r.group == "kuma.io" && r.kind != "Mesh") meshes.insert(r.mesh);
    std::map<const model::Resource*, const Policy*> policyOf;
    std::map<std::string_view, std::vector<Policy>> byMesh;
    for (std::string_view mesh : meshes) byMesh[mesh] = readPolicies(store_, mesh, settings_);
    for (const auto& [mesh, policies] : byMesh)
      for (const Policy& p : policies) policyOf[p.resource] = &p;

    for (const model::Resource* object : store_.objects()) {
      const model::Resource& r = *object;
      if (r.group != "kuma.io" || r.kind == "Mesh") continue;
      auto it = policyOf.find(&r);
      const Policy* p = it == policyOf.end() ? nullptr : it->second;
      if (p || isMeshScopedTopology(r.kind)) checkMesh(r);
      if (!p) continue;
      const std::vector<Policy>& policies = byMesh[r.mesh];
      checkKinds(*p);
      checkRoles(*p);
      bool outside = checkOutside(*p);
      if (!outside) checkTop(*p, policies);
      checkTo(*p);
      checkConfs(*p);
    }
    for (const auto& [mesh, policies] : byMesh) {
      if (policies.empty()) continue;
      std::vector<ByType> selected = selections(policies);
      checkSameRank(policies, selected);
      checkNeverEffective(policies, selected);
    }
    return std::move(out_);
  }

 private:
  static bool isMeshScopedTopology(std::string_view kind) {
    return kind == "Dataplane" || kind == "MeshGateway" || kind == "MeshService" ||
           kind == "MeshExternalService" || kind == "MeshMultiZoneService";
  }

  void add(Check check, const model::Resource& r, yaml::NodeRef map, std::string_view key,
           std::string message, std::string discriminator) {
    out_.push_back({check, &r, map, key, std::move(message), std::move(discriminator)});
  }

  // KM507: the object's mesh has no Mesh object, when the input has Meshes at all.
  void checkMesh(const model::Resource& r) {
    if (topology_.meshes.empty() || topology_.mesh(r.mesh)) return;
    std::string known;
    for (const graph::kuma::Mesh& m : topology_.meshes) {
      if (!known.empty()) known += ", ";
      known += m.resource->name;
    }
    std::string who = r.universal ? text(r.kind) + "/" + text(r.name) : r.display();
    std::string what = who + " is in mesh " + text(r.mesh) +
                       ", which is not in the input: no Mesh object names it (meshes: " + known +
                       ")";
    std::string fix = ": Kuma refuses it until the mesh exists; fix the mesh name or add the Mesh";
    if (r.universal) {
      add(Check::MeshMissing, r, r.node, "mesh", what + fix, text(r.mesh));
    } else if (yaml::NodeRef labels = r.labels(); labels.get("kuma.io/mesh")) {
      add(Check::MeshMissing, r, labels, "kuma.io/mesh", what + fix, text(r.mesh));
    } else {
      add(Check::MeshMissing, r, r.metadata(), "name",
          what + " (no kuma.io/mesh label: the mesh is `default`)" + fix, text(r.mesh));
    }
  }

  // KM501: kinds and sections the type's validator rejects.
  void checkKinds(const Policy& p) {
    const AllowedKinds* allowed = allowedKinds(p.type);
    if (!allowed) return;
    const model::Resource& r = *p.resource;
    yaml::NodeRef spec = r.spec();
    std::string type = text(p.type);
    if (p.top.present && !contains(allowed->top, p.top.kind))
      add(Check::TargetKind, r, p.top.node, "kind",
          "spec.targetRef.kind: value is not supported: " + type + " does not accept kind " +
              text(p.top.kind) + " in its top-level targetRef; use one of " + join(allowed->top),
          "targetRef");
    else if (p.top.present && allowed->gatewayOnlyForSystem && p.role != Role::System &&
             (p.top.kind == "MeshGateway" || p.top.kind == "MeshHTTPRoute"))
      add(Check::TargetKind, r, p.top.node, "kind",
          "spec.targetRef.kind: value is not supported: a " + text(roleName(p.role)) + " " + type +
              " may not target kind " + text(p.top.kind) +
              " (only a policy of the system namespace may); create it in the system namespace " +
              "or target the proxies with Mesh, MeshSubset, MeshService or Dataplane",
          "targetRef");
    auto section = [&](const std::vector<Item>& items, const Kinds& kinds, std::string_view name) {
      if (items.empty()) return;
      if (kinds.empty()) {
        add(Check::TargetKind, r, spec, name,
            "spec." + text(name) + ": " + type + " has no `" + text(name) +
                "` section; Kuma refuses the policy, remove it",
            text(name));
        return;
      }
      for (const Item& item : items)
        if (item.ref.present && !contains(kinds, item.ref.kind))
          add(Check::TargetKind, r, item.ref.node, "kind",
              "spec." + text(name) + "[" + std::to_string(item.index) +
                  "].targetRef.kind: value is not supported: " + type + " does not accept kind " +
                  text(item.ref.kind) + " in `" + text(name) + "`; use one of " + join(kinds),
              text(name) + "/" + std::to_string(item.index));
    };
    section(p.to, allowed->to, "to");
    section(p.from, allowed->from, "from");
    if (!p.rules.empty() && !allowed->rules)
      add(Check::TargetKind, r, spec, "rules",
          "spec.rules: " + type + " has no `rules` section; Kuma refuses the policy, remove it",
          "rules");
  }

  static bool producerItem(const Policy& p, const Item& item) {
    return (item.ref.kind == "MeshService" || item.ref.kind == "MeshHTTPRoute") &&
           !item.ref.name.empty() &&
           (item.ref.namespace_.empty() || item.ref.namespace_ == p.namespace_);
  }

  // KM504: the combinations the namespace MADR forbids, for policies of an application
  // namespace whose role Kuma derives (not Universal copies, which carry it).
  void checkRoles(const Policy& p) {
    const model::Resource& r = *p.resource;
    if (r.universal || !isApplicationNamespace(p, settings_)) return;
    if (!r.label("kuma.io/policy-role").empty()) return;
    if (!p.to.empty() && !p.from.empty())
      add(Check::RoleMix, r, r.spec(), "from",
          text(p.type) + " in namespace " + text(p.namespace_) +
              " has both `to` and `from`: Kuma refuses a namespace-scoped policy with both; "
              "split it into one policy with `to` and one with `from`",
          "to+from");
    if (p.to.size() < 2) return;
    bool firstProducer = producerItem(p, p.to.front());
    for (const Item& item : p.to) {
      if (producerItem(p, item) == firstProducer) continue;
      yaml::NodeRef ref = item.ref.node;
      std::string_view key =
          ref.get("namespace") ? "namespace" : (ref.get("name") ? "name" : "kind");
      add(Check::RoleMix, r, ref, key,
          "spec.to[" + std::to_string(item.index) + "] is a " +
              (firstProducer ? "consumer" : "producer") + " target but spec.to[" +
              std::to_string(p.to.front().index) + "] is a " +
              (firstProducer ? "producer" : "consumer") +
              " target: Kuma refuses a policy that mixes targets in its own namespace (" +
              text(p.namespace_) +
              ") with targets elsewhere; split it into a producer and a consumer policy",
          "to/" + std::to_string(item.index));
    }
  }

  // KM503: a consumer or workload-owner policy of an application namespace applies only to the
  // proxies of that namespace; a top-level targetRef naming another namespace selects nothing.
  bool checkOutside(const Policy& p) {
    if (!isApplicationNamespace(p, settings_)) return false;
    if (p.role != Role::Consumer && p.role != Role::WorkloadOwner) return false;
    const model::Resource& r = *p.resource;
    std::string_view other;
    yaml::NodeRef map;
    std::string_view key;
    if (!p.top.namespace_.empty() && p.top.namespace_ != p.namespace_) {
      other = p.top.namespace_;
      map = p.top.node;
      key = "namespace";
    } else if (std::string_view ns = graph::kuma::tagValue(p.top.tags, graph::kuma::kNamespaceTag);
               !ns.empty() && ns != p.namespace_) {
      other = ns;
      map = p.top.node.get("tags");
      key = graph::kuma::kNamespaceTag;
    } else if (std::string_view ns =
                   graph::kuma::tagValue(p.top.labels, graph::kuma::kNamespaceTag);
               !ns.empty() && ns != p.namespace_) {
      other = ns;
      map = p.top.node.get("labels");
      key = graph::kuma::kNamespaceTag;
    } else {
      return false;
    }
    add(Check::OutsideNamespace, r, map, key,
        r.display() + " targets namespace " + text(other) + ", outside its own: as a " +
            text(roleName(p.role)) + " policy of namespace " + text(p.namespace_) +
            ", Kuma applies it only to proxies in " + text(p.namespace_) +
            ", so it selects no proxy; move the policy to " + text(other) + " (or to " +
            settings_.systemNamespace + " for a mesh-wide policy)",
        text(other));
    return true;
  }

  std::vector<Proxy> proxiesOf(std::string_view mesh) {
    std::vector<Proxy> out;
    // A derived proxy's mesh is Kuma's for its workload, not a field of the workload.
    for (const graph::kuma::Dataplane& dp : topology_.dataplanes)
      if (dp.mesh == mesh)
        out.push_back({dp.resource, &dp, topology_.gatewayOf(dp), dp.gatewayTags});
    for (const graph::kuma::MeshGateway& gw : topology_.gateways) {
      if (gw.resource->mesh != mesh) continue;
      Proxy proxy;
      proxy.resource = gw.resource;
      proxy.gateway = &gw;
      if (!gw.selectors.empty()) proxy.gatewayTags = gw.selectors.front();
      out.push_back(std::move(proxy));
    }
    return out;
  }

  const std::vector<Proxy>& proxies(std::string_view mesh) {
    auto it = proxies_.find(mesh);
    if (it == proxies_.end()) it = proxies_.emplace(mesh, proxiesOf(mesh)).first;
    return it->second;
  }

  bool anyOfKind(std::string_view kind, std::string_view mesh) const {
    for (const model::Resource* r : store_.ofKind(kind))
      if (r->group == "kuma.io" && r->mesh == mesh) return true;
    return false;
  }

  // KM502 for the top-level targetRef: it selects no proxy of a mesh that has proxies.
  void checkTop(const Policy& p, const std::vector<Policy>& policies) {
    if (!p.top.present || p.top.kind == "Mesh") return;
    if (const AllowedKinds* a = allowedKinds(p.type); a && !contains(a->top, p.top.kind))
      return;  // KM501's
    const model::Resource& r = *p.resource;
    std::string_view mesh = r.mesh;
    const std::vector<Proxy>& ps = proxies(mesh);
    const TargetRef& ref = p.top;
    if (ref.kind == "MeshHTTPRoute") {
      if (!anyOfKind("MeshHTTPRoute", mesh) && ps.empty()) return;
      for (const Policy& route : policies)
        if (route.type == "MeshHTTPRoute" &&
            (ref.name == displayOf(*route.resource) || ref.name == route.resource->name))
          return;  // what the route selects is the route's own problem
      add(Check::TargetMissing, r, ref.node, "name",
          "spec.targetRef names MeshHTTPRoute " + text(ref.name) + ", which is not in mesh " +
              text(mesh) + ": the policy applies to no proxy; fix the name",
          "targetRef");
      return;
    }
    if (ps.empty()) return;
    // Kinds that select workloads' sidecars, in a mesh where the input runs builtin gateways
    // only: the workloads are deployed from elsewhere, and nothing says they do not match.
    if ((ref.kind == "Dataplane" || ref.kind == "MeshService" ||
         ref.kind == "MeshServiceSubset") &&
        std::all_of(ps.begin(), ps.end(), [](const Proxy& proxy) { return proxy.gateway; }))
      return;
    for (const Proxy& proxy : ps)
      if (select(p, proxy, policies, settings_).selected) return;
    std::string scope = "in mesh " + text(mesh);
    if (isApplicationNamespace(p, settings_) &&
        (p.role == Role::Consumer || p.role == Role::WorkloadOwner))
      scope += " and namespace " + text(p.namespace_) + " (a " + text(roleName(p.role)) +
               " policy reaches only its own namespace)";
    yaml::NodeRef map = ref.node;
    std::string_view key = "kind";
    std::string what;
    if (ref.kind == "Dataplane") {
      bool named = ref.name.empty();
      for (const graph::kuma::Dataplane& dp : topology_.dataplanes)
        named = named || (dp.mesh == mesh &&
                          (ref.name == dp.resource->name || ref.name == displayOf(*dp.resource)));
      if (!named) {
        key = "name";
        what = "no Dataplane named " + text(ref.name);
      } else if (!ref.sectionName.empty()) {
        key = "sectionName";
        what = "no Dataplane with an inbound named " + text(ref.sectionName) + " matches";
      } else {
        key = ref.labels.empty() ? "name" : "labels";
        what = "no Dataplane matches it";
      }
    } else if (ref.kind == "MeshGateway") {
      bool named = false;
      for (const graph::kuma::MeshGateway& gw : topology_.gateways)
        named = named || (gw.resource->mesh == mesh &&
                          (ref.name == gw.resource->name || ref.name == displayOf(*gw.resource)));
      key = named && !ref.tags.empty() ? "tags" : "name";
      if (!named)
        what = "no MeshGateway named " + text(ref.name);
      else if (!ref.tags.empty())
        what = "no listener of MeshGateway " + text(ref.name) + " has tags " + tagsText(ref.tags);
      else if (r.label("kuma.io/origin") == "zone" && !p.zone.empty())
        what = "MeshGateway " + text(ref.name) + " is not in zone " + text(p.zone) +
               ", and a policy from a zone names only its zone's objects";
      else
        what = "MeshGateway " + text(ref.name) + " runs on no proxy the policy reaches";
    } else if (ref.kind == "MeshService" || ref.kind == "MeshServiceSubset") {
      key = ref.kind == "MeshService" || ref.tags.empty() ? "name" : "tags";
      what = "no proxy has an inbound with kuma.io/service: " + text(ref.name) +
             (ref.tags.empty() ? "" : " and tags " + tagsText(ref.tags));
    } else if (ref.kind == "MeshSubset") {
      key = "tags";
      what = "no proxy has an inbound with tags " + tagsText(ref.tags);
    } else {
      return;  // kinds KM501 reports
    }
    if (!map.get(key)) key = "kind";
    add(Check::TargetMissing, r, map, key,
        "spec.targetRef (" + text(ref.kind) + ") selects no proxy: " + what + " " + scope +
            "; the policy has no effect, fix the target",
        "targetRef");
  }

  // KM502 for `to` items naming objects: no such object in the mesh, or no such section.
  void checkTo(const Policy& p) {
    const model::Resource& r = *p.resource;
    std::string_view mesh = r.mesh;
    for (const Item& item : p.to) {
      const TargetRef& ref = item.ref;
      if (ref.name.empty()) continue;
      if (const AllowedKinds* a = allowedKinds(p.type); a && !contains(a->to, ref.kind))
        continue;  // KM501's
      std::string_view kind = ref.kind;
      if (kind != "MeshService" && kind != "MeshExternalService" &&
          kind != "MeshMultiZoneService" && kind != "MeshHTTPRoute")
        continue;
      std::string where = "spec.to[" + std::to_string(item.index) + "]";
      std::string disc = "to/" + std::to_string(item.index);
      std::vector<ResolvedTarget> found = resolveTo(p, ref, store_, topology_);
      if (!found.empty()) {
        if (kind == "MeshService" && !ref.sectionName.empty()) checkSection(p, item, found);
        continue;
      }
      if (kind == "MeshService" && !anyOfKind("MeshService", mesh)) {
        // Without MeshService objects in the input, Kuma resolves the name as a
        // kuma.io/service tag, or (Kubernetes) as the MeshService it generates from a Service.
        const std::vector<Proxy>& ps = proxies(mesh);
        if (ps.empty()) continue;
        std::string_view ns = ref.namespace_.empty() ? p.namespace_ : ref.namespace_;
        if (!ns.empty() && store_.find("", "Service", ns, ref.name)) continue;
        bool tagged = false;
        for (const Proxy& proxy : ps)
          for (const Listener& l : listenersOf(proxy))
            tagged = tagged || (l.tags && graph::kuma::tagValue(
                                              *l.tags, graph::kuma::kServiceTag) == ref.name);
        if (tagged) continue;
        add(Check::TargetMissing, r, ref.node, "name",
            where + ".targetRef names MeshService " + text(ref.name) +
                ", but no MeshService of that name is in the input and no proxy of mesh " +
                text(mesh) + " has an inbound tagged kuma.io/service: " + text(ref.name) +
                "; the item configures traffic to nothing, fix the name",
            disc);
        continue;
      }
      if (!anyOfKind(kind, mesh)) continue;
      std::string_view ns = ref.namespace_.empty() ? p.namespace_ : ref.namespace_;
      add(Check::TargetMissing, r, ref.node, "name",
          where + ".targetRef names " + text(kind) + " " + text(ref.name) +
              (ns.empty() ? "" : " in namespace " + text(ns)) + ", which is not in mesh " +
              text(mesh) + "; the item configures traffic to nothing, fix the name" +
              (ref.namespace_.empty() && !p.namespace_.empty()
                   ? " or set `namespace` (it defaults to the policy's)"
                   : ""),
          disc);
    }
  }

  void checkSection(const Policy& p, const Item& item, const std::vector<ResolvedTarget>& found) {
    for (const ResolvedTarget& t : found)
      for (const graph::kuma::MeshService& ms : topology_.services) {
        if (ms.resource != t.resource) continue;
        for (const graph::kuma::ServicePort& port : ms.ports)
          if (port.name == item.ref.sectionName ||
              std::to_string(port.port) == item.ref.sectionName)
            return;
      }
    add(Check::TargetMissing, *p.resource, item.ref.node, "sectionName",
        "spec.to[" + std::to_string(item.index) + "].targetRef.sectionName " +
            text(item.ref.sectionName) + " is no port name or number of MeshService " +
            text(item.ref.name) + "; the item configures traffic to nothing, name one of its ports",
        "to/" + std::to_string(item.index) + "/section");
  }

  // KM508: confs Kuma's validators reject.
  void checkConfs(const Policy& p) {
    if (p.type == "MeshProxyPatch") return;  // raw Envoy configuration, not Kuma's fields
    auto walkItems = [&](const std::vector<Item>& items, std::string_view section) {
      for (const Item& item : items)
        if (item.conf)
          walk(p, item.conf,
               "spec." + text(section) + "[" + std::to_string(item.index) + "]" +
                   (item.wholeEntry ? "" : ".default"));
    };
    walkItems(p.to, "to");
    walkItems(p.from, "from");
    walkItems(p.rules, "rules");
    if (p.single && p.single->conf) walk(p, p.single->conf, "spec.default");
  }

  static bool isEnum(std::string_view value, std::initializer_list<std::string_view> allowed) {
    return std::find(allowed.begin(), allowed.end(), value) != allowed.end();
  }

  void walk(const Policy& p, yaml::NodeRef node, const std::string& path) {
    if (node.isSequence()) {
      std::size_t i = 0;
      for (yaml::NodeRef item : node.items()) walk(p, item, path + "[" + std::to_string(i++) + "]");
      return;
    }
    if (!node.isMapping()) return;
    for (const auto& [k, v] : node.entries()) {
      std::string_view key = k.str();
      std::string field = path + "." + text(key);
      if (v.isMapping() || v.isSequence()) {
        walk(p, v, field);
        continue;
      }
      if (!v.isScalar() || v.isNull()) continue;
      checkScalar(p, node, key, v, field, path);
    }
  }

  void checkScalar(const Policy& p, yaml::NodeRef map, std::string_view key, yaml::NodeRef v,
                   const std::string& field, const std::string& parent) {
    const model::Resource& r = *p.resource;
    std::string_view value = v.str();
    auto bad = [&](std::string message) {
      add(Check::InvalidConf, r, map, key, field + ": " + message, field);
    };
    if (isDurationKey(key)) {
      std::optional<std::string> d = goDuration(value);
      if (!d) {
        bool digits = !value.empty() && std::all_of(value.begin(), value.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-';
        });
        bad(std::string(digits ? "time: missing unit in duration \""
                               : "time: invalid duration \"") +
            text(value) +
            "\"; Kuma refuses the policy, write a Go duration such as 5s, 1m30s or 250ms");
      } else if (!value.empty() && value.front() == '-') {
        bad("must not be negative when defined; Kuma refuses the policy");
      }
      return;
    }
    auto unsupported = [&](std::initializer_list<std::string_view> allowed) {
      if (isEnum(value, allowed)) return;
      std::string list;
      for (std::string_view a : allowed) list += (list.empty() ? "\"" : ", \"") + text(a) + "\"";
      bad("Unsupported value: \"" + text(value) + "\": supported values: " + list +
          "; Kuma refuses the policy");
    };
    if (p.type == "MeshTrafficPermission" && key == "action") {
      unsupported({"Allow", "Deny", "AllowWithShadowDeny"});
      return;
    }
    if (p.type == "MeshHTTPRoute" && key == "type" && parent.ends_with(".path")) {
      unsupported({"Exact", "PathPrefix", "RegularExpression"});
      return;
    }
    if (p.type == "MeshHTTPRoute" && key == "method") {
      unsupported({"CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE"});
      return;
    }
    static constexpr std::array<std::string_view, 3> kPercent{"percentage", "healthyPanicThreshold",
                                                              "maxEjectionPercent"};
    static constexpr std::array<std::string_view, 9> kCounts{
        "numRetries",         "maxConnections",   "maxPendingRequests", "maxRequests", "maxRetries",
        "maxConnectionPools", "healthyThreshold", "unhealthyThreshold", "weight"};
    bool percent = std::find(kPercent.begin(), kPercent.end(), key) != kPercent.end();
    bool count = std::find(kCounts.begin(), kCounts.end(), key) != kCounts.end();
    if (!percent && !count) return;
    double number = 0;
    try {
      std::size_t used = 0;
      number = std::stod(text(value), &used);
      if (used != value.size()) return;  // schema validation reports non-numbers
    } catch (const std::exception&) {
      return;
    }
    if (percent && (number < 0 || number > 100))
      bad("has to be in [0.0 - 100.0] range; Kuma refuses the policy");
    else if (count && number < 0)
      bad("must not be negative; Kuma refuses the policy");
  }

  struct Leaf {
    std::string path;
    yaml::NodeRef map;
    std::string_view key;
    yaml::NodeRef value;
  };

  // The fields a conf sets, as merge patches see them: `append*` lists concatenate, so they
  // never override each other.
  static void leaves(yaml::NodeRef node, const std::string& path, std::vector<Leaf>& out) {
    if (!node.isMapping()) return;
    for (const auto& [k, v] : node.entries()) {
      std::string_view key = k.str();
      if (key.starts_with("append")) continue;
      std::string p = path.empty() ? text(key) : path + "." + text(key);
      if (v.isMapping() && v.size() > 0)
        leaves(v, p, out);
      else
        out.push_back({p, node, key, v});
    }
  }

  // A targetRef as the target it names (a name without namespace: in the policy's).
  static std::string refKey(const Policy& p, const TargetRef& r) {
    std::string_view ns = r.namespace_.empty() && !r.name.empty() ? p.namespace_ : r.namespace_;
    std::string out =
        text(r.kind) + "/" + text(r.name) + "/" + text(ns) + "/" + text(r.sectionName);
    for (const auto& [k, v] : r.tags) out += "/" + text(k) + "=" + text(v);
    for (const auto& [k, v] : r.labels) out += "/" + text(k) + "~" + text(v);
    return out;
  }

  // Where a policy's confs go: the same slot in two policies configures the same thing.
  struct Slot {
    std::string key, where;
    yaml::NodeRef conf;
    yaml::NodeRef entry;  // the mapping holding `default`
  };
  static std::vector<Slot> slotsOf(const Policy& p) {
    std::vector<Slot> out;
    yaml::NodeRef spec = p.resource->spec();
    if (p.single && p.single->conf)
      out.push_back({"default", "spec.default", p.single->conf, spec});
    auto items = [&](const std::vector<Item>& list, std::string_view section) {
      for (const Item& item : list)
        if (item.conf && !item.wholeEntry)
          out.push_back({text(section) + ":" + refKey(p, item.ref),
                         "spec." + text(section) + "[" + std::to_string(item.index) + "].default",
                         item.conf, spec.get(section).at(item.index)});
    };
    items(p.to, "to");
    items(p.from, "from");
    items(p.rules, "rules");
    return out;
  }

  static bool sameRank(const Policy& a, const Policy& b) {
    Policy renamed = a;
    renamed.displayName = b.displayName;
    return !lessByTargetRef(renamed, b) && !lessByTargetRef(b, renamed);
  }

  static std::string valueText(yaml::NodeRef v) {
    if (v.isScalar()) return text(v.str());
    return canonicalText(fromYaml(v, nullptr));
  }

  // The policies selecting each proxy of the mesh (proxies(mesh) order), per type, in Kuma's
  // order; route types, merged by rule matches, left out.
  using ByType = std::map<std::string_view, std::vector<const Policy*>>;
  std::vector<ByType> selections(const std::vector<Policy>& policies) {
    std::vector<ByType> out;
    for (const Proxy& proxy : proxies(policies.front().resource->mesh)) {
      ByType& byType = out.emplace_back();
      for (const Policy& p : policies) {
        if (p.type == "MeshHTTPRoute" || p.type == "MeshTCPRoute") continue;
        if (select(p, proxy, policies, settings_).selected) byType[p.type].push_back(&p);
      }
      for (auto& [type, matched] : byType)
        std::stable_sort(matched.begin(), matched.end(),
                         [](const Policy* a, const Policy* b) { return lessByTargetRef(*a, *b); });
    }
    return out;
  }

  // KM507: per proxy and type, two policies of the same rank (kind, origin, role) whose confs
  // for the same slot set the same field to different values: only their names order them.
  void checkSameRank(const std::vector<Policy>& policies, const std::vector<ByType>& selected) {
    const std::vector<Proxy>& ps = proxies(policies.front().resource->mesh);
    std::set<std::string> seen;
    for (std::size_t k = 0; k < ps.size(); ++k)
      for (const auto& [type, matched] : selected[k])
        for (std::size_t i = 0; i < matched.size(); ++i)
          for (std::size_t j = i + 1; j < matched.size(); ++j)
            if (sameRank(*matched[i], *matched[j]))
              comparePair(*matched[i], *matched[j], ps[k], seen);
  }

  void comparePair(const Policy& a, const Policy& b, const Proxy& proxy,
                   std::set<std::string>& seen) {
    if (a.displayName == b.displayName) return;
    // The smaller name is applied last and wins.
    const Policy& winner = a.displayName < b.displayName ? a : b;
    const Policy& loser = &winner == &a ? b : a;
    std::vector<Slot> loserSlots = slotsOf(loser), winnerSlots = slotsOf(winner);
    for (const Slot& ls : loserSlots)
      for (const Slot& ws : winnerSlots) {
        if (ls.key != ws.key) continue;
        std::vector<Leaf> lost, won;
        leaves(ls.conf, "", lost);
        leaves(ws.conf, "", won);
        for (const Leaf& l : lost)
          for (const Leaf& w : won) {
            if (l.path != w.path || valueText(l.value) == valueText(w.value)) continue;
            std::string disc = text(winner.resource->name) + "/" + ls.where + "/" + l.path;
            if (!seen.insert(text(loser.resource->name) + "|" + disc).second) continue;
            add(Check::SameRank, *loser.resource, l.map, l.key,
                ls.where + "." + l.path + " is also set, at the same rank, by " +
                    winner.resource->display() + ": it sets " + ws.where + "." + w.path +
                    " for proxy " + text(displayOf(*proxy.resource)) +
                    " too, and both policies have the same rank (" + text(loser.top.kind) +
                    " targetRef, " + (loser.fromGlobal ? "global" : "local or zone") + " origin, " +
                    text(roleName(loser.role)) + " role): only their names order them, and " +
                    text(winner.displayName) +
                    " wins (the smaller name is applied last); "
                    "set the field in one policy, or target one of them more specifically",
                disc);
          }
      }
  }

  // KM508: per proxy and type, in Kuma's order, an item (same target) whose every field a
  // later policy of a higher rank sets too; reported when that holds on every proxy the policy
  // selects. Same-rank overrides are KM507's.
  void checkNeverEffective(const std::vector<Policy>& policies,
                           const std::vector<ByType>& selected) {
    struct State {
      bool overridden = true;
      std::string by;  // the last policy that overrode it
    };
    std::map<std::pair<const Policy*, std::string>, State> states;
    for (const ByType& byType : selected) {
      for (const auto& [type, matched] : byType) {
        for (std::size_t i = 0; i < matched.size(); ++i)
          for (const Slot& slot : slotsOf(*matched[i])) {
            State& state = states[{matched[i], slot.key}];
            if (!state.overridden) continue;
            std::vector<Leaf> own;
            leaves(slot.conf, "", own);
            std::set<std::string> open;
            for (const Leaf& l : own) open.insert(l.path);
            std::string by;
            for (std::size_t j = i + 1; j < matched.size() && !open.empty(); ++j) {
              if (sameRank(*matched[i], *matched[j])) continue;
              for (const Slot& later : slotsOf(*matched[j])) {
                if (later.key != slot.key) continue;
                std::vector<Leaf> theirs;
                leaves(later.conf, "", theirs);
                for (const Leaf& l : theirs)
                  if (open.erase(l.path)) by = matched[j]->resource->display();
              }
            }
            if (own.empty() || !open.empty()) {
              state.overridden = false;
            } else {
              state.by = by;
            }
          }
      }
    }
    for (const Policy& p : policies)
      for (const Slot& slot : slotsOf(p)) {
        auto it = states.find({&p, slot.key});
        if (it == states.end() || !it->second.overridden) continue;
        add(Check::NeverEffective, *p.resource, slot.entry, "default",
            slot.where +
                " is never effective, overridden on every proxy: on every proxy the policy "
                "selects, policies later "
                "in Kuma's order (a more specific top-level targetRef, or a later role or "
                "origin) set every field it sets for the same target, last " +
                it->second.by + "; remove it or set only what the others leave",
            slot.where);
      }
  }

  const model::Store& store_;
  const graph::kuma::Topology& topology_;
  const Settings& settings_;
  std::map<std::string_view, std::vector<Proxy>> proxies_;
  std::vector<Problem> out_;
};

}  // namespace

const AllowedKinds* allowedKinds(std::string_view type) {
  for (const AllowedKinds& a : table())
    if (a.type == type) return &a;
  return nullptr;
}

std::vector<Problem> validate(const model::Store& store, const graph::kuma::Topology& topology,
                              const Settings& settings) {
  return Validator(store, topology, settings).run();
}

}  // namespace pg::policy::kuma
