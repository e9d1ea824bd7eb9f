#include "lib/policy/kuma/kuma.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

namespace pg::policy::kuma {

using graph::kuma::readTags;
using graph::kuma::tagsMatch;

std::string_view roleName(Role role) {
  switch (role) {
    case Role::System:
      return "system";
    case Role::Producer:
      return "producer";
    case Role::Consumer:
      return "consumer";
    case Role::WorkloadOwner:
      return "workload-owner";
  }
  return "system";
}

namespace {

// Kinds that describe the mesh rather than configure it: never policies.
bool isTopologyKind(std::string_view kind) {
  static constexpr std::array<std::string_view, 9> kKinds{
      "Mesh",        "Dataplane",           "MeshGateway",          "MeshService",
      "ZoneIngress", "MeshExternalService", "MeshMultiZoneService", "ZoneEgress",
      "MeshIdentity"};
  return std::find(kKinds.begin(), kKinds.end(), kind) != kKinds.end();
}

TargetRef readRef(yaml::NodeRef node) {
  TargetRef ref;
  ref.node = node;
  ref.present = node.isMapping();
  ref.kind = node.get("kind").str();
  if (ref.kind.empty()) ref.kind = "Mesh";  // an empty targetRef means the whole mesh
  ref.name = node.get("name").str();
  ref.namespace_ = node.get("namespace").str();
  ref.sectionName = node.get("sectionName").str();
  ref.tags = readTags(node.get("tags"));
  ref.labels = readTags(node.get("labels"));
  return ref;
}

std::vector<Item> readItems(yaml::NodeRef list, bool withRef) {
  std::vector<Item> out;
  std::size_t i = 0;
  for (yaml::NodeRef entry : list.items()) {
    Item item;
    item.index = i++;
    if (!entry.isMapping()) continue;
    if (withRef) item.ref = readRef(entry.get("targetRef"));
    item.conf = entry.get("default");
    if (!item.conf && entry.get("rules")) {  // routes: the entry without targetRef is the conf
      item.conf = entry;
      item.wholeEntry = true;
    }
    out.push_back(std::move(item));
  }
  return out;
}

int kindOrder(std::string_view kind) {
  static constexpr std::array<std::string_view, 9> kOrder{
      "Mesh",         "Dataplane",           "MeshSubset",           "MeshGateway",
      "MeshService",  "MeshExternalService", "MeshMultiZoneService", "MeshServiceSubset",
      "MeshHTTPRoute"};
  auto it = std::find(kOrder.begin(), kOrder.end(), kind);
  return it == kOrder.end() ? 0 : static_cast<int>(it - kOrder.begin()) + 1;
}

Role deriveRole(const Policy& p, std::string_view systemNamespace) {
  if (std::string_view label = p.resource->label("kuma.io/policy-role"); !label.empty()) {
    if (label == "producer") return Role::Producer;
    if (label == "consumer") return Role::Consumer;
    if (label == "workload-owner") return Role::WorkloadOwner;
    return Role::System;
  }
  // The control plane writes the derived role as the label when it admits a Kubernetes
  // object; a Universal object without the label is a system policy.
  if (p.resource->universal) return Role::System;
  if (p.namespace_.empty() || p.namespace_ == systemNamespace) return Role::System;
  if (p.to.empty()) return Role::WorkloadOwner;
  bool producer = std::all_of(p.to.begin(), p.to.end(), [&](const Item& item) {
    return (item.ref.kind == "MeshService" || item.ref.kind == "MeshHTTPRoute") &&
           !item.ref.name.empty() &&
           (item.ref.namespace_.empty() || item.ref.namespace_ == p.namespace_);
  });
  return producer ? Role::Producer : Role::Consumer;
}

}  // namespace

std::vector<Policy> readPolicies(const model::Store& store, std::string_view mesh,
                                 const Settings& settings) {
  std::vector<Policy> out;
  for (const model::Resource* object : store.objects()) {
    const model::Resource& r = *object;
    if (r.group != "kuma.io" || r.mesh != mesh || isTopologyKind(r.kind)) continue;
    yaml::NodeRef spec = r.spec();
    if (!spec.isMapping()) continue;
    if (!spec.get("targetRef") && !spec.get("to") && !spec.get("from") && !spec.get("rules") &&
        !spec.get("default"))
      continue;
    Policy p;
    p.resource = &r;
    p.type = r.kind;
    p.top = readRef(spec.get("targetRef"));
    p.to = readItems(spec.get("to"), true);
    p.from = readItems(spec.get("from"), true);
    p.rules = readItems(spec.get("rules"), false);
    if (yaml::NodeRef d = spec.get("default"); d && !d.isNull()) {
      Item item;
      item.conf = d;
      p.single = item;
    }
    std::string_view origin = r.label("kuma.io/origin");
    p.fromGlobal = origin == "global";
    p.fromZone = origin == "zone";
    p.namespace_ = graph::kuma::namespaceOf(r);
    p.zone = r.label("kuma.io/zone");
    p.displayName = r.label("kuma.io/display-name");
    if (p.displayName.empty()) p.displayName = r.name;
    p.role = deriveRole(p, settings.systemNamespace);
    out.push_back(std::move(p));
  }
  return out;
}

namespace {

bool lessByPolicy(const Policy& a, const Policy& b, bool gatewayTags) {
  if (int ka = kindOrder(a.top.kind), kb = kindOrder(b.top.kind); ka != kb) return ka < kb;
  if (a.fromGlobal != b.fromGlobal) return a.fromGlobal;
  // Among policies on a MeshGateway, the one naming fewer listener tags comes first.
  if (gatewayTags && a.top.kind == "MeshGateway" && a.top.tags.size() != b.top.tags.size())
    return a.top.tags.size() < b.top.tags.size();
  if (a.role != b.role) return a.role < b.role;
  return a.displayName > b.displayName;
}

}  // namespace

bool lessByTargetRef(const Policy& a, const Policy& b) {
  return lessByPolicy(a, b, true);
}

bool lessByPolicyAttributes(const Policy& a, const Policy& b) {
  return lessByPolicy(a, b, false);
}

std::vector<Listener> listenersOf(const Proxy& proxy) {
  std::vector<Listener> out;
  if (proxy.dataplane)
    for (const graph::kuma::Inbound& in : proxy.dataplane->inbounds)
      if (!in.ignored) out.push_back({in.name, in.address, in.port, &in.tags});
  if (proxy.gateway)
    for (const graph::kuma::GatewayListener& l : proxy.gateway->listeners)
      out.push_back({{},
                     proxy.dataplane ? proxy.dataplane->address : std::string_view(),
                     l.port,
                     &proxy.gatewayTags,
                     true});
  return out;
}

bool legacySelects(const model::Resource& policy, const graph::kuma::Dataplane& dp) {
  yaml::NodeRef body = policy.universal ? policy.node : policy.spec();
  for (yaml::NodeRef selector : body.get("selectors").items()) {
    Tags match = readTags(selector.get("match"));
    for (const graph::kuma::Inbound& in : dp.inbounds)
      if (!in.ignored && tagsMatch(match, in.tags)) return true;
    if (dp.gateway && tagsMatch(match, dp.gatewayTags)) return true;
  }
  return false;
}

namespace {

Tags mergedTags(const Tags& a, const Tags& b) {
  Tags out = a;
  for (const auto& tag : b) {
    auto it =
        std::find_if(out.begin(), out.end(), [&](const auto& t) { return t.first == tag.first; });
    if (it != out.end())
      it->second = tag.second;
    else
      out.push_back(tag);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The tags a listener is selected by: an inbound's, or for a gateway listener the proxy's
// gateway tags, the gateway's and the listener's.
Tags listenerTags(const Proxy& proxy, const Listener& l, std::size_t index,
                  std::size_t firstGatewayListener) {
  if (!l.gateway) return l.tags ? *l.tags : Tags();
  const graph::kuma::GatewayListener& gl = proxy.gateway->listeners[index - firstGatewayListener];
  return mergedTags(mergedTags(proxy.gatewayTags, proxy.gateway->tags), gl.tags);
}

void selectByTags(const Tags& selector, const Proxy& proxy, const std::vector<Listener>& ls,
                  Selection& out) {
  std::size_t firstGateway = 0;
  for (const Listener& l : ls)
    if (!l.gateway) ++firstGateway;
  for (std::size_t i = 0; i < ls.size(); ++i)
    if (tagsMatch(selector, listenerTags(proxy, ls[i], i, firstGateway)))
      out.listeners.push_back(i);
  bool delegated = proxy.dataplane && proxy.dataplane->gateway &&
                   !proxy.dataplane->builtinGateway &&
                   tagsMatch(selector, proxy.dataplane->gatewayTags);
  out.selected = !out.listeners.empty() || delegated;
}

std::string_view displayNameOf(const model::Resource& r) {
  std::string_view display = r.label("kuma.io/display-name");
  return display.empty() ? r.name : display;
}

// Whether `policy` names `target` with `name`: by display name, in the same mesh; a policy
// that originated in a zone names only objects of its own zone.
bool referenced(const Policy& policy, std::string_view name, const model::Resource& target) {
  if (target.mesh != policy.resource->mesh) return false;
  if (name != displayNameOf(target) && name != target.name) return false;
  std::string_view targetZone = target.label("kuma.io/zone");
  if (policy.resource->label("kuma.io/origin") == "zone" && !policy.zone.empty() &&
      !targetZone.empty() && targetZone != policy.zone)
    return false;
  return true;
}

Selection selectRef(const Policy& policy, const TargetRef& ref, const Proxy& proxy,
                    const std::vector<Policy>& policies, int depth) {
  Selection out;
  std::vector<Listener> ls = listenersOf(proxy);
  std::string_view kind = ref.kind;
  if (kind == "Mesh") {
    selectByTags({}, proxy, ls, out);
  } else if (kind == "MeshSubset") {
    selectByTags(ref.tags, proxy, ls, out);
  } else if (kind == "MeshService") {
    selectByTags({{graph::kuma::kServiceTag, ref.name}}, proxy, ls, out);
  } else if (kind == "MeshServiceSubset") {
    Tags tags = mergedTags({{graph::kuma::kServiceTag, ref.name}}, ref.tags);
    selectByTags(tags, proxy, ls, out);
  } else if (kind == "MeshGateway") {
    if (!proxy.gateway || !referenced(policy, ref.name, *proxy.gateway->resource)) return out;
    std::size_t firstGateway = ls.size() - proxy.gateway->listeners.size();
    for (std::size_t i = firstGateway; i < ls.size(); ++i)
      if (tagsMatch(ref.tags, proxy.gateway->listeners[i - firstGateway].tags))
        out.listeners.push_back(i);
    out.selected = !out.listeners.empty();
  } else if (kind == "Dataplane") {
    if (!proxy.dataplane) return out;
    const graph::kuma::Dataplane& dp = *proxy.dataplane;
    std::string_view dpName = graph::kuma::tagValue(dp.labels, "kuma.io/display-name");
    if (dpName.empty()) dpName = dp.name;
    if (!ref.name.empty() && ref.name != dpName && ref.name != dp.name) return out;
    if (!ref.namespace_.empty() &&
        ref.namespace_ != graph::kuma::tagValue(dp.labels, graph::kuma::kNamespaceTag))
      return out;
    if (!ref.labels.empty() && !tagsMatch(ref.labels, dp.labels)) return out;
    for (std::size_t i = 0; i < ls.size(); ++i)
      if (ref.sectionName.empty() || ls[i].name == ref.sectionName) out.listeners.push_back(i);
    out.selected = !out.listeners.empty();
  } else if (kind == "MeshHTTPRoute") {
    if (depth > 4) return out;
    for (const Policy& route : policies)
      if (route.type == "MeshHTTPRoute" && referenced(policy, ref.name, *route.resource))
        return selectRef(route, route.top, proxy, policies, depth + 1);
  }
  return out;
}

}  // namespace

Selection select(const Policy& policy, const Proxy& proxy, const std::vector<Policy>& policies,
                 const Settings& settings) {
  // Namespace MADR: consumer and workload-owner policies of an application namespace reach
  // only the proxies of that namespace.
  if (!policy.namespace_.empty() && policy.namespace_ != settings.systemNamespace &&
      (policy.role == Role::Consumer || policy.role == Role::WorkloadOwner)) {
    const model::Resource& r = *proxy.resource;
    std::string_view proxyNamespace = graph::kuma::namespaceOf(r);
    if (proxyNamespace != policy.namespace_) return {};
  }
  // Zones: a policy that originated in a zone (other than a producer policy) reaches only the
  // proxies (for a builtin gateway: the MeshGateway) of that zone, unless the proxy carries no
  // origin or came from the global control plane.
  if (policy.fromZone && !policy.zone.empty() && policy.role != Role::Producer) {
    const model::Resource& meta = proxy.gateway ? *proxy.gateway->resource : *proxy.resource;
    std::string_view origin = meta.label("kuma.io/origin");
    std::string_view zone = meta.label("kuma.io/zone");
    if (!origin.empty() && origin != "global" && !zone.empty() && zone != policy.zone) return {};
  }
  return selectRef(policy, policy.top, proxy, policies, 0);
}

std::optional<Subset> subsetOf(const TargetRef& ref) {
  Subset s;
  if (ref.kind == "Mesh") return s;
  if (ref.kind == "MeshSubset") {
    for (const auto& [k, v] : ref.tags) s.push_back({std::string(k), std::string(v), false});
    return s;
  }
  if (ref.kind == "MeshService" || ref.kind == "MeshServiceSubset") {
    s.push_back({std::string(graph::kuma::kServiceTag), std::string(ref.name), false});
    if (ref.kind == "MeshServiceSubset")
      for (const auto& [k, v] : ref.tags) s.push_back({std::string(k), std::string(v), false});
    return s;
  }
  return std::nullopt;
}

namespace {

// Whether `other` lies inside `ss` (every point of other is in ss); the empty subset holds all.
bool isSubset(const Subset& ss, const Subset& other) {
  if (ss.empty()) return true;
  for (const Tag& t : ss) {
    bool any = false;
    for (const Tag& o : other) {
      if (o.key != t.key) continue;
      any = true;
      bool ok = t.negated == o.negated ? t.value == o.value : (t.negated && t.value != o.value);
      if (!ok) return false;
    }
    if (!any) return false;
  }
  return true;
}

bool intersect(const Subset& a, const Subset& b) {
  if (a.empty() || b.empty()) return true;
  for (const Tag& t : a) {
    if (t.negated) continue;
    for (const Tag& o : b)
      if (!o.negated && o.key == t.key && o.value != t.value) return false;
  }
  return true;
}

// Maximal cliques (Bron-Kerbosch); each sorted by node.
void cliques(const std::vector<std::vector<bool>>& adj, std::vector<std::size_t> r,
             std::vector<std::size_t> p, std::vector<std::size_t> x,
             std::vector<std::vector<std::size_t>>& out) {
  if (p.empty() && x.empty()) {
    std::sort(r.begin(), r.end());
    out.push_back(r);
    return;
  }
  std::vector<std::size_t> candidates = p;
  for (std::size_t v : candidates) {
    std::vector<std::size_t> r2 = r, p2, x2;
    r2.push_back(v);
    for (std::size_t u : p)
      if (adj[v][u]) p2.push_back(u);
    for (std::size_t u : x)
      if (adj[v][u]) x2.push_back(u);
    cliques(adj, r2, p2, x2, out);
    p.erase(std::find(p.begin(), p.end(), v));
    x.push_back(v);
  }
}

// The maximal cliques of the intersection graph when it has a simple shape, without building
// it: every subset either has no positive tag (it intersects every other) or has exactly one
// tag, positive, on one key all of them share (`kuma.io/service: x`, the common `from` and
// `to` items). Then two items intersect when they name the same value, and the maximal cliques
// are, per value, its items and the universal ones. Nullopt for any other shape.
std::optional<std::vector<std::vector<std::size_t>>> simpleCliques(
    const std::vector<Subset>& subsets) {
  std::vector<std::size_t> universal;
  std::map<std::string_view, std::vector<std::size_t>> byValue;
  std::string_view key;
  for (std::size_t i = 0; i < subsets.size(); ++i) {
    const Subset& ss = subsets[i];
    if (std::none_of(ss.begin(), ss.end(), [](const Tag& t) { return !t.negated; })) {
      universal.push_back(i);
      continue;
    }
    if (ss.size() != 1 || (!key.empty() && ss[0].key != key)) return std::nullopt;
    key = ss[0].key;
    byValue[ss[0].value].push_back(i);
  }
  std::vector<std::vector<std::size_t>> out;
  if (byValue.empty()) {
    if (!universal.empty()) out.push_back(universal);
    return out;
  }
  for (auto& [value, items] : byValue) {
    std::vector<std::size_t> clique = universal;
    clique.insert(clique.end(), items.begin(), items.end());
    std::sort(clique.begin(), clique.end());
    out.push_back(std::move(clique));
  }
  return out;
}

std::string cliqueKey(const std::vector<std::size_t>& c) {
  std::string key;
  for (std::size_t i = 0; i < c.size(); ++i) key += (i ? ":" : "") + std::to_string(c[i]);
  return key;
}

// Every combination of a clique's tags: per key one of its values, or all of them negated; the
// enumeration order is Kuma's (a counter per key, the all-positive combination last).
std::vector<Subset> combinations(const Subset& tags) {
  struct Dim {
    std::string key;
    std::vector<std::string> values;
  };
  std::vector<Dim> dims;
  for (const Tag& t : tags) {
    auto it = std::find_if(dims.begin(), dims.end(), [&](const Dim& d) { return d.key == t.key; });
    if (it == dims.end()) {
      dims.push_back({t.key, {}});
      it = dims.end() - 1;
    }
    if (std::find(it->values.begin(), it->values.end(), t.value) == it->values.end())
      it->values.push_back(t.value);
  }
  std::vector<std::size_t> idx(dims.size(), 0);
  auto current = [&] {
    Subset out;
    for (std::size_t i = 0; i < dims.size(); ++i) {
      const Dim& d = dims[i];
      if (idx[i] == d.values.size()) {
        for (const std::string& v : d.values) out.push_back({d.key, v, true});
      } else {
        out.push_back({d.key, d.values[d.values.size() - idx[i] - 1], false});
      }
    }
    return out;
  };
  std::vector<Subset> out;
  while (true) {
    bool advanced = false;
    for (std::size_t i = 0; i < idx.size(); ++i) {
      if (++idx[i] < dims[i].values.size() + 1) {
        advanced = true;
        break;
      }
      idx[i] = 0;
    }
    out.push_back(current());
    if (!advanced) break;
  }
  return out;
}

std::string canonical(Subset s) {
  std::sort(s.begin(), s.end(), [](const Tag& a, const Tag& b) {
    if (a.key != b.key) return a.key < b.key;
    if (a.value != b.value) return a.value < b.value;
    return !a.negated && b.negated;
  });
  std::string out;
  for (const Tag& t : s) out += t.key + '\0' + t.value + (t.negated ? "\x01" : "\x02");
  return out;
}

std::size_t positives(const Subset& s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](const Tag& t) { return !t.negated; }));
}

void addOrigin(std::vector<const Policy*>& origin, const Policy* p) {
  if (std::find(origin.begin(), origin.end(), p) == origin.end()) origin.push_back(p);
}

}  // namespace

