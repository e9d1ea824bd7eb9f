// `explain --format kuma-inspect`: the documents Kuma's Inspect API answers (`_rules`,
// `_resources/dataplanes`, `_dataplanes`, and the `_policies` and `_routes` views), computed by
// lib/policy/kuma and written here.
#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>

#include "lib/model/parallel.h"
#include "lib/policy/kuma/kuma.h"
#include "lib/report/report.h"

namespace pg::report {

namespace {

namespace kuma = policy::kuma;
using nlohmann::json;

json confJson(const kuma::Conf& c) {
  switch (c.type) {
    case kuma::Conf::Type::Null:
      return nullptr;
    case kuma::Conf::Type::Bool:
      return c.scalar == "true";
    case kuma::Conf::Type::Number: {
      if (c.scalar.find_first_of(".eE") == std::string::npos) {
        errno = 0;
        char* end = nullptr;
        long long v = std::strtoll(c.scalar.c_str(), &end, 10);
        if (errno == 0 && end && *end == '\0') return v;
      }
      return std::strtod(c.scalar.c_str(), nullptr);
    }
    case kuma::Conf::Type::String:
      return c.scalar;
    case kuma::Conf::Type::Array: {
      json out = json::array();
      for (const kuma::Conf& item : c.items) out.push_back(confJson(item));
      return out;
    }
    case kuma::Conf::Type::Object: {
      json out = json::object();
      for (const kuma::Conf::Field& f : c.fields) out[f.first] = confJson(f.second);
      return out;
    }
  }
  return nullptr;
}

json labelsJson(const model::Resource& r) {
  json out = json::object();
  for (auto [k, v] : r.labels().entries())
    if (v.isScalar()) out[std::string(k.str())] = std::string(v.str());
  return out;
}

json metaJson(const model::Resource& r) {
  return {{"type", std::string(r.kind)},
          {"mesh", std::string(r.mesh)},
          {"name", std::string(r.name)},
          {"labels", labelsJson(r)}};
}

// A dataplane's meta: a derived proxy is a Dataplane named `name.namespace` (as Kuma's API on
// Kubernetes names it) with the labels Kuma gives it.
json dataplaneMetaJson(const graph::kuma::Dataplane& dp) {
  if (!dp.derived) return metaJson(*dp.resource);
  json labels = json::object();
  for (const auto& [k, v] : dp.labels) labels[std::string(k)] = std::string(v);
  return {{"type", "Dataplane"},
          {"mesh", std::string(dp.mesh)},
          {"name", std::string(dp.name) + "." + std::string(dp.namespace_)},
          {"labels", labels}};
}

// A resource a rule names: a MeshService Kuma generates from a Kubernetes Service is shown as
// that MeshService (named `name.namespace`, as Kuma's API on Kubernetes names it).
json targetMetaJson(const graph::kuma::Topology& topology, const model::Resource& r) {
  const graph::kuma::MeshService* s = kuma::derivedService(topology, r);
  if (!s) return metaJson(r);
  return {{"type", "MeshService"},
          {"mesh", std::string(s->mesh)},
          {"name", std::string(s->name) + "." + std::string(s->namespace_)},
          {"labels",
           {{std::string(graph::kuma::kNamespaceTag), std::string(s->namespace_)},
            {"kuma.io/display-name", std::string(s->name)},
            {"kuma.io/mesh", std::string(s->mesh)}}}};
}

json originsJson(const std::vector<const kuma::Policy*>& origin) {
  json out = json::array();
  for (const kuma::Policy* p : origin) out.push_back(metaJson(*p->resource));
  return out;
}

json ruleOriginsJson(const std::vector<kuma::RuleOrigin>& origin) {
  json out = json::array();
  for (const kuma::RuleOrigin& o : origin)
    out.push_back({{"resourceMeta", metaJson(*o.policy->resource)}, {"ruleIndex", o.ruleIndex}});
  return out;
}

json confsJson(const std::vector<kuma::Conf>& confs) {
  json out = json::array();
  for (const kuma::Conf& c : confs) out.push_back(confJson(c));
  return out;
}

json subsetRulesJson(const std::vector<kuma::SubsetRule>& rules) {
  json out = json::array();
  for (const kuma::SubsetRule& r : rules) {
    json matchers = json::array();
    for (const kuma::Tag& t : r.subset)
      matchers.push_back({{"key", t.key}, {"value", t.value}, {"not", t.negated}});
    out.push_back(
        {{"conf", confJson(r.conf)}, {"matchers", matchers}, {"origin", originsJson(r.origin)}});
  }
  return out;
}

json inboundJson(const kuma::Listener& l) {
  json in = {{"port", l.port}, {"tags", json::object()}};
  if (!l.name.empty()) in["name"] = std::string(l.name);
  if (l.tags)
    for (const auto& [k, v] : *l.tags) in["tags"][std::string(k)] = std::string(v);
  return in;
}

json typeRulesJson(const graph::kuma::Topology& topology, const kuma::TypeRules& tr) {
  json entry = {{"type", tr.type},
                {"toRules", subsetRulesJson(tr.toRules)},
                {"toResourceRules", json::array()},
                {"fromRules", json::array()},
                {"inboundRules", json::array()},
                {"warnings", json::array()}};
  for (const kuma::ResourceRule& r : tr.toResourceRules)
    entry["toResourceRules"].push_back({{"resourceMeta", targetMetaJson(topology, *r.resource)},
                                        {"resourceSectionName", r.section},
                                        {"conf", confsJson(r.conf)},
                                        {"origin", ruleOriginsJson(r.origin)}});
  for (const kuma::FromRules& f : tr.fromRules)
    entry["fromRules"].push_back(
        {{"inbound", inboundJson(f.listener)}, {"rules", subsetRulesJson(f.rules)}});
  for (const kuma::InboundRules& in : tr.inboundRules) {
    json rules = json::array();
    for (const kuma::InboundRules::Rule& r : in.rules)
      rules.push_back({{"conf", confsJson(r.conf)}, {"origin", ruleOriginsJson(r.origin)}});
    entry["inboundRules"].push_back({{"inbound", inboundJson(in.listener)}, {"rules", rules}});
  }
  if (tr.proxyRule)
    entry["proxyRule"] = {{"conf", confJson(tr.proxyRule->conf)},
                          {"origin", originsJson(tr.proxyRule->origin)}};
  return entry;
}

json kriOrigins(const std::vector<const kuma::Policy*>& policies) {
  json out = json::array();
  for (const kuma::Policy* p : policies) out.push_back({{"kri", kuma::kriOf(*p->resource)}});
  return out;
}

void addPolicy(std::vector<const kuma::Policy*>& out, const kuma::Policy* p) {
  if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
}

// kri_<short>_<mesh>_<zone>_<namespace>_<name>_<section>, split; empty when not a KRI.
std::vector<std::string> splitKri(const std::string& kri) {
  std::vector<std::string> parts;
  if (!kri.starts_with("kri_")) return parts;
  std::size_t start = 0;
  while (true) {
    std::size_t next = kri.find('_', start);
    parts.push_back(
        kri.substr(start, next == std::string::npos ? std::string::npos : next - start));
    if (next == std::string::npos) break;
    start = next + 1;
  }
  if (parts.size() != 7) parts.clear();
  return parts;
}

const model::Resource* resourceOfKri(const analysis::Analysis& a,
                                     const std::vector<std::string>& k) {
  for (const model::Resource* object : a.store.objects()) {
    const model::Resource& r = *object;
    if (r.group != "kuma.io" || r.mesh != k[2]) continue;
    if (kuma::kriShortName(r.kind) != k[1] && r.kind != k[1]) continue;
    if (kuma::kriOf(r, k[6]) ==
        k[0] + "_" + k[1] + "_" + k[2] + "_" + k[3] + "_" + k[4] + "_" + k[5] + "_" + k[6])
      return &r;
  }
  // MeshServices generated from Kubernetes Services.
  if (k[1] == "msvc")
    for (const graph::kuma::MeshService& s : a.kuma.services)
      if (s.derived && s.mesh == k[2] &&
          kuma::kriOf(s, k[6]) ==
              k[0] + "_" + k[1] + "_" + k[2] + "_" + k[3] + "_" + k[4] + "_" + k[5] + "_" + k[6])
        return s.resource;
  return nullptr;
}

}  // namespace

void writeKumaInspect(std::ostream& out, const analysis::Analysis& a, const KumaInspectQuery& q) {
  const graph::kuma::Mesh* mesh = a.kuma.mesh(q.mesh);
  if (!mesh) throw KumaInspectError("there is no Mesh " + q.mesh + " in the input");
  kuma::Settings settings;
  settings.systemNamespace = q.systemNamespace;
  std::vector<kuma::Policy> policies = kuma::readPolicies(a.store, q.mesh, settings);

  // The dataplanes a policy or a MeshService selects.
  if (q.kind != "Dataplane" && q.kind != "MeshGateway") {
    std::vector<const graph::kuma::Dataplane*> selected;
    if (q.kind == "MeshService") {
      const graph::kuma::MeshService* ms = nullptr;
      for (const graph::kuma::MeshService& s : a.kuma.services)
        if (s.mesh == q.mesh &&
            (s.name == q.name ||
             (s.derived && std::string(s.name) + "." + std::string(s.namespace_) == q.name)))
          ms = &s;
      if (!ms) throw KumaInspectError("there is no MeshService " + q.name + " in mesh " + q.mesh);
      for (const graph::kuma::Dataplane* dp : a.kuma.selectedBy(*ms)) selected.push_back(dp);
    } else {
      const kuma::Policy* policy = nullptr;
      for (const kuma::Policy& p : policies)
        if (p.type == q.kind && p.resource->name == q.name) policy = &p;
      std::vector<const model::Resource*> legacy = a.store.findInMesh(q.kind, q.mesh, q.name);
      if (!policy && legacy.empty())
        throw KumaInspectError("there is no " + q.kind + " " + q.name + " in mesh " + q.mesh);
      // Each dataplane judged in its own slot, on the analysis's threads.
      const std::size_t n = a.kuma.dataplanes.size();
      std::vector<char> hit(n, 0);
      model::parallelFor(model::workersFor(a.jobs, n, 256), n, [&](std::size_t i, unsigned) {
        const graph::kuma::Dataplane& dp = a.kuma.dataplanes[i];
        if (dp.mesh != q.mesh) return;
        kuma::Proxy proxy{dp.resource, &dp, a.kuma.gatewayOf(dp), dp.gatewayTags};
        hit[i] = policy ? kuma::select(*policy, proxy, policies, settings).selected
                        : kuma::legacySelects(*legacy.front(), dp);
      });
      for (std::size_t i = 0; i < n; ++i)
        if (hit[i]) selected.push_back(&a.kuma.dataplanes[i]);
    }
    json items = json::array();
    for (const graph::kuma::Dataplane* dp : selected) items.push_back(dataplaneMetaJson(*dp));
    out << json{{"items", items}, {"total", selected.size()}}.dump(1) << '\n';
    return;
  }

  kuma::Proxy proxy;
  graph::kuma::Dataplane synthetic;
  if (q.kind == "Dataplane") {
    const graph::kuma::Dataplane* dp = a.kuma.dataplane(q.mesh, q.name);
    if (!dp) throw KumaInspectError("there is no Dataplane " + q.name + " in mesh " + q.mesh);
    proxy = {dp->resource, dp, a.kuma.gatewayOf(*dp), dp->gatewayTags};
  } else {
    const graph::kuma::MeshGateway* gw = a.kuma.gateway(q.mesh, q.name);
    if (!gw) throw KumaInspectError("there is no MeshGateway " + q.name + " in mesh " + q.mesh);
    // Kuma inspects a dataplane with the gateway's meta and its first selector's tags.
    proxy.resource = gw->resource;
    proxy.gateway = gw;
    if (!gw->selectors.empty()) proxy.gatewayTags = gw->selectors.front();
  }
  std::vector<kuma::TypeRules> rules =
      kuma::buildProxyRules(proxy, policies, a.store, a.kuma, settings);

  if (q.view == "rules") {
    json doc = {{"resource",
                 proxy.dataplane ? dataplaneMetaJson(*proxy.dataplane) : metaJson(*proxy.resource)},
                {"httpMatches", json::array()},
                {"rules", json::array()}};
    // A type whose matched policies give no rule at all is left out, as Kuma does.
    for (const kuma::TypeRules& tr : rules)
      if (!tr.toRules.empty() || !tr.toResourceRules.empty() || !tr.fromRules.empty() ||
          !tr.inboundRules.empty() || tr.proxyRule)
        doc["rules"].push_back(typeRulesJson(a.kuma, tr));
    for (const kuma::HttpMatch& m : kuma::httpMatches(rules))
      doc["httpMatches"].push_back({{"hash", m.hash}, {"match", confJson(m.matches)}});
    out << doc.dump(1) << '\n';
    return;
  }
  if (!mesh->exclusive())
    throw KumaInspectError("the " + q.view + " view needs Mesh " + q.mesh +
                           " to have meshServices.mode Exclusive");
  json list = json::array();
  if (q.view == "policies" && q.inbound.empty() && q.outbound.empty()) {
    for (const kuma::TypeRules& tr : rules)
      if (tr.proxyRule)
        list.push_back({{"kind", tr.type},
                        {"conf", confJson(tr.proxyRule->conf)},
                        {"origins", kriOrigins(tr.proxyRule->origin)}});
  } else if (q.view == "policies" && !q.inbound.empty()) {
    std::vector<std::string> k = splitKri(q.inbound);
    if (k.empty()) throw KumaInspectError(q.inbound + " is not a KRI");
    for (const kuma::TypeRules& tr : rules)
      for (const kuma::InboundRules& in : tr.inboundRules) {
        if (in.listener.name != k[6]) continue;
        std::vector<const kuma::Policy*> origins;
        json ruleList = json::array();
        for (const kuma::InboundRules::Rule& r : in.rules)
          for (std::size_t i = 0; i < r.origin.size() && i < r.conf.size(); ++i) {
            addPolicy(origins, r.origin[i].policy);
            ruleList.push_back({{"kri", kuma::kriOf(*r.origin[i].policy->resource)},
                                {"conf", confJson(r.conf[i])}});
          }
        list.push_back({{"kind", tr.type}, {"origins", kriOrigins(origins)}, {"rules", ruleList}});
      }
  } else if (!q.outbound.empty()) {
    std::vector<std::string> k = splitKri(q.outbound);
    if (k.empty()) throw KumaInspectError(q.outbound + " is not a KRI");
    if (!q.route.empty() && splitKri(q.route).empty())
      throw KumaInspectError(q.route + " is not a KRI");
    const model::Resource* target = resourceOfKri(a, k);
    std::vector<std::string> rk = splitKri(q.route);
    const model::Resource* route = q.route.empty() ? nullptr : resourceOfKri(a, rk);
    if (q.view == "routes" && target) {
      for (const kuma::TypeRules& tr : rules) {
        if (tr.type != "MeshHTTPRoute" && tr.type != "MeshTCPRoute") continue;
        std::vector<const kuma::Policy*> origins;
        std::vector<kuma::RouteRule> routeRules = kuma::routeRules(tr, target, k[6], &origins);
        if (origins.empty()) continue;
        json ruleList = json::array();
        for (const kuma::RouteRule& r : routeRules)
          ruleList.push_back({{"kri", r.origin ? kuma::kriOf(*r.origin->resource) : std::string()},
                              {"matches", r.matches ? confJson(*r.matches) : json(nullptr)},
                              {"conf", confJson(r.conf)}});
        list.push_back({{"kind", tr.type}, {"origins", kriOrigins(origins)}, {"rules", ruleList}});
      }
    }
    if (q.view == "policies" && target) {
      for (const kuma::TypeRules& tr : rules) {
        if (tr.type == "MeshHTTPRoute" || tr.type == "MeshTCPRoute") continue;
        kuma::ResourceRule rule;
        // A route's rule, else the outbound's (what the route falls back to).
        if (route) rule = kuma::resourceRule(tr, route, rk[6]);
        if (rule.origin.empty()) rule = kuma::resourceRule(tr, target, k[6]);
        if (rule.origin.empty()) continue;
        std::vector<const kuma::Policy*> origins;
        for (const kuma::RuleOrigin& o : rule.origin) addPolicy(origins, o.policy);
        list.push_back(
            {{"kind", tr.type}, {"conf", confsJson(rule.conf)}, {"origins", kriOrigins(origins)}});
      }
    }
  }
  out << json{{q.view == "routes" ? "routes" : "policies", list}}.dump(1) << '\n';
}

namespace {

struct Leaf {
  std::string field;
  std::string value;
  const kuma::Conf* conf;
};

// Every leaf of a conf (scalars, empty lists and mappings), depth first, as dotted paths with
// list indexes (`rules[0].default.backendRefs[1].weight`).
void leaves(const kuma::Conf& c, const std::string& prefix, std::vector<Leaf>& out) {
  if (c.isObject() && !c.fields.empty()) {
    for (const kuma::Conf::Field& f : c.fields)
      leaves(f.second, prefix.empty() ? f.first : prefix + "." + f.first, out);
    return;
  }
  if (c.type == kuma::Conf::Type::Array && !c.items.empty()) {
    for (std::size_t i = 0; i < c.items.size(); ++i)
      leaves(c.items[i], prefix + "[" + std::to_string(i) + "]", out);
    return;
  }
  out.push_back({prefix, confJson(c).dump(), &c});
}

std::string locationOf(const kuma::Conf& c) {
  if (!c.origin || !c.origin->file) return "Kuma's default";
  return c.origin->file->path + ":" + std::to_string(c.source.start().line) + ":" +
         std::to_string(c.source.start().column);
}

std::string policyName(const model::Resource& r) {
  return std::string(r.kind) + "/" + std::string(r.name);
}

json provenanceJson(const kuma::Conf& conf) {
  std::vector<Leaf> ls;
  leaves(conf, "", ls);
  json out = json::array();
  for (const Leaf& l : ls) {
    json entry = {{"field", l.field}};
    if (l.conf->origin) {
      entry["policy"] = policyName(*l.conf->origin);
      entry["file"] = l.conf->origin->file ? l.conf->origin->file->path : std::string();
      entry["line"] = l.conf->source.start().line;
      entry["column"] = l.conf->source.start().column;
    } else {
      entry["policy"] = "Kuma's default";
    }
    out.push_back(entry);
  }
  return out;
}

// One merged rule of a proxy: what it applies to and its conf.
struct Shown {
  std::string rule;  // proxy, to, from, inbound, resource
  std::string on;
  const kuma::Conf* conf;
};

// What a resource rule is on: `Kind/name[#section]`; a generated MeshService as a MeshService.
std::string resourceText(const graph::kuma::Topology& topology, const kuma::ResourceRule& r) {
  const graph::kuma::MeshService* s = kuma::derivedService(topology, *r.resource);
  std::string text = s ? "MeshService/" + std::string(s->name)
                       : std::string(r.resource->kind) + "/" + std::string(r.resource->name);
  return text + (r.section.empty() ? "" : "#" + r.section);
}

std::vector<Shown> shownRules(const graph::kuma::Topology& topology, const kuma::TypeRules& tr) {
  std::vector<Shown> out;
  if (tr.proxyRule) out.push_back({"proxy", "the whole proxy", &tr.proxyRule->conf});
  for (const kuma::SubsetRule& r : tr.toRules)
    out.push_back({"to", kuma::subsetText(r.subset), &r.conf});
  for (const kuma::ResourceRule& r : tr.toResourceRules)
    for (const kuma::Conf& c : r.conf) out.push_back({"resource", resourceText(topology, r), &c});
  for (const kuma::FromRules& f : tr.fromRules)
    for (const kuma::SubsetRule& r : f.rules)
      out.push_back(
          {"from",
           "port " + std::to_string(f.listener.port) + ", sources " + kuma::subsetText(r.subset),
           &r.conf});
  for (const kuma::InboundRules& in : tr.inboundRules)
    for (const kuma::InboundRules::Rule& r : in.rules)
      for (const kuma::Conf& c : r.conf)
        out.push_back({"inbound", "port " + std::to_string(in.listener.port), &c});
  return out;
}

}  // namespace

namespace {

// explain's Kuma document of one proxy: per type the policies in Kuma's order and the rules.
void writeProxyExplain(std::ostream& out, const analysis::Analysis& a, std::string_view mesh,
                       const kuma::Proxy& proxy, json target, const std::string& display,
                       bool asJson) {
  kuma::Settings settings;
  settings.systemNamespace = a.config.kumaSystemNamespace;
  std::vector<kuma::Policy> policies = kuma::readPolicies(a.store, mesh, settings);
  std::vector<kuma::TypeRules> rules =
      kuma::buildProxyRules(proxy, policies, a.store, a.kuma, settings);
  if (asJson) {
    json doc = {{"target", std::move(target)}, {"policies", json::array()}};
    for (const kuma::TypeRules& tr : rules) {
      json matched = json::array();
      for (const kuma::Policy* p : tr.matched)
        matched.push_back({{"policy", policyName(*p->resource)},
                           {"file", p->resource->file ? p->resource->file->path : std::string()},
                           {"line", p->resource->node.start().line},
                           {"role", std::string(kuma::roleName(p->role))}});
      json shown = json::array();
      for (const Shown& r : shownRules(a.kuma, tr))
        shown.push_back({{"rule", r.rule},
                         {"on", r.on},
                         {"effective", confJson(*r.conf)},
                         {"provenance", provenanceJson(*r.conf)}});
      doc["policies"].push_back({{"kind", tr.type}, {"matched", matched}, {"rules", shown}});
    }
    out << doc.dump(2) << '\n';
    return;
  }
  out << display << '\n';
  if (rules.empty()) out << "  no Kuma policy selects it\n";
  for (const kuma::TypeRules& tr : rules) {
    out << "  " << tr.type << " (in Kuma's order; a later policy wins):\n";
    for (const kuma::Policy* p : tr.matched)
      out << "    " << policyName(*p->resource) << "  "
          << (p->resource->file ? p->resource->file->path : std::string()) << ":"
          << p->resource->node.start().line << "  (" << kuma::roleName(p->role) << ")\n";
    for (const Shown& r : shownRules(a.kuma, tr)) {
      out << "    " << r.rule << " rule on " << r.on << ":\n";
      std::vector<Leaf> ls;
      leaves(*r.conf, "", ls);
      for (const Leaf& l : ls)
        out << "      " << (l.field.empty() ? "(empty)" : l.field) << ": " << l.value << "  <- "
            << (l.conf->origin ? policyName(*l.conf->origin) + " " : std::string())
            << locationOf(*l.conf) << '\n';
    }
  }
}

}  // namespace

namespace {

// The proxy explain shows for a Dataplane or MeshGateway object; nullopt when the topology has
// none by that name.
std::optional<kuma::Proxy> proxyOfTarget(const analysis::Analysis& a,
                                         const model::Resource& target) {
  kuma::Proxy proxy;
  if (target.kind == "Dataplane") {
    const graph::kuma::Dataplane* dp = a.kuma.dataplane(target.mesh, target.name);
    if (!dp) return std::nullopt;
    return kuma::Proxy{dp->resource, dp, a.kuma.gatewayOf(*dp), dp->gatewayTags};
  }
  const graph::kuma::MeshGateway* gw = a.kuma.gateway(target.mesh, target.name);
  if (!gw) return std::nullopt;
  proxy.resource = gw->resource;
  proxy.gateway = gw;
  if (!gw->selectors.empty()) proxy.gatewayTags = gw->selectors.front();
  return proxy;
}

std::vector<std::string> typesMatched(const analysis::Analysis& a, std::string_view mesh,
                                      const kuma::Proxy& proxy) {
  kuma::Settings settings;
  settings.systemNamespace = a.config.kumaSystemNamespace;
  std::vector<kuma::Policy> policies = kuma::readPolicies(a.store, mesh, settings);
  std::vector<std::string> out;
  for (const kuma::TypeRules& tr :
       kuma::buildProxyRules(proxy, policies, a.store, a.kuma, settings))
    if (!tr.matched.empty()) out.push_back(tr.type);
  return out;
}

}  // namespace

void writeKumaExplain(std::ostream& out, const analysis::Analysis& a, const model::Resource& target,
                      bool asJson, const TextOptions& options) {
  (void)options;
  std::optional<kuma::Proxy> proxy = proxyOfTarget(a, target);
  if (!proxy) return;
  json t = {{"kind", std::string(target.kind)},
            {"mesh", std::string(target.mesh)},
            {"name", std::string(target.name)}};
  writeProxyExplain(out, a, target.mesh, *proxy, std::move(t), target.display(), asJson);
}

void writeKumaExplain(std::ostream& out, const analysis::Analysis& a,
                      const graph::kuma::Dataplane& dp, bool asJson, const TextOptions& options) {
  if (!dp.derived) return writeKumaExplain(out, a, *dp.resource, asJson, options);
  kuma::Proxy proxy{dp.resource, &dp, a.kuma.gatewayOf(dp), dp.gatewayTags};
  json t = {{"kind", "Dataplane"},
            {"mesh", std::string(dp.mesh)},
            {"namespace", std::string(dp.namespace_)},
            {"name", std::string(dp.name)},
            {"workload", dp.resource->display()}};
  writeProxyExplain(out, a, dp.mesh, proxy, std::move(t),
                    "Dataplane " + std::string(dp.name) + "." + std::string(dp.namespace_) +
                        " (mesh " + std::string(dp.mesh) + ", derived from " +
                        dp.resource->display() + ")",
                    asJson);
}

std::vector<std::string> kumaPolicyTypes(const analysis::Analysis& a,
                                         const model::Resource& target) {
  std::optional<kuma::Proxy> proxy = proxyOfTarget(a, target);
  return proxy ? typesMatched(a, target.mesh, *proxy) : std::vector<std::string>{};
}

std::vector<std::string> kumaPolicyTypes(const analysis::Analysis& a,
                                         const graph::kuma::Dataplane& dp) {
  if (!dp.derived) return kumaPolicyTypes(a, *dp.resource);
  return typesMatched(a, dp.mesh, {dp.resource, &dp, a.kuma.gatewayOf(dp), dp.gatewayTags});
}

}  // namespace pg::report
