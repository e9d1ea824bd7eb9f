// Linkerd's proxy deciding one request or connection, over the InboundPort the policy
// controller served (LINKERD.md). Route precedence is the proxy's: the route's best host match
// (none, then wildcard, then exact; longer first), then within the route the rule's best match by
// the length of path matched (an exact or regex match counts the whole path, a prefix its own
// length), then method, header count and query parameter count (gRPC: service and method
// lengths, then headers); a tie goes to the earlier route, rule and match.
#include "lib/policy/linkerd/access.h"

#include <re2/re2.h>

#include <algorithm>
#include <tuple>

#include "lib/graph/workloads.h"
#include "lib/policy/linkerd/strings.h"

namespace pg::policy::linkerd {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string_view trimSlashes(std::string_view s) {
  while (!s.empty() && s.back() == '/') s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> labels(std::string_view name) {
  std::vector<std::string_view> out;
  while (true) {
    std::size_t dot = name.find('.');
    out.push_back(name.substr(0, dot));
    if (dot == std::string_view::npos) return out;
    name.remove_prefix(dot + 1);
  }
}

// A full match with RE2, the engine and syntax Linkerd's proxy matches regexes with; it runs in
// time linear in the text, so no pattern in a repository can hang the tool. A pattern RE2 cannot
// compile matches nothing (Linkerd's admission refuses it, LD606).
bool regexFullMatch(const std::string& pattern, const std::string& text) {
  RE2::Options options;
  options.set_log_errors(false);
  RE2 re(pattern, options);
  return re.ok() && RE2::FullMatch(text, re);
}

bool valueMatches(const StringMatch& m, const std::string& value) {
  return m.kind == "regex" ? regexFullMatch(m.value, value) : value == m.value;
}

bool headersMatch(const std::vector<StringMatch>& wanted, const AccessRequest& request) {
  for (const StringMatch& h : wanted) {
    bool found = false;
    for (const auto& [name, value] : request.headers)
      found = found || (detail::equalsIgnoringCase(name, h.name) && valueMatches(h, value));
    if (!found) return false;
  }
  return true;
}

bool queryMatches(const std::vector<StringMatch>& wanted, const AccessRequest& request) {
  for (const StringMatch& q : wanted) {
    bool found = false;
    for (const auto& [name, value] : request.query)
      found = found || (name == q.name && valueMatches(q, value));
    if (!found) return false;
  }
  return true;
}

// Specificity of a match within a route: greater wins.
using Rank = std::tuple<std::size_t, std::size_t, std::size_t, std::size_t>;

std::optional<Rank> httpMatch(const HttpMatch& m, const AccessRequest& request) {
  std::size_t length = 1;  // no path: prefix `/`
  if (m.path) {
    const StringMatch& p = *m.path;
    if (p.kind == "exact") {
      if (request.path != p.value) return std::nullopt;
      length = p.value.size();
    } else if (p.kind == "regex") {
      if (!regexFullMatch(p.value, request.path)) return std::nullopt;
      length = request.path.size();
    } else {
      if (!pathPrefixMatches(p.value, request.path)) return std::nullopt;
      length = p.value == "/" ? 1 : trimSlashes(p.value).size();
    }
  }
  if (!m.method.empty() && m.method != request.method) return std::nullopt;
  if (!headersMatch(m.headers, request) || !queryMatches(m.queryParams, request))
    return std::nullopt;
  return Rank{length, m.method.empty() ? 0 : 1, m.headers.size(), m.queryParams.size()};
}

std::optional<Rank> grpcMatch(const GrpcMatch& m, std::string_view service, std::string_view method,
                              const AccessRequest& request) {
  if (m.hasMethod) {
    if (!m.service.empty() && m.service != service) return std::nullopt;
    if (!m.method.empty() && m.method != method) return std::nullopt;
  }
  if (!headersMatch(m.headers, request)) return std::nullopt;
  return Rank{m.service.size(), m.method.size(), m.headers.size(), 0};
}

// How well a route's hostnames match the host: (0, 0) without hostnames, (1, length) for a
// wildcard, (2, length) for an exact name; nullopt when none matches.
std::optional<std::pair<int, std::size_t>> hostRank(const std::vector<std::string>& hostnames,
                                                    std::string_view host) {
  if (hostnames.empty()) return std::pair<int, std::size_t>{0, 0};
  std::optional<std::pair<int, std::size_t>> best;
  for (const std::string& h : hostnames) {
    if (host.empty() || !hostnameMatches(h, host)) continue;
    std::pair<int, std::size_t> rank{h.rfind("*.", 0) == 0 ? 1 : 2,
                                     h.rfind("*.", 0) == 0 ? h.size() - 1 : h.size()};
    if (!best || rank > *best) best = rank;
  }
  return best;
}

}  // namespace

std::string matchText(const HttpMatch& m) {
  std::string out = m.method.empty() ? "any method" : m.method;
  out += m.path ? " " + m.path->kind + " " + m.path->value : " any path";
  for (const StringMatch& h : m.headers) out += ", header " + h.name + " " + h.kind + " " + h.value;
  for (const StringMatch& q : m.queryParams)
    out += ", query " + q.name + " " + q.kind + " " + q.value;
  return out;
}

std::string matchText(const GrpcMatch& m) {
  std::string out = (m.service.empty() ? std::string("any service") : m.service) + "/" +
                    (m.method.empty() ? std::string("any method") : m.method);
  for (const StringMatch& h : m.headers) out += ", header " + h.name + " " + h.kind + " " + h.value;
  return out;
}

namespace {

struct Found {
  const InboundRoute* route = nullptr;
  const RouteRule* rule = nullptr;
  AccessRoute report;
};

std::optional<Found> findRoute(const InboundRoutes& routes, bool grpc, const AccessRequest& request,
                               std::vector<std::string>& notes) {
  std::string_view service, method;
  if (grpc) {
    std::string_view path = request.path;
    std::size_t slash = path.rfind('/');
    service = path.substr(1, slash == 0 ? 0 : slash - 1);
    method = path.substr(slash + 1);
  }
  std::optional<Found> best;
  std::optional<std::tuple<std::pair<int, std::size_t>, Rank>> bestRank;
  for (const InboundRoute& route : routes) {
    std::optional<std::pair<int, std::size_t>> host = hostRank(route.hostnames, request.host);
    if (!host) {
      std::string names;
      for (const std::string& h : route.hostnames) names += (names.empty() ? "" : ", ") + h;
      notes.push_back(
          route.kind + "/" + route.name + " serves only the hostnames " + names +
          (request.host.empty() ? " and no --host was given" : ", not " + request.host));
      continue;
    }
    for (std::size_t r = 0; r < route.rules.size(); ++r) {
      const RouteRule& rule = route.rules[r];
      auto consider = [&](std::optional<Rank> rank, std::optional<std::size_t> index,
                          std::string text) {
        if (!rank) return;
        std::tuple<std::pair<int, std::size_t>, Rank> full{*host, *rank};
        if (bestRank && !(full > *bestRank)) return;
        bestRank = full;
        best = Found{
            &route,
            &rule,
            {{route.kind, route.name, route.resource}, route.group, r, index, std::move(text)}};
      };
      std::size_t count = grpc ? rule.grpcMatches.size() : rule.httpMatches.size();
      if (count == 0)
        consider(grpc ? Rank{0, 0, 0, 0} : Rank{1, 0, 0, 0}, std::nullopt, "any request");
      for (std::size_t i = 0; i < count; ++i) {
        if (grpc)
          consider(grpcMatch(rule.grpcMatches[i], service, method, request), i,
                   matchText(rule.grpcMatches[i]));
        else
          consider(httpMatch(rule.httpMatches[i], request), i, matchText(rule.httpMatches[i]));
      }
    }
  }
  return best;
}

bool loopback(const model::Cidr& address) {
  static const model::Cidr v4 = *model::Cidr::parse("127.0.0.1/32");
  static const model::Cidr v6 = *model::Cidr::parse("::1/128");
  return v4.contains(address) || v6.contains(address);
}

bool overlaps(const model::Cidr& a, const model::Cidr& b) {
  return a.contains(b) || b.contains(a);
}

}  // namespace

std::string routeMatchesText(const InboundRoute& route) {
  std::string out;
  for (const RouteRule& rule : route.rules) {
    for (const HttpMatch& m : rule.httpMatches) out += (out.empty() ? "" : "; ") + matchText(m);
    for (const GrpcMatch& m : rule.grpcMatches) out += (out.empty() ? "" : "; ") + matchText(m);
  }
  return out.empty() ? "every request" : out;
}

std::string networkText(const Network& n) {
  std::string out = n.net.str();
  for (std::size_t i = 0; i < n.except.size(); ++i)
    out += (i ? ", " : " except ") + n.except[i].str();
  return out;
}

std::string networksText(const std::vector<Network>& list) {
  std::string out;
  for (const Network& n : list) out += (out.empty() ? "" : " or ") + networkText(n);
  return out.empty() ? "no network" : out;
}

std::string cidrsText(const std::vector<model::Cidr>& list) {
  std::string out;
  for (const model::Cidr& c : list) out += (out.empty() ? "" : ", ") + c.str();
  return out;
}

namespace {

// Whether the networks admit the client's address (or, unknown, every address it may have).
Admits networksAdmit(const std::vector<Network>& networks, const AccessClient& client,
                     std::string& reason) {
  if (client.address) {
    const model::Cidr& address = *client.address;
    for (const Network& n : networks) {
      if (!n.net.contains(address)) continue;
      auto hit = std::find_if(n.except.begin(), n.except.end(),
                              [&](const model::Cidr& e) { return e.contains(address); });
      if (hit == n.except.end()) return Admits::Yes;
      reason = "the address " + address.str() + " is in the exception " + hit->str() + " of " +
               n.net.str();
      return Admits::No;
    }
    reason = "the address " + address.str() + " is outside " + networksText(networks);
    return Admits::No;
  }
  bool all = true, any = false;
  for (const model::Cidr& c : client.assumedNetworks) {
    bool full = false, partial = false;
    for (const Network& n : networks) {
      if (!overlaps(n.net, c)) continue;
      bool cut = std::any_of(n.except.begin(), n.except.end(),
                             [&](const model::Cidr& e) { return overlaps(e, c); });
      if (n.net.contains(c) && !cut) full = true;
      partial = true;
    }
    all = all && full;
    any = any || partial;
  }
  if (all && !client.assumedNetworks.empty()) return Admits::Yes;
  if (!any) {
    reason = "a client address in the cluster networks (" + cidrsText(client.assumedNetworks) +
             ") is outside " + networksText(networks);
    return Admits::No;
  }
  std::vector<Network> inCluster;
  for (const Network& n : networks)
    if (std::any_of(client.assumedNetworks.begin(), client.assumedNetworks.end(),
                    [&](const model::Cidr& c) { return overlaps(n.net, c); }))
      inCluster.push_back(n);
  reason = "admits only if the client's address is in " + networksText(inCluster);
  return Admits::Depends;
}

}  // namespace

std::string identitiesText(const std::vector<IdentityMatch>& ids) {
  std::string out;
  for (const IdentityMatch& id : ids) {
    std::string text = id.name;
    if (!id.exact) {
      text = "*";
      for (const std::string& l : id.suffix) text += "." + l;
    }
    out += (out.empty() ? "" : ", ") + text;
  }
  return out;
}

namespace {

// Whether the authentication an authorization requires refuses the client, and why (`why` only
// when `explain`).
bool refusedByAuthentication(const Authorization& a, const AccessClient& client, bool explain,
                             std::string& why) {
  switch (a.authentication) {
    case AuthenticationKind::Unauthenticated:
      return false;
    case AuthenticationKind::TlsUnauthenticated:
      if (client.meshed) return false;
      if (explain) why = "requires mesh TLS and the client is not meshed";
      return true;
    case AuthenticationKind::TlsAuthenticated:
      if (!client.meshed) {
        if (explain)
          why = "requires a mesh identity (" + identitiesText(a.identities) +
                ") and the client is not meshed";
        return true;
      }
      if (std::any_of(a.identities.begin(), a.identities.end(),
                      [&](const IdentityMatch& m) { return identityMatches(m, client.identity); }))
        return false;
      if (explain)
        why = "the identity " + client.identity + " matches none of " +
              (a.identities.empty() ? std::string("(no identity)") : identitiesText(a.identities));
      return true;
  }
  return false;
}

// One authorization against the client. Without `explain`, only `admits` and, when it
// depends on the address, `reason` (what `condition` is made of) are filled.
AccessAuthorization evaluate(const Authorization& a, std::string_view level,
                             const AccessClient& client, bool explain) {
  AccessAuthorization out;
  std::string why;
  bool refused = refusedByAuthentication(a, client, explain, why);
  std::string netWhy;
  Admits net = networksAdmit(a.networks, client, netWhy);
  out.admits = refused ? Admits::No : net;
  if (!explain) {
    if (out.admits == Admits::Depends) {
      out.ref = {a.kind, a.name, a.sources.empty() ? nullptr : a.sources.front()};
      out.reason = std::move(netWhy);
    }
    return out;
  }
  out.ref = {a.kind, a.name, a.sources.empty() ? nullptr : a.sources.front()};
  out.level = std::string(level);
  out.sources = a.sources;
  out.authentication = std::string(authenticationName(a.authentication));
  if (refused)
    out.reason = why + (net == Admits::No ? "; " + netWhy : "");
  else
    out.reason =
        net == Admits::Yes ? out.authentication + " from " + networksText(a.networks) : netWhy;
  return out;
}

std::string display(const AccessSource& s) {
  return s.kind + "/" + s.name;
}

// The route's authorizations (`routeLevel` of them), then the server's, then the proxy's own
// for localhost. Without `explain`, the first that admits ends the search.
void authorize(AccessResult& result, const Authorizations* route, const Authorizations& server,
               const AccessClient& client, bool explain) {
  auto consider = [&](const Authorization& a, std::string_view level) {
    result.considered.push_back(evaluate(a, level, client, explain));
    const AccessAuthorization& c = result.considered.back();
    if (c.admits == Admits::Yes && !result.authorization) result.authorization = c;
    return !explain && result.authorization;
  };
  if (route)
    for (const Authorization& a : *route)
      if (consider(a, "route")) return;
  for (const Authorization& a : server)
    if (consider(a, "server")) return;
  if (client.address) {
    AccessAuthorization local;
    local.ref = {"default", "localhost", nullptr};
    local.level = "proxy";
    local.authentication = "unauthenticated";
    local.admits = loopback(*client.address) ? Admits::Yes : Admits::No;
    local.reason = local.admits == Admits::Yes
                       ? "the proxy admits every connection from localhost"
                       : "the address " + client.address->str() + " is not localhost";
    result.considered.push_back(local);
    if (local.admits == Admits::Yes && !result.authorization) result.authorization = local;
  }
  if (result.authorization) return;
  for (const AccessAuthorization& c : result.considered)
    if (c.admits == Admits::Depends)
      result.condition +=
          (result.condition.empty() ? "allowed only if the client's address is in " : " or ") +
          c.reason.substr(c.reason.find(" is in ") + 7) + " (" + display(c.ref) + ")";
}

void denialAdvice(AccessResult& result, const AccessClient& client, const std::string& target) {
  if (!result.condition.empty())
    result.advice.push_back(
        "give the client's address with --from-ip to decide; this answer is the worst case");
  if (std::none_of(result.considered.begin(), result.considered.end(),
                   [](const AccessAuthorization& c) { return c.level != "proxy"; }))
    result.advice.push_back("nothing authorizes " + target +
                            ": add an AuthorizationPolicy targeting it");
  bool tls = std::any_of(
      result.considered.begin(), result.considered.end(),
      [](const AccessAuthorization& c) { return c.authentication != "unauthenticated"; });
  if (!client.meshed && tls)
    result.advice.push_back(
        "mesh the client (annotation linkerd.io/inject: enabled on its pod template or "
        "namespace) so it presents a mesh identity");
  if (client.meshed)
    result.advice.push_back("to allow it, add an AuthorizationPolicy targeting " + target +
                            " whose MeshTLSAuthentication names " + client.identity +
                            " (or add it to an existing one listed above)");
  else
    result.advice.push_back("to allow it without mesh TLS, add an AuthorizationPolicy targeting " +
                            target + " with a NetworkAuthentication covering the client's address");
}

const Filter* redirectOf(const RouteRule& rule) {
  for (const Filter& f : rule.filters)
    if (f.kind == Filter::Kind::RequestRedirect) return &f;
  return nullptr;
}

}  // namespace

bool identityMatches(const IdentityMatch& match, std::string_view identity) {
  if (match.exact) return match.name == identity;
  if (match.suffix.empty()) return true;
  std::vector<std::string_view> have = labels(identity);
  if (have.size() <= match.suffix.size()) return false;
  return std::equal(match.suffix.rbegin(), match.suffix.rend(), have.rbegin());
}

bool pathPrefixMatches(std::string_view prefix, std::string_view path) {
  if (prefix == "/") return true;
  prefix = trimSlashes(prefix);
  path = trimSlashes(path);
  if (path.substr(0, prefix.size()) != prefix) return false;
  return path.size() == prefix.size() || path[prefix.size()] == '/';
}

bool hostnameMatches(std::string_view pattern, std::string_view host) {
  std::size_t colon = host.rfind(':');
  if (colon != std::string_view::npos && host.find(']') == std::string_view::npos)
    host = host.substr(0, colon);  // the port
  std::string h = lower(host), p = lower(pattern);
  if (!h.empty() && h.back() == '.' && (p.empty() || p.back() != '.')) h.pop_back();
  if (p.rfind("*.", 0) == 0) {
    std::string_view suffix = std::string_view(p).substr(1);  // `.example.com`
    return h.size() > suffix.size() &&
           h.compare(h.size() - suffix.size(), suffix.size(), suffix) == 0;
  }
  return h == p;
}

AccessResult decideAccess(const InboundPort& port, const AccessClient& client,
                          const AccessRequest& given, AccessDetail detail) {
  const bool explain = detail == AccessDetail::Full;
  AccessResult result;
  result.family = "linkerd";
  result.server = {port.server ? "Server" : "default", port.serverName, port.server};
  result.protocol = port.protocol;
  const std::string serverText =
      port.server ? "Server/" + port.serverName : "the default policy " + port.serverName;
  const bool grpc = port.protocol == "gRPC";
  const bool opaque = port.protocol == "Opaque" || port.protocol == "TLS";
  if (opaque || (port.protocol == "Detect" && !given.http)) {
    if (opaque && given.http)
      result.notes.push_back("the port is " + port.protocol +
                             ": the proxy does not read HTTP on it, the request is not looked "
                             "at; the connection is authorized by the server");
    if (!opaque)
      result.notes.push_back(
          "no --request: a connection that is not HTTP, authorized by the server");
    authorize(result, nullptr, port.authorizations, client, explain);
    result.decision = result.authorization ? AccessDecision::Allowed : AccessDecision::Refused;
    if (!result.authorization && explain) denialAdvice(result, client, serverText);
    return result;
  }
  AccessRequest request = given;
  if (!request.http) {
    request = *parseAccessRequest("GET /");
    result.notes.push_back("no --request: assumed GET /");
  }
  std::optional<Found> found =
      findRoute(grpc ? port.grpcRoutes : port.httpRoutes, grpc, request, result.notes);
  if (!found) {
    result.decision = AccessDecision::NoRoute;
    result.status = 404;
    if (grpc) result.grpcStatus = "UNIMPLEMENTED";
    if (!explain) return result;
    std::string names;
    for (const InboundRoute& r : grpc ? port.grpcRoutes : port.httpRoutes)
      names += (names.empty() ? "" : ", ") + r.kind + "/" + r.name;
    result.advice.push_back("no route of " + serverText + " matches " + request.text +
                            (names.empty()
                                 ? " (it has no " + std::string(grpc ? "gRPC" : "HTTP") + " route)"
                                 : " (routes: " + names + ")") +
                            ": add a rule matching it to a route whose parent is " + serverText);
    return result;
  }
  result.route = found->report;
  authorize(result, &found->route->authorizations, port.authorizations, client, explain);
  if (!result.authorization) {
    result.decision = AccessDecision::Unauthorized;
    result.status = 403;
    if (grpc) result.grpcStatus = "PERMISSION_DENIED";
    if (explain)
      denialAdvice(result, client,
                   found->route->isDefault()
                       ? serverText
                       : found->route->kind + "/" + found->route->name + " or " + serverText);
    return result;
  }
  if (const Filter* redirect = redirectOf(*found->rule)) {
    result.decision = AccessDecision::Redirect;
    result.status = static_cast<int>(redirect->statusCode.value_or(302));
    return result;
  }
  result.decision = AccessDecision::Allowed;
  result.status = 200;
  if (grpc) result.grpcStatus = "OK";
  return result;
}

bool injected(const model::Store& store, const model::Resource& workload, std::string* why) {
  std::optional<graph::Workload> w = graph::workloadOf(workload);
  if (!w) return false;
  std::string_view pod = w->annotations.get("linkerd.io/inject").str();
  if (!pod.empty()) {
    if (why) *why = "linkerd.io/inject: " + std::string(pod) + " on the pod template";
    return pod == "enabled" || pod == "ingress";
  }
  if (const model::Resource* ns = store.find("", "Namespace", "", w->namespace_)) {
    std::string_view value = ns->annotation("linkerd.io/inject");
    if (!value.empty()) {
      if (why)
        *why =
            "linkerd.io/inject: " + std::string(value) + " on Namespace " + std::string(ns->name);
      return value == "enabled" || value == "ingress";
    }
  }
  if (why) *why = "no linkerd.io/inject annotation on the pod template or its Namespace";
  return false;
}

AccessClient workloadClient(const model::Store& store, const model::Resource& workload,
                            const config::LinkerdSettings& settings) {
  AccessClient c;
  c.display = workload.display();
  c.resource = &workload;
  c.meshed = injected(store, workload, &c.meshedBecause);
  c.assumedNetworks = settings.clusterNetworks;
  if (c.meshed) {
    std::optional<graph::Workload> w = graph::workloadOf(workload);
    std::string_view sa = w->podSpec.get("serviceAccountName").str();
    if (sa.empty()) sa = w->podSpec.get("serviceAccount").str();
    if (sa.empty()) sa = "default";
    c.identity = serviceAccountIdentity(sa, w->namespace_, settings);
  }
  return c;
}

AccessClient serviceAccountClient(const model::Resource& serviceAccount,
                                  const config::LinkerdSettings& settings) {
  AccessClient c;
  c.display = serviceAccount.display();
  c.resource = &serviceAccount;
  c.meshed = true;
  c.meshedBecause = "a ServiceAccount names a meshed client";
  c.identity = serviceAccountIdentity(serviceAccount.name, serviceAccount.namespace_, settings);
  c.assumedNetworks = settings.clusterNetworks;
  return c;
}

}  // namespace pg::policy::linkerd
