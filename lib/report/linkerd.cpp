// `explain` on a workload: what Linkerd's policy controller serves its proxy for each inbound
// port, as LINKERD.md's JSON document or as a tree naming where each part came from.
#include "lib/report/linkerd.h"

#include "lib/policy/linkerd/access.h"
#include "lib/report/common.h"

namespace pg::report::detail {

namespace {

namespace ld = policy::linkerd;

Json refJson(std::string_view kind, std::string_view name) {
  return {{"kind", kind}, {"name", name}};
}

Json networksJson(const std::vector<ld::Network>& networks) {
  Json out = Json::array();
  for (const ld::Network& n : networks) {
    Json except = Json::array();
    for (const model::Cidr& e : n.except) except.push_back(e.str());
    out.push_back({{"net", n.net.str()}, {"except", except}});
  }
  return out;
}

Json authorizationJson(const ld::Authorization& a) {
  Json authentication = {{"kind", ld::authenticationName(a.authentication)}};
  if (a.authentication == ld::AuthenticationKind::TlsAuthenticated) {
    Json ids = Json::array();
    for (const ld::IdentityMatch& id : a.identities) {
      if (id.exact)
        ids.push_back({{"exact", id.name}});
      else
        ids.push_back({{"suffix", id.suffix}});
    }
    authentication["identities"] = ids;
  }
  return {{"ref", refJson(a.kind, a.name)},
          {"networks", networksJson(a.networks)},
          {"authentication", authentication}};
}

Json authorizationsJson(const ld::Authorizations& list) {
  Json out = Json::array();
  for (const ld::Authorization& a : list) out.push_back(authorizationJson(a));
  return out;
}

Json valueMatchesJson(const std::vector<ld::StringMatch>& list) {
  Json out = Json::array();
  for (const ld::StringMatch& m : list) out.push_back({{"name", m.name}, {m.kind, m.value}});
  return out;
}

Json headerModifierJson(const ld::HeaderModifier& h) {
  auto pairs = [](const std::vector<std::pair<std::string, std::string>>& list) {
    Json out = Json::array();
    for (const auto& [name, value] : list) out.push_back({{"name", name}, {"value", value}});
    return out;
  };
  return {{"add", pairs(h.add)}, {"set", pairs(h.set)}, {"remove", h.remove}};
}

Json filterJson(const ld::Filter& f) {
  switch (f.kind) {
    case ld::Filter::Kind::RequestHeaderModifier:
      return {{"requestHeaderModifier", headerModifierJson(f.headers)}};
    case ld::Filter::Kind::ResponseHeaderModifier:
      return {{"responseHeaderModifier", headerModifierJson(f.headers)}};
    case ld::Filter::Kind::RequestRedirect: {
      Json r = Json::object();
      if (!f.scheme.empty()) r["scheme"] = f.scheme;
      if (!f.hostname.empty()) r["hostname"] = f.hostname;
      if (f.path) r["path"] = {{f.path->kind, f.path->value}};
      if (f.port) r["port"] = *f.port;
      if (f.statusCode) r["statusCode"] = *f.statusCode;
      return {{"requestRedirect", r}};
    }
  }
  return Json::object();
}

Json routeJson(const ld::InboundRoute& r) {
  Json ref = Json::object();
  if (!r.isDefault()) ref["group"] = r.group;
  ref["kind"] = r.kind;
  ref["name"] = r.name;
  Json rules = Json::array();
  for (const ld::RouteRule& rule : r.rules) {
    Json matches = Json::array();
    for (const ld::HttpMatch& m : rule.httpMatches) {
      Json j = Json::object();
      if (m.path) j["path"] = {{m.path->kind, m.path->value}};
      if (!m.headers.empty()) j["headers"] = valueMatchesJson(m.headers);
      if (!m.queryParams.empty()) j["queryParams"] = valueMatchesJson(m.queryParams);
      if (!m.method.empty()) j["method"] = m.method;
      matches.push_back(std::move(j));
    }
    for (const ld::GrpcMatch& m : rule.grpcMatches) {
      Json j = Json::object();
      if (m.hasMethod) {
        Json method = Json::object();
        if (!m.service.empty()) method["service"] = m.service;
        if (!m.method.empty()) method["method"] = m.method;
        j["method"] = method;
      }
      if (!m.headers.empty()) j["headers"] = valueMatchesJson(m.headers);
      matches.push_back(std::move(j));
    }
    Json filters = Json::array();
    for (const ld::Filter& f : rule.filters) filters.push_back(filterJson(f));
    rules.push_back({{"matches", matches}, {"filters", filters}});
  }
  return {{"ref", ref},
          {"hostnames", r.hostnames},
          {"rules", rules},
          {"authorizations", authorizationsJson(r.authorizations)}};
}

Json routesJson(const ld::InboundRoutes& list) {
  Json out = Json::array();
  for (const ld::InboundRoute& r : list) out.push_back(routeJson(r));
  return out;
}

std::string whereIs(const model::Resource* r) {
  if (!r || !r->file) return {};
  return r->display() + "  " + position(r->locateField(r->metadata(), "name"));
}

}  // namespace

Json linkerdInboundJson(const ld::WorkloadInbound& inbound) {
  Json ports = Json::array();
  for (const ld::InboundPort& p : inbound.ports) {
    ports.push_back({{"port", p.port},
                     {"server", refJson(p.server ? "Server" : "default", p.serverName)},
                     {"protocol", p.protocol},
                     {"authorizations", authorizationsJson(p.authorizations)},
                     {"httpRoutes", routesJson(p.httpRoutes)},
                     {"grpcRoutes", routesJson(p.grpcRoutes)}});
  }
  return {{"inbound", ports}};
}

void linkerdComments(const ld::WorkloadInbound& inbound,
                     std::map<std::string, std::string, std::less<>>& comments) {
  auto sourcesText = [](const ld::Authorization& a) {
    std::string text;
    for (const model::Resource* r : a.sources) text += (text.empty() ? "" : ", ") + r->display();
    return text;
  };
  auto authorizations = [&](const ld::Authorizations& list, const std::string& at) {
    for (std::size_t i = 0; i < list.size(); ++i)
      if (!list[i].sources.empty())
        comments[at + "[" + std::to_string(i) + "].ref.name"] = "from " + sourcesText(list[i]);
  };
  for (std::size_t i = 0; i < inbound.ports.size(); ++i) {
    const ld::InboundPort& p = inbound.ports[i];
    const std::string port = "inbound[" + std::to_string(i) + "]";
    if (p.server) comments[port + ".server.name"] = "from " + p.server->display();
    authorizations(p.authorizations, port + ".authorizations");
    for (const auto& [list, key] :
         {std::pair{&p.httpRoutes, "httpRoutes"}, std::pair{&p.grpcRoutes, "grpcRoutes"}}) {
      for (std::size_t r = 0; r < list->size(); ++r) {
        const ld::InboundRoute& route = (*list)[r];
        const std::string at = port + "." + key + "[" + std::to_string(r) + "]";
        if (route.resource) comments[at + ".ref.name"] = "from " + route.resource->display();
        authorizations(route.authorizations, at + ".authorizations");
      }
    }
  }
}

void writeLinkerdText(std::ostream& out, const ld::WorkloadInbound& inbound,
                      const Injection* injection, bool color) {
  auto bold = [&](const std::string& s) { return color ? "\033[1m" + s + "\033[0m" : s; };
  auto dim = [&](const std::string& s) { return color ? "\033[2m" + s + "\033[0m" : s; };
  out << '\n' << bold("Linkerd inbound") << '\n';
  if (injection && injection->injected)
    out << "  injected: " << injection->why << '\n';
  else if (injection)
    out << "  not injected (" << injection->why
        << "): without a proxy nothing below is enforced; it is what Linkerd's policy "
           "controller would serve one\n";
  if (inbound.ports.empty()) out << "  no inbound port\n";
  auto authorizations = [&](const ld::Authorizations& list, const std::string& indent) {
    if (list.empty()) out << indent << "authorizations: none (denies every request)\n";
    for (const ld::Authorization& a : list) {
      out << indent << "authorization " << a.kind << "/" << a.name << ": "
          << ld::authenticationName(a.authentication);
      if (!a.identities.empty()) out << " as " << ld::identitiesText(a.identities);
      out << " from " << ld::networksText(a.networks) << '\n';
      for (const model::Resource* source : a.sources)
        out << indent << "  " << dim("from " + whereIs(source)) << '\n';
    }
  };
  for (const ld::InboundPort& p : inbound.ports) {
    out << "port " << p.port << ": "
        << (p.server ? "Server " + p.serverName : "default policy " + p.serverName) << ", "
        << p.protocol << '\n';
    if (p.server) out << "  " << dim("from " + whereIs(p.server)) << '\n';
    authorizations(p.authorizations, "  ");
    for (const auto* list : {&p.httpRoutes, &p.grpcRoutes}) {
      for (const ld::InboundRoute& r : *list) {
        out << "  " << (list == &p.httpRoutes ? "HTTP" : "gRPC") << " route "
            << (r.isDefault() ? "default/" + r.name : r.kind + "/" + r.name) << ": ";
        out << ld::routeMatchesText(r) << '\n';
        if (r.resource) out << "    " << dim("from " + whereIs(r.resource)) << '\n';
        if (!r.authorizations.empty() || r.resource) authorizations(r.authorizations, "    ");
      }
    }
  }
}

}  // namespace pg::report::detail