Conf itemConf(const Policy& policy, const Item& item) {
  if (!item.conf) return Conf::object();
  Conf c = fromYaml(item.conf, policy.resource);
  if (item.wholeEntry)
    std::erase_if(c.fields, [](const Conf::Field& f) { return f.first == "targetRef"; });
  return c;
}

Conf mergeAll(const std::vector<const Conf*>& confs) {
  Conf out = Conf::object();
  for (const Conf* c : confs) mergePatch(out, *c);
  return out;
}

namespace {

bool isRouteType(std::string_view type) {
  return type == "MeshHTTPRoute" || type == "MeshTCPRoute";
}

std::string matchesKey(const Conf& rule) {
  const Conf* m = rule.find("matches");
  return m ? canonicalText(*m) : std::string();
}

}  // namespace

Conf mergeRoutes(std::string_view type, const std::vector<const Conf*>& confs,
                 const std::vector<const Policy*>& origins,
                 std::vector<const Policy*>* ruleOrigins) {
  // Kuma merges route `rules` by their matches: an entry whose matches were seen before is
  // patched over the earlier one and moves to the end. HTTP rules of one item are taken last
  // first, and the result is reversed back, so later policies' rules come first.
  const bool http = type == "MeshHTTPRoute";
  Conf out = Conf::object();
  std::vector<Conf> rules;
  std::vector<std::string> keys;  // matchesKey of each of `rules`, worked out once
  std::vector<const Policy*> owner;
  for (std::size_t i = 0; i < confs.size(); ++i) {
    Conf rest = *confs[i];
    std::vector<Conf> entries;
    if (Conf* list = rest.find("rules"); list && list->type == Conf::Type::Array)
      entries = list->items;
    std::erase_if(rest.fields, [](const Conf::Field& f) { return f.first == "rules"; });
    mergePatch(out, rest);
    if (http) std::reverse(entries.begin(), entries.end());
    for (Conf& entry : entries) {
      std::string key = matchesKey(entry);
      auto same = std::find(keys.begin(), keys.end(), key);
      if (same != keys.end()) {
        const auto at = same - keys.begin();
        Conf merged = std::move(rules[at]);
        mergePatch(merged, entry);
        owner.erase(owner.begin() + at);
        rules.erase(rules.begin() + at);
        keys.erase(same);
        entry = std::move(merged);
      }
      rules.push_back(std::move(entry));
      keys.push_back(std::move(key));
      owner.push_back(i < origins.size() ? origins[i] : nullptr);
    }
  }
  if (http) {
    std::reverse(rules.begin(), rules.end());
    std::reverse(owner.begin(), owner.end());
  }
  if (!rules.empty()) {
    Conf list;
    list.type = Conf::Type::Array;
    list.items = std::move(rules);
    out.set("rules", std::move(list));
  }
  if (ruleOrigins) *ruleOrigins = std::move(owner);
  normalize(out, type);
  return out;
}

