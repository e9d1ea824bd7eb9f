// The service-mesh part of `policygraph diff`: Kuma proxies' merged configuration field by
// field, and the inbound policy Linkerd serves each port of the workloads it injects, in words.
#include "lib/diff/mesh.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "lib/policy/kuma/kuma.h"
#include "lib/policy/linkerd/access.h"

namespace pg::diff {

namespace {

namespace kuma = policy::kuma;
namespace ld = policy::linkerd;

// --- Kuma ------------------------------------------------------------------------------

struct KumaLeaf {
  std::string text;
  const model::Resource* origin = nullptr;  // null: Kuma's default
  yaml::NodeRef source;
};

// proxy, policy type, section, field
using KumaKey = std::tuple<std::string, std::string, std::string, std::string>;

std::string scalarText(const kuma::Conf& c) {
  switch (c.type) {
    case kuma::Conf::Type::Null:
      return "null";
    case kuma::Conf::Type::Array:
      return "[]";
    case kuma::Conf::Type::Object:
      return "{}";
    case kuma::Conf::Type::String:
      return c.scalar.empty() ? "\"\"" : c.scalar;
    default:
      return c.scalar;
  }
}

void confLeaves(const kuma::Conf& c, const std::string& field, std::vector<std::string>& fields,
                std::vector<const kuma::Conf*>& confs) {
  if (c.isObject() && !c.fields.empty()) {
    for (const kuma::Conf::Field& f : c.fields)
      confLeaves(f.second, field.empty() ? f.first : field + "." + f.first, fields, confs);
    return;
  }
  if (c.type == kuma::Conf::Type::Array && !c.items.empty()) {
    for (std::size_t i = 0; i < c.items.size(); ++i)
      confLeaves(c.items[i], field + "[" + std::to_string(i) + "]", fields, confs);
    return;
  }
  fields.push_back(field);
  confs.push_back(&c);
}

// Each merged rule of one policy type with the name explain gives it (`rule on`).
std::vector<std::pair<std::string, const kuma::Conf*>> sectionsOf(const kuma::TypeRules& tr) {
  std::vector<std::pair<std::string, const kuma::Conf*>> out;
  if (tr.proxyRule) out.emplace_back("proxy", &tr.proxyRule->conf);
  for (const kuma::SubsetRule& r : tr.toRules)
    out.emplace_back("to " + kuma::subsetText(r.subset), &r.conf);
  for (const kuma::ResourceRule& r : tr.toResourceRules)
    for (const kuma::Conf& c : r.conf)
      out.emplace_back("resource " + std::string(r.resource->kind) + "/" +
                           std::string(r.resource->name) +
                           (r.section.empty() ? "" : "#" + r.section),
                       &c);
  for (const kuma::FromRules& f : tr.fromRules)
    for (const kuma::SubsetRule& r : f.rules)
      out.emplace_back("from port " + std::to_string(f.listener.port) + ", sources " +
                           kuma::subsetText(r.subset),
                       &r.conf);
  for (const kuma::InboundRules& in : tr.inboundRules)
    for (const kuma::InboundRules::Rule& r : in.rules)
      for (const kuma::Conf& c : r.conf)
        out.emplace_back("inbound port " + std::to_string(in.listener.port), &c);
  return out;
}

void addProxy(const analysis::Analysis& a, const kuma::Proxy& proxy, const std::string& name,
              const std::vector<kuma::Policy>& policies, const kuma::Settings& settings,
              std::map<KumaKey, KumaLeaf>& out) {
  for (const kuma::TypeRules& tr :
       kuma::buildProxyRules(proxy, policies, a.store, a.kuma, settings)) {
    std::map<std::string, int> seen;  // a section named twice is numbered from its second
    for (const auto& [section, conf] : sectionsOf(tr)) {
      int n = ++seen[section];
      std::string key = n == 1 ? section : section + " (" + std::to_string(n) + ")";
      std::vector<std::string> fields;
      std::vector<const kuma::Conf*> leaves;
      confLeaves(*conf, "", fields, leaves);
      for (std::size_t i = 0; i < fields.size(); ++i)
        out.emplace(KumaKey{name, std::string(tr.type), key, fields[i]},
                    KumaLeaf{scalarText(*leaves[i]), leaves[i]->origin, leaves[i]->source});
    }
  }
}

std::map<KumaKey, KumaLeaf> kumaLeaves(const analysis::Analysis& a) {
  std::map<KumaKey, KumaLeaf> out;
  if (a.kuma.dataplanes.empty() && a.kuma.gateways.empty()) return out;
  kuma::Settings settings;
  settings.systemNamespace = a.config.kumaSystemNamespace;
  std::map<std::string, std::vector<kuma::Policy>, std::less<>> byMesh;
  auto policiesOf = [&](std::string_view mesh) -> const std::vector<kuma::Policy>& {
    auto it = byMesh.find(mesh);
    if (it == byMesh.end())
      it = byMesh.emplace(std::string(mesh), kuma::readPolicies(a.store, mesh, settings)).first;
    return it->second;
  };
  for (const graph::kuma::Dataplane& dp : a.kuma.dataplanes)
    addProxy(a, {dp.resource, &dp, a.kuma.gatewayOf(dp), dp.gatewayTags}, dp.resource->display(),
             policiesOf(dp.mesh), settings, out);
  for (const graph::kuma::MeshGateway& gw : a.kuma.gateways) {
    kuma::Proxy proxy;
    proxy.resource = gw.resource;
    proxy.gateway = &gw;
    if (!gw.selectors.empty()) proxy.gatewayTags = gw.selectors.front();
    addProxy(a, proxy, gw.resource->display(), policiesOf(gw.resource->mesh), settings, out);
  }
  return out;
}

std::string originName(const KumaLeaf& leaf) {
  return leaf.origin ? leaf.origin->display() : "Kuma's default";
}

model::Location locationOf(const KumaLeaf& leaf) {
  return leaf.origin ? leaf.origin->locate(leaf.source) : model::Location{};
}

// --- Linkerd ---------------------------------------------------------------------------

// `<sa>.<ns>.serviceaccount.identity.<domain>` is a ServiceAccount's identity.
std::string identityText(const ld::IdentityMatch& id) {
  if (!id.exact) {
    if (id.suffix.empty()) return "any meshed identity";
    if (id.suffix.size() > 3 && id.suffix[1] == "serviceaccount" && id.suffix[2] == "identity")
      return "any ServiceAccount of namespace " + id.suffix[0];
    std::string text = "*";
    for (const std::string& l : id.suffix) text += "." + l;
    return "identities " + text;
  }
  std::vector<std::string_view> labels;
  std::string_view rest = id.name;
  for (std::size_t dot; (dot = rest.find('.')) != std::string_view::npos;
       rest.remove_prefix(dot + 1))
    labels.push_back(rest.substr(0, dot));
  labels.push_back(rest);
  if (labels.size() > 4 && labels[2] == "serviceaccount" && labels[3] == "identity")
    return "ServiceAccount " + std::string(labels[1]) + "/" + std::string(labels[0]);
  return "identity " + id.name;
}

std::string clientsText(const ld::Authorization& a) {
  std::string who;
  switch (a.authentication) {
    case ld::AuthenticationKind::Unauthenticated:
      who = "unauthenticated clients";
      break;
    case ld::AuthenticationKind::TlsUnauthenticated:
      who = "meshed clients of any identity";
      break;
    case ld::AuthenticationKind::TlsAuthenticated:
      for (const ld::IdentityMatch& id : a.identities)
        who += (who.empty() ? "" : ", ") + identityText(id);
      if (who.empty()) who = "no identity";
      break;
  }
  bool everywhere =
      a.networks.size() == 2 &&
      std::all_of(a.networks.begin(), a.networks.end(), [](const ld::Network& n) {
        return n.except.empty() && (n.net.str() == "0.0.0.0/0" || n.net.str() == "::/0");
      });
  return who + " from " + (everywhere ? "any address" : ld::networksText(a.networks));
}

std::string authorizationName(const ld::Authorization& a) {
  return a.kind == "default" ? "default policy " + a.name : a.kind + "/" + a.name;
}

std::string serverText(const ld::InboundPort& p) {
  return p.server ? "Server " + std::string(p.server->name) : "the default policy " + p.serverName;
}

std::string routeName(const ld::InboundRoute& r) {
  return r.kind + "/" + r.name;
}

model::Location placeOf(const model::Resource* r) {
  return r ? r->locate({}) : model::Location{};
}

struct PortSides {
  const ld::InboundPort* base = nullptr;
  const ld::InboundPort* head = nullptr;
  const model::Resource* baseWorkload = nullptr;
  const model::Resource* headWorkload = nullptr;
};

// workload, port
using PortKey = std::pair<std::string, std::int64_t>;

void collectPorts(const analysis::Analysis& a, bool head, std::map<PortKey, PortSides>& out) {
  for (const ld::WorkloadInbound& w : a.linkerd.workloads) {
    if (w.ports.empty() || !ld::injected(a.store, *w.workload, nullptr)) continue;
    for (const ld::InboundPort& p : w.ports) {
      PortSides& s = out[{w.workload->display(), p.port}];
      (head ? s.head : s.base) = &p;
      (head ? s.headWorkload : s.baseWorkload) = w.workload;
    }
  }
}

std::string whoText(const ld::Authorization& a, const std::vector<ld::IdentityMatch>& ids) {
  ld::Authorization only = a;
  only.identities = ids;
  return clientsText(only);
}

// Authorizations added and removed, `prefix` naming where (a route) when not the whole port.
// One that stays, by name, with other identities says which it admits now or no longer.
void compareAuthorizations(const ld::Authorizations& before, const ld::Authorizations& after,
                           const std::string& prefix, const model::Resource* fallback,
                           std::vector<LinkerdChange>& out, const LinkerdChange& base) {
  std::map<std::string, const ld::Authorization*> was, now;
  for (const ld::Authorization& a : before) was.emplace(authorizationName(a), &a);
  for (const ld::Authorization& a : after) now.emplace(authorizationName(a), &a);
  auto add = [&](std::string words, const model::Resource* at) {
    LinkerdChange c = base;
    c.change = prefix + std::move(words);
    c.at = placeOf(at);
    out.push_back(std::move(c));
  };
  for (const ld::Authorization& a : before)
    if (!now.count(authorizationName(a)))
      add("no longer admits " + clientsText(a) + " (" + authorizationName(a) + ")", fallback);
  for (const ld::Authorization& a : after) {
    const std::string name = authorizationName(a);
    const model::Resource* at = a.sources.empty() ? fallback : a.sources.front();
    auto it = was.find(name);
    if (it == was.end()) {
      add("now admits " + clientsText(a) + " (" + name + ")", at);
      continue;
    }
    const ld::Authorization& old = *it->second;
    if (clientsText(old) == clientsText(a)) continue;
    if (old.authentication != a.authentication ||
        ld::networksText(old.networks) != ld::networksText(a.networks) ||
        a.authentication != ld::AuthenticationKind::TlsAuthenticated) {
      add(name + " admits " + clientsText(a) + " instead of " + clientsText(old), at);
      continue;
    }
    auto missing = [](const std::vector<ld::IdentityMatch>& from,
                      const std::vector<ld::IdentityMatch>& in) {
      std::vector<ld::IdentityMatch> out;
      for (const ld::IdentityMatch& id : from)
        if (std::none_of(in.begin(), in.end(), [&](const ld::IdentityMatch& o) {
              return identityText(o) == identityText(id);
            }))
          out.push_back(id);
      return out;
    };
    if (auto added = missing(a.identities, old.identities); !added.empty())
      add("now admits " + whoText(a, added) + " (" + name + ")", at);
    if (auto removed = missing(old.identities, a.identities); !removed.empty())
      add("no longer admits " + whoText(a, removed) + " (" + name + ")", at);
  }
  if (!before.empty() && after.empty())
    add("no authorization admits any client any more: every request is denied", fallback);
}

void compareRoutes(const ld::InboundRoutes& before, const ld::InboundRoutes& after,
                   const model::Resource* fallback, std::vector<LinkerdChange>& out,
                   const LinkerdChange& base) {
  // The default and probe routes come with the default policy; the Server change says it.
  std::map<std::string, const ld::InboundRoute*> was, now;
  for (const ld::InboundRoute& r : before)
    if (!r.isDefault()) was.emplace(routeName(r), &r);
  for (const ld::InboundRoute& r : after)
    if (!r.isDefault()) now.emplace(routeName(r), &r);
  for (const auto& [name, r] : was) {
    if (now.count(name)) continue;
    LinkerdChange c = base;
    c.change = "route " + name + " no longer serves " + ld::routeMatchesText(*r);
    c.at = placeOf(fallback);
    out.push_back(std::move(c));
  }
  for (const auto& [name, r] : now) {
    LinkerdChange c = base;
    auto it = was.find(name);
    if (it == was.end()) {
      c.change = "route " + name + " now serves " + ld::routeMatchesText(*r);
      c.at = placeOf(r->resource);
      out.push_back(std::move(c));
      continue;
    }
    if (ld::routeMatchesText(*it->second) != ld::routeMatchesText(*r)) {
      c.change = "route " + name + " serves " + ld::routeMatchesText(*r) + " instead of " +
                 ld::routeMatchesText(*it->second);
      c.at = placeOf(r->resource);
      out.push_back(std::move(c));
    }
    compareAuthorizations(it->second->authorizations, r->authorizations, "on route " + name + ": ",
                          r->resource, out, base);
  }
}

void comparePort(const PortKey& key, const PortSides& s, std::vector<LinkerdChange>& out) {
  LinkerdChange base;
  base.workload = key.first;
  base.port = key.second;
  const model::Resource* workload = s.headWorkload ? s.headWorkload : s.baseWorkload;
  static const ld::InboundPort none;
  const ld::InboundPort& b = s.base ? *s.base : none;
  const ld::InboundPort& h = s.head ? *s.head : none;
  if (!s.base || !s.head) {
    LinkerdChange c = base;
    c.change = s.head ? "now served by Linkerd: " + serverText(h) + ", " + h.protocol
                      : "no longer served by Linkerd (was " + serverText(b) + ")";
    c.at = placeOf(s.head && h.server ? h.server : workload);
    out.push_back(std::move(c));
  } else {
    if (serverText(b) != serverText(h)) {
      LinkerdChange c = base;
      c.change = "served by " + serverText(h) + " instead of " + serverText(b);
      c.at = placeOf(h.server ? h.server : workload);
      out.push_back(std::move(c));
    }
    if (b.protocol != h.protocol) {
      LinkerdChange c = base;
      c.change = "protocol " + h.protocol + " instead of " + b.protocol;
      c.at = placeOf(h.server ? h.server : workload);
      out.push_back(std::move(c));
    }
  }
  const model::Resource* fallback = h.server ? h.server : workload;
  compareAuthorizations(b.authorizations, h.authorizations, "", fallback, out, base);
  compareRoutes(b.httpRoutes, h.httpRoutes, fallback, out, base);
  compareRoutes(b.grpcRoutes, h.grpcRoutes, fallback, out, base);
}

}  // namespace

std::vector<KumaChange> compareKuma(const analysis::Analysis& base,
                                    const analysis::Analysis& head) {
  std::map<KumaKey, KumaLeaf> before = kumaLeaves(base);
  std::map<KumaKey, KumaLeaf> after = kumaLeaves(head);
  std::set<KumaKey> keys;
  for (const auto& [key, leaf] : before) keys.insert(key);
  for (const auto& [key, leaf] : after) keys.insert(key);
  std::vector<KumaChange> out;
  for (const KumaKey& key : keys) {
    auto b = before.find(key);
    auto h = after.find(key);
    const KumaLeaf* was = b == before.end() ? nullptr : &b->second;
    const KumaLeaf* now = h == after.end() ? nullptr : &h->second;
    if (was && now && was->text == now->text && originName(*was) == originName(*now)) continue;
    KumaChange c;
    std::tie(c.proxy, c.policyType, c.section, c.field) = key;
    if (was) {
      c.before = was->text;
      c.beforeFrom = originName(*was);
    }
    if (now) {
      c.after = now->text;
      c.afterFrom = originName(*now);
    }
    c.at = locationOf(now ? *now : *was);
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<LinkerdChange> compareLinkerd(const analysis::Analysis& base,
                                          const analysis::Analysis& head) {
  std::map<PortKey, PortSides> ports;
  collectPorts(base, false, ports);
  collectPorts(head, true, ports);
  std::vector<LinkerdChange> out;
  for (const auto& [key, sides] : ports) comparePort(key, sides, out);
  return out;
}

std::vector<const model::Resource*> meshPolicies(const analysis::Analysis& a) {
  std::vector<const model::Resource*> out;
  std::set<std::string_view> meshes;
  for (const model::Resource* object : a.store.objects()) {
    const model::Resource& r = *object;
    if (r.group == ld::kPolicyGroup) out.push_back(&r);
    if (r.group == "kuma.io" && !r.mesh.empty()) meshes.insert(r.mesh);
  }
  kuma::Settings settings;
  settings.systemNamespace = a.config.kumaSystemNamespace;
  for (std::string_view mesh : meshes)
    for (const kuma::Policy& p : kuma::readPolicies(a.store, mesh, settings))
      out.push_back(p.resource);
  return out;
}

}  // namespace pg::diff