Conf mergedConf(std::string_view type, const std::vector<const Conf*>& confs) {
  if (isRouteType(type)) return mergeRoutes(type, confs, {}, nullptr);
  return normalized(mergeAll(confs), type);
}

std::vector<Conf> mergedConfs(std::string_view type, const std::vector<const Conf*>& confs) {
  if (type != "MeshHTTPRoute") return {mergedConf(type, confs)};
  // Kuma's `mergeValues` field: MeshHTTPRoute confs group by hostname, in order of first
  // appearance; a conf joins the group of each of its hostnames (with `hostnames` narrowed to
  // that one), a conf without hostnames the group "".
  std::vector<std::string> keys;
  std::vector<std::vector<Conf>> groups;
  for (const Conf* c : confs) {
    std::vector<const Conf*> hostnames;  // the entries, with their source
    const Conf* list = c->find("hostnames");
    if (list && list->type == Conf::Type::Array)
      for (const Conf& v : list->items) hostnames.push_back(&v);
    if (hostnames.empty()) hostnames.push_back(nullptr);
    for (const Conf* hostname : hostnames) {
      std::string key = hostname ? hostname->scalar : std::string();
      auto it = std::find(keys.begin(), keys.end(), key);
      if (it == keys.end()) {
        keys.push_back(key);
        groups.emplace_back();
        it = keys.end() - 1;
      }
      Conf copy = *c;
      if (hostname) {
        Conf narrowed = *list;
        narrowed.items = {*hostname};
        copy.set("hostnames", std::move(narrowed));
      }
      groups[static_cast<std::size_t>(it - keys.begin())].push_back(std::move(copy));
    }
  }
  std::vector<Conf> out;
  for (const std::vector<Conf>& group : groups) {
    std::vector<const Conf*> ptrs;
    for (const Conf& c : group) ptrs.push_back(&c);
    out.push_back(mergedConf(type, ptrs));
  }
  return out;
}

Conf normalized(Conf conf, std::string_view type) {
  normalize(conf, type);
  return conf;
}

std::vector<SubsetRule> buildSubsetRules(
    const std::vector<std::pair<const Policy*, const Item*>>& all, bool withNegations) {
  std::vector<SubsetItem> items;
  for (const auto& [p, item] : all)
    if (auto s = subsetOf(item->ref)) items.push_back({p, item, std::move(*s)});
  return buildSubsetRules(items, withNegations);
}

std::vector<SubsetRule> buildSubsetRules(const std::vector<SubsetItem>& given, bool withNegations) {
  std::vector<std::pair<const Policy*, const Item*>> items;
  std::vector<Subset> subsets;
  std::set<std::string> keys;
  for (const SubsetItem& it : given) {
    items.emplace_back(it.policy, it.item);
    subsets.push_back(it.subset);
    for (const Tag& t : it.subset) keys.insert(t.key);
  }
  std::vector<SubsetRule> rules;
  if (items.empty()) return rules;
  const std::size_t n = items.size();
  std::vector<Conf> confs;
  confs.reserve(n);
  for (const auto& [p, item] : items) confs.push_back(itemConf(*p, *item));
  // The rules of one subset: the merge of every item whose subset holds it (MeshHTTPRoute:
  // one per hostname group, each with the same subset and origin).
  // An item holds a subset only if the subset has the item's positive tags (isSubset), so
  // each item is indexed by its first positive tag, and a subset looks only at the items
  // indexed by one of its own positive tags, and at those without a positive tag: rule
  // building stays near-linear in the items (a MeshTrafficPermission with thousands of `from`
  // entries), and the items are still taken in their order.
  std::unordered_map<std::string, std::vector<std::size_t>> byFirstTag;
  std::vector<std::size_t> withoutPositiveTag;
  auto tagKey = [](const Tag& t) { return t.key + '\0' + t.value; };
  for (std::size_t i = 0; i < n; ++i) {
    auto first = std::find_if(subsets[i].begin(), subsets[i].end(),
                              [](const Tag& t) { return !t.negated; });
    if (first == subsets[i].end())
      withoutPositiveTag.push_back(i);
    else
      byFirstTag[tagKey(*first)].push_back(i);
  }
  auto rulesFor = [&](const Subset& ss, std::vector<SubsetRule>& out) {
    std::vector<std::size_t> candidates = withoutPositiveTag;
    for (const Tag& t : ss)
      if (!t.negated)
        if (auto it = byFirstTag.find(tagKey(t)); it != byFirstTag.end())
          candidates.insert(candidates.end(), it->second.begin(), it->second.end());
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    std::vector<const Conf*> relevant;
    std::vector<const Policy*> origin;
    for (std::size_t i : candidates)
      if (isSubset(subsets[i], ss)) {
        relevant.push_back(&confs[i]);
        addOrigin(origin, items[i].first);
      }
    if (relevant.empty()) return;
    for (Conf& conf : mergedConfs(items[0].first->type, relevant))
      out.push_back(SubsetRule{ss, std::move(conf), origin});
  };
  // Without negations and with at most one tag key (`to` items: the mesh or a service), each
  // distinct subset is a rule of its own, the longer first.
  if (!withNegations && keys.size() <= 1) {
    std::set<std::string> seen;
    for (const Subset& ss : subsets)
      if (seen.insert(canonical(ss)).second) rulesFor(ss, rules);
    std::stable_sort(rules.begin(), rules.end(), [](const SubsetRule& a, const SubsetRule& b) {
      return a.subset.size() > b.subset.size();
    });
    return rules;
  }
  std::vector<std::vector<std::size_t>> groups;
  if (auto simple = simpleCliques(subsets)) {
    groups = std::move(*simple);
  } else {
    std::vector<std::vector<bool>> adj(n, std::vector<bool>(n, false));
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j)
        if (i != j && intersect(subsets[i], subsets[j])) adj[i][j] = true;
    std::vector<std::size_t> nodes(n);
    for (std::size_t i = 0; i < n; ++i) nodes[i] = i;
    cliques(adj, {}, nodes, {}, groups);
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const auto& a, const auto& b) { return cliqueKey(a) > cliqueKey(b); });
  for (const auto& group : groups) {
    Subset tags;
    for (std::size_t node : group)
      for (const Tag& t : subsets[node])
        if (std::find(tags.begin(), tags.end(), t) == tags.end()) tags.push_back(t);
    std::sort(tags.begin(), tags.end(), [](const Tag& a, const Tag& b) {
      return a.key != b.key ? a.key < b.key : a.value < b.value;
    });
    for (Subset& ss : combinations(tags)) rulesFor(ss, rules);
  }
  std::stable_sort(rules.begin(), rules.end(), [](const SubsetRule& a, const SubsetRule& b) {
    return positives(a.subset) > positives(b.subset);
  });
  return rules;
}

std::vector<Conf> routeMatches(const Policy& route, const Item& item) {
  std::vector<Conf> out;
  Conf conf = itemConf(route, item);
  if (const Conf* rules = conf.find("rules"))
    for (const Conf& rule : rules->items)
      if (const Conf* m = rule.find("matches"); m && m->type == Conf::Type::Array)
        out.push_back(*m);
  return out;
}

std::vector<SubsetItem> toSubsetItems(const std::vector<const Policy*>& matched,
                                      const std::vector<Policy>& policies) {
  std::vector<SubsetItem> out;
  for (const Policy* p : matched) {
    const Policy* route = nullptr;
    if (p->top.kind == "MeshHTTPRoute")
      for (const Policy& r : policies)
        if (r.type == "MeshHTTPRoute" && referenced(*p, p->top.name, *r.resource)) route = &r;
    for (const Item& item : p->to) {
      std::optional<Subset> own = subsetOf(item.ref);
      if (!own) continue;
      if (!route) {
        out.push_back({p, &item, std::move(*own)});
        continue;
      }
      // A policy on a route applies to the route's rules: its subset is each rule's
      // destination and the hash of the rule's matches.
      for (const Item& routeItem : route->to) {
        std::optional<Subset> dest = subsetOf(routeItem.ref);
        if (!dest) continue;
        for (const Conf& m : routeMatches(*route, routeItem)) {
          Subset subset = *dest;
          for (const Tag& t : *own)
            if (std::find(subset.begin(), subset.end(), t) == subset.end()) subset.push_back(t);
          subset.push_back({"__rule-matches-hash__", matchesHash(m), false});
          out.push_back({p, &item, std::move(subset)});
        }
      }
    }
  }
  return out;
}

std::vector<ResolvedTarget> resolveTo(const Policy& policy, const TargetRef& ref,
                                      const model::Store& store,
                                      const graph::kuma::Topology& topology) {
  std::vector<ResolvedTarget> out;
  std::string_view mesh = policy.resource->mesh;
  if (ref.kind == "Mesh") {
    if (const graph::kuma::Mesh* m = topology.mesh(mesh)) out.push_back({m->resource, {}});
    return out;
  }
  if (ref.kind != "MeshService" && ref.kind != "MeshExternalService" &&
      ref.kind != "MeshMultiZoneService" && ref.kind != "MeshHTTPRoute")
    return out;
  if (ref.name.empty() && ref.labels.empty()) return out;
  for (const model::Resource* r : store.ofKind(ref.kind)) {
    if (r->group != "kuma.io" || r->mesh != mesh) continue;
    std::string_view display = r->label("kuma.io/display-name");
    if (display.empty()) display = r->name;
    if (!ref.name.empty()) {
      if (ref.name != display && ref.name != r->name) continue;
      std::string_view ns = graph::kuma::namespaceOf(*r);
      std::string_view wanted = ref.namespace_.empty() ? policy.namespace_ : ref.namespace_;
      if (!wanted.empty() && !ns.empty() && ns != wanted) continue;
    } else if (!tagsMatch(ref.labels, readTags(r->labels()))) {
      continue;
    }
    out.push_back({r, std::string(ref.sectionName)});
  }
  // MeshServices Kuma generates from Kubernetes Services, by name in the wanted namespace.
  if (ref.kind == "MeshService" && !ref.name.empty())
    for (const graph::kuma::MeshService& s : topology.services) {
      if (!s.derived || s.mesh != mesh || s.name != ref.name) continue;
      std::string_view wanted = ref.namespace_.empty() ? policy.namespace_ : ref.namespace_;
      if (!wanted.empty() && s.namespace_ != wanted) continue;
      out.push_back({s.resource, std::string(ref.sectionName)});
    }
  return out;
}

namespace {

int targetLevel(const TargetedItem& t) {
  if (t.resource->kind == "Mesh") return 0;
  return t.section.empty() ? 1 : 2;
}

// Whether a rule on `broad` also applies to a resource and section: the whole mesh covers
// everything in it, a resource covers its sections.
bool covers(const TargetedItem& broad, const model::Resource* resource, std::string_view section) {
  if (broad.resource->kind == "Mesh") return true;
  if (broad.resource != resource) return false;
  return broad.section.empty() || broad.section == section;
}

// The `to` items that apply to a resource and section, the least specific first.
std::vector<const TargetedItem*> appliedTo(const TypeRules& rules, const model::Resource* resource,
                                           std::string_view section) {
  std::vector<const TargetedItem*> applied;
  for (const TargetedItem& t : rules.targeted)
    if (covers(t, resource, section)) applied.push_back(&t);
  std::stable_sort(applied.begin(), applied.end(),
                   [](const TargetedItem* a, const TargetedItem* b) {
                     return targetLevel(*a) < targetLevel(*b);
                   });
  return applied;
}

}  // namespace

ResourceRule resourceRule(const TypeRules& rules, const model::Resource* resource,
                          std::string_view section) {
  std::vector<const TargetedItem*> applied = appliedTo(rules, resource, section);
  ResourceRule rule;
  rule.resource = resource;
  rule.section = std::string(section);
  if (applied.empty()) return rule;
  std::vector<Conf> confs;
  for (const TargetedItem* t : applied) {
    confs.push_back(itemConf(*t->policy, *t->item));
    rule.origin.push_back({t->policy, t->item->index});
  }
  std::vector<const Conf*> ptrs;
  for (const Conf& c : confs) ptrs.push_back(&c);
  rule.conf = mergedConfs(rules.type, ptrs);
  return rule;
}

std::vector<TypeRules> buildProxyRules(const Proxy& proxy, const std::vector<Policy>& policies,
                                       const model::Store& store,
                                       const graph::kuma::Topology& topology,
                                       const Settings& settings) {
  std::vector<Listener> ls = listenersOf(proxy);
  std::map<std::string_view, std::vector<std::pair<const Policy*, Selection>>> byType;
  for (const Policy& p : policies) {
    Selection s = select(p, proxy, policies, settings);
    if (s.selected) byType[p.type].emplace_back(&p, std::move(s));
  }
  const graph::kuma::Mesh* mesh =
      topology.mesh(proxy.dataplane ? proxy.dataplane->mesh : proxy.resource->mesh);
  bool exclusive = mesh && mesh->exclusive();
  std::vector<TypeRules> out;
  for (auto& [type, matched] : byType) {
    std::stable_sort(matched.begin(), matched.end(), [](const auto& a, const auto& b) {
      return lessByTargetRef(*a.first, *b.first);
    });
    TypeRules tr;
    tr.type = std::string(type);
    for (const auto& m : matched) tr.matched.push_back(m.first);
    // The proxy rule: every `default:` in order.
    {
      std::vector<Conf> confs;
      ProxyRule rule;
      for (const Policy* p : tr.matched)
        if (p->single) {
          confs.push_back(fromYaml(p->single->conf, p->resource));
          addOrigin(rule.origin, p);
        }
      if (!confs.empty()) {
        std::vector<const Conf*> ptrs;
        for (const Conf& c : confs) ptrs.push_back(&c);
        rule.conf = mergedConf(type, ptrs);
        tr.proxyRule = std::move(rule);
      }
    }
    // `to` rules: tag subsets, and per resource.
    // Resource rules order the policies by their attributes only (no MeshGateway tag count).
    std::vector<const Policy*> byAttributes = tr.matched;
    std::stable_sort(
        byAttributes.begin(), byAttributes.end(),
        [](const Policy* a, const Policy* b) { return lessByPolicyAttributes(*a, *b); });
    std::vector<std::pair<const Policy*, const Item*>> toItems;
    for (const Policy* p : byAttributes)
      for (const Item& item : p->to) toItems.emplace_back(p, &item);
    if (!exclusive) tr.toRules = buildSubsetRules(toSubsetItems(tr.matched, policies), false);
    std::vector<ResolvedTarget> distinct;
    for (const auto& [p, item] : toItems) {
      if (p->top.kind == "MeshHTTPRoute") continue;  // per route rule, not per resource
      for (ResolvedTarget& t : resolveTo(*p, item->ref, store, topology)) {
        if (std::none_of(distinct.begin(), distinct.end(), [&](const ResolvedTarget& d) {
              return d.resource == t.resource && d.section == t.section;
            }))
          distinct.push_back(t);
        tr.targeted.push_back({p, item, t.resource, std::move(t.section)});
      }
    }
    for (const ResolvedTarget& d : distinct)
      tr.toResourceRules.push_back(resourceRule(tr, d.resource, d.section));
    // Per listener: `from` rules and inbound rules, from the policies selecting it. Inbound
    // rules are every `rules:` entry, and the `from` entries on the whole mesh when no policy
    // of the type names a subset of sources, each with its own conf, in policy order.
    for (std::size_t li = 0; li < ls.size(); ++li) {
      std::vector<std::pair<const Policy*, const Item*>> fromItems, inboundItems;
      bool onlyMeshSources = true;
      for (const auto& [p, sel] : matched) {
        if (std::find(sel.listeners.begin(), sel.listeners.end(), li) == sel.listeners.end())
          continue;
        for (const Item& item : p->from) {
          fromItems.emplace_back(p, &item);
          onlyMeshSources = onlyMeshSources && item.ref.kind == "Mesh";
        }
      }
      for (const auto& [p, sel] : matched) {
        if (std::find(sel.listeners.begin(), sel.listeners.end(), li) == sel.listeners.end())
          continue;
        if (onlyMeshSources)
          for (const Item& item : p->from) inboundItems.emplace_back(p, &item);
        for (const Item& item : p->rules) inboundItems.emplace_back(p, &item);
      }
      if (std::vector<SubsetRule> rules = buildSubsetRules(fromItems, true); !rules.empty())
        tr.fromRules.push_back({ls[li], std::move(rules)});
      if (inboundItems.empty()) continue;
      InboundRules entry;
      entry.listener = ls[li];
      for (const auto& [p, item] : inboundItems)
        entry.rules.push_back({{normalized(itemConf(*p, *item), type)}, {{p, item->index}}});
      tr.inboundRules.push_back(std::move(entry));
    }
    out.push_back(std::move(tr));
  }
  return out;
}

std::vector<RouteRule> routeRules(const TypeRules& rules, const model::Resource* resource,
                                  std::string_view section, std::vector<const Policy*>* origins) {
  std::vector<const TargetedItem*> applied = appliedTo(rules, resource, section);
  std::vector<Conf> confs;
  std::vector<const Policy*> policyOf;
  for (const TargetedItem* t : applied) {
    if (origins) addOrigin(*origins, t->policy);
    confs.push_back(itemConf(*t->policy, *t->item));
    policyOf.push_back(t->policy);
  }
  std::vector<const Conf*> ptrs;
  for (const Conf& c : confs) ptrs.push_back(&c);
  std::vector<const Policy*> owners;
  Conf merged = mergeRoutes(rules.type, ptrs, policyOf, &owners);
  std::vector<RouteRule> out;
  const Conf* list = merged.find("rules");
  if (!list) return out;
  const bool tcp = rules.type == "MeshTCPRoute";
  for (std::size_t i = 0; i < list->items.size(); ++i) {
    const Conf& rule = list->items[i];
    RouteRule r;
    if (const Conf* m = rule.find("matches")) r.matches = *m;
    if (const Conf* d = rule.find("default")) r.conf = *d;
    r.origin = tcp || i >= owners.size() ? nullptr : owners[i];
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<HttpMatch> httpMatches(const std::vector<TypeRules>& rules) {
  std::vector<HttpMatch> out;
  for (const TypeRules& tr : rules) {
    if (tr.type != "MeshHTTPRoute") continue;
    for (const Policy* p : tr.matched)
      for (const Item& item : p->to)
        for (Conf& m : routeMatches(*p, item)) {
          std::string hash = matchesHash(m);
          if (std::none_of(out.begin(), out.end(),
                           [&](const HttpMatch& h) { return h.hash == hash; }))
            out.push_back({hash, std::move(m)});
        }
  }
  return out;
}

std::string_view kriShortName(std::string_view type) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 26> kNames{{
      {"Mesh", "m"},
      {"Dataplane", "dp"},
      {"MeshService", "msvc"},
      {"MeshExternalService", "extsvc"},
      {"MeshMultiZoneService", "mzsvc"},
      {"MeshGateway", "mgw"},
      {"MeshAccessLog", "mal"},
      {"MeshCircuitBreaker", "mcb"},
      {"MeshFaultInjection", "mfi"},
      {"MeshHealthCheck", "mhc"},
      {"MeshHTTPRoute", "mhttpr"},
      {"MeshLoadBalancingStrategy", "mlbs"},
      {"MeshMetric", "mm"},
      {"MeshPassthrough", "mp"},
      {"MeshProxyPatch", "mpp"},
      {"MeshRateLimit", "mrl"},
      {"MeshRetry", "mr"},
      {"MeshTCPRoute", "mtcpr"},
      {"MeshTimeout", "mt"},
      {"MeshTLS", "mtls"},
      {"MeshTrace", "mtr"},
      {"MeshTrafficPermission", "mtp"},
      {"MeshIdentity", "mid"},
      {"MeshTrust", "mtrust"},
      {"HostnameGenerator", "hg"},
      {"ZoneIngress", "zi"},
  }};
  for (const auto& [k, v] : kNames)
    if (k == type) return v;
  return {};
}

std::string subsetText(const Subset& subset) {
  if (subset.empty()) return "everything";
  std::string out;
  for (const Tag& t : subset)
    out += (out.empty() ? "" : ", ") + t.key + (t.negated ? "!=" : "=") + t.value;
  return out;
}

std::string kriOf(const model::Resource& r, std::string_view section) {
  std::string_view display = r.label("kuma.io/display-name");
  if (display.empty()) display = r.name;
  std::string_view ns = graph::kuma::namespaceOf(r);
  std::string out = "kri_";
  std::string_view shortName = kriShortName(r.kind);
  out += shortName.empty() ? std::string(r.kind) : std::string(shortName);
  out += "_" + std::string(r.mesh) + "_" + std::string(r.label("kuma.io/zone")) + "_" +
         std::string(ns) + "_" + std::string(display) + "_" + std::string(section);
  return out;
}

std::string kriOf(const graph::kuma::MeshService& s, std::string_view section) {
  if (!s.derived) return kriOf(*s.resource, section);
  return "kri_msvc_" + std::string(s.mesh) + "__" + std::string(s.namespace_) + "_" +
         std::string(s.name) + "_" + std::string(section);
}

const graph::kuma::MeshService* derivedService(const graph::kuma::Topology& topology,
                                               const model::Resource& resource) {
  if (!resource.group.empty() || resource.kind != "Service") return nullptr;
  for (const graph::kuma::MeshService& s : topology.services)
    if (s.derived && s.resource == &resource) return &s;
  return nullptr;
}

}  // namespace pg::policy::kuma
