// Linkerd's inbound index: per workload and port, the InboundServer its policy controller
// serves (Servers, default policies, authorizations, routes), and the status it writes on
// routes whose parent is a Server.
#include "lib/policy/linkerd/inbound.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <tuple>
#include <unordered_map>

#include "lib/model/parallel.h"
#include "lib/model/selector.h"
#include "lib/policy/linkerd/admission.h"
#include "lib/policy/linkerd/strings.h"

namespace pg::policy::linkerd {

namespace {

constexpr std::size_t kParallelMinWorkloads = 32;
constexpr std::string_view kDefaultPolicyAnnotation = "config.linkerd.io/default-inbound-policy";
constexpr std::string_view kRequireIdentityAnnotation =
    "config.linkerd.io/proxy-require-identity-inbound-ports";
constexpr std::string_view kOpaquePortsAnnotation = "config.linkerd.io/opaque-ports";
constexpr std::string_view kDefaultPolicies[] = {"all-unauthenticated",
                                                 "all-authenticated",
                                                 "cluster-unauthenticated",
                                                 "cluster-authenticated",
                                                 "deny",
                                                 "audit"};

using detail::equalsIgnoringCase;
using detail::text;

// Linkerd's port sets: comma-separated numbers and ranges (`8080,9000-9010`). One entry that
// does not parse makes the whole annotation empty (`ports_annotation`).
bool inPortSet(std::string_view list, std::int64_t port) {
  auto number = [](std::string_view s) -> std::int64_t {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    if (s.empty() || s.size() > 5) return -1;
    std::int64_t n = 0;
    for (char c : s) {
      if (c < '0' || c > '9') return -1;
      n = n * 10 + (c - '0');
    }
    return n >= 1 && n <= 65535 ? n : -1;
  };
  bool found = false;
  while (!list.empty()) {
    std::size_t comma = list.find(',');
    std::string_view part = list.substr(0, comma);
    list.remove_prefix(comma == std::string_view::npos ? list.size() : comma + 1);
    if (part.find_first_not_of(' ') == std::string_view::npos) continue;
    std::size_t dash = part.find('-');
    std::int64_t low = number(part.substr(0, dash));
    std::int64_t high = dash == std::string_view::npos ? low : number(part.substr(dash + 1));
    if (low < 0 || high < low) return false;
    if (port >= low && port <= high) found = true;
  }
  return found;
}

bool isTcp(const graph::ContainerPort& p) {
  return equalsIgnoringCase(p.protocol, "TCP");
}

std::vector<Network> everywhere() {
  return {{*model::Cidr::parse("0.0.0.0/0"), {}}, {*model::Cidr::parse("::/0"), {}}};
}

std::vector<Network> asNetworks(const std::vector<model::Cidr>& list) {
  std::vector<Network> out;
  for (const model::Cidr& c : list) out.push_back({c, {}});
  return out;
}

// The authorizations a default policy grants (`default/POLICY`; none for deny).
Authorizations defaultAuthorizations(std::string_view policy,
                                     const config::LinkerdSettings& settings) {
  Authorization a;
  a.kind = "default";
  a.name = std::string(policy);
  if (policy == "deny") return {};
  if (policy == "all-unauthenticated" || policy == "audit") {
    a.networks = everywhere();
  } else if (policy == "all-authenticated") {
    a.networks = everywhere();
    a.authentication = AuthenticationKind::TlsAuthenticated;
    a.identities.push_back(parseIdentity("*"));
  } else if (policy == "cluster-unauthenticated") {
    a.networks = asNetworks(settings.clusterNetworks);
  } else if (policy == "cluster-authenticated") {
    a.networks = asNetworks(settings.clusterNetworks);
    a.authentication = AuthenticationKind::TlsAuthenticated;
    a.identities.push_back(parseIdentity("*"));
  } else {
    return {};
  }
  return {a};
}

void sortAuthorizations(Authorizations& list) {
  list.sort([](const Authorization& a, const Authorization& b) {
    return std::tie(a.kind, a.name) < std::tie(b.kind, b.name);
  });
}

struct ServerInfo {
  const model::Resource* resource = nullptr;
  std::optional<model::LabelSelector> selector;  // nullopt: the podSelector does not parse
  std::optional<std::int64_t> portNumber;
  std::string portName;
  std::string protocol;
  std::string accessPolicy;
  std::string_view timestamp;
};

struct PolicyInfo {
  const model::Resource* resource = nullptr;
  std::string targetGroup, targetKind, targetName;
  std::shared_ptr<const Authorization> authorization;  // null: a reference does not resolve
};

struct ServerAuthorizationInfo {
  const model::Resource* resource = nullptr;
  std::string serverName;
  std::optional<model::LabelSelector> serverSelector;
  std::shared_ptr<const Authorization> authorization;
};

struct RouteInfo {
  const model::Resource* resource = nullptr;
  bool grpc = false;
  std::vector<std::string> servers;  // the Servers (of its namespace) that accept it
  std::string_view timestamp;
  InboundRoute route;  // without its authorizations until the policies are indexed
  // `route` with its authorizations, as every port of those Servers serves it.
  std::shared_ptr<const InboundRoute> served;
};

// The items of one of Index's lists by their object's namespace, built once the list is
// complete: Servers, policies and routes only ever apply within their namespace, so each
// workload visits its namespace's items instead of the whole cluster's.
template <typename T>
class ByNamespace {
 public:
  void build(const std::vector<T>& items) {
    for (const T& item : items) index_[item.resource->namespace_].push_back(&item);
  }
  const std::vector<const T*>& in(std::string_view namespace_) const {
    static const std::vector<const T*> kNone;
    auto it = index_.find(namespace_);
    return it == index_.end() ? kNone : it->second;
  }

 private:
  std::unordered_map<std::string_view, std::vector<const T*>> index_;
};

class Index {
 public:
  Index(const model::Store& store, const config::LinkerdSettings& settings,
        const std::vector<ServerParent>& parents)
      : store_(store), settings_(settings) {
    // Reserved: these vectors hold large items, and growing copies them all.
    std::vector<const model::Resource*> servers = store.ofKind(kPolicyGroup, "Server");
    std::vector<const model::Resource*> policies =
        store.ofKind(kPolicyGroup, "AuthorizationPolicy");
    std::vector<const model::Resource*> serverAuthorizations =
        store.ofKind(kPolicyGroup, "ServerAuthorization");
    servers_.reserve(servers.size());
    policies_.reserve(policies.size());
    serverAuthorizations_.reserve(serverAuthorizations.size());
    // What Linkerd's admission webhook refuses is never created (LD601-LD649): it selects,
    // authorises and authenticates nothing.
    for (const model::Resource* r : servers)
      if (refuseServer(*r).empty()) addServer(*r);
    for (const model::Resource* r : policies)
      if (refuseAuthorizationPolicy(*r).empty()) addPolicy(*r);
    for (const model::Resource* r : serverAuthorizations)
      if (refuseServerAuthorization(*r).empty() && refuseNetworks(*r).empty())
        addServerAuthorization(*r);
    addRoutes(parents);
    serversIn_.build(servers_);
    serverAuthorizationsIn_.build(serverAuthorizations_);
    routesIn_.build(routes_);
    for (std::string_view policy : kDefaultPolicies)
      defaultAuthorizations_.emplace(policy, defaultAuthorizations(policy, settings));
    defaultHttpRoute_ = std::make_shared<const InboundRoute>(defaultHttpRoute());
    defaultGrpcRoute_ = std::make_shared<const InboundRoute>(defaultGrpcRoute());
    for (const PolicyInfo& p : policies_) {
      if (!p.authorization) continue;
      std::string_view ns = p.resource->namespace_;
      if (equalsIgnoringCase(p.targetKind, "Server") &&
          equalsIgnoringCase(p.targetGroup, kPolicyGroup))
        policiesOn_[targetKey('s', ns, p.targetName)].push_back(&p);
      else if (equalsIgnoringCase(p.targetKind, "Namespace") &&
               (p.targetGroup.empty() || p.targetGroup == "core"))
        policiesOn_[targetKey('n', ns, p.targetName)].push_back(&p);
      // Any kind: a route's policies are found by its group, kind and name, ignoring case.
      policiesOn_[targetKey('r', ns, detail::lowerAscii(p.targetGroup),
                            detail::lowerAscii(p.targetKind), detail::lowerAscii(p.targetName))]
          .push_back(&p);
    }
    for (RouteInfo& r : routes_) {
      InboundRoute& route = r.route;
      for (const PolicyInfo* ap :
           policiesOn(targetKey('r', r.resource->namespace_, detail::lowerAscii(route.group),
                                detail::lowerAscii(route.kind), detail::lowerAscii(route.name))))
        route.authorizations.push_back(ap->authorization);
      sortAuthorizations(route.authorizations);
      r.served = std::make_shared<const InboundRoute>(std::move(route));
    }
  }

  WorkloadInbound inbound(const graph::Workload& w) const;
  std::vector<Ignored> takeIgnored() { return std::move(ignored_); }

 private:
  void addServer(const model::Resource& r);
  void addPolicy(const model::Resource& r);
  void addServerAuthorization(const model::Resource& r);
  void addRoutes(const std::vector<ServerParent>& parents);
  std::optional<Authorization> resolvePolicy(const model::Resource& r);
  void ignore(const model::Resource& r, yaml::NodeRef at, std::string message,
              std::optional<model::Missing> missing = std::nullopt) {
    ignored_.push_back({&r, at, std::move(message), std::move(missing)});
  }

  std::string annotation(const graph::Workload& w, std::string_view key, bool* found) const;
  InboundPort defaultPort(const graph::Workload& w, std::int64_t port,
                          const std::set<std::string>& probePaths) const;
  InboundPort serverPort(const ServerInfo& s, std::int64_t port,
                         const std::set<std::string>& probePaths) const;
  InboundRoutes defaultHttpRoutes(const std::set<std::string>& probePaths) const;
  InboundRoute defaultHttpRoute() const;
  InboundRoute defaultGrpcRoute() const;
  InboundRoute probeRoute(const std::set<std::string>& probePaths) const;
  const Authorizations& defaultsOf(std::string_view policy) const {
    static const Authorizations kNone;
    auto it = defaultAuthorizations_.find(policy);
    return it == defaultAuthorizations_.end() ? kNone : it->second;
  }

  // The key of policiesOn_: how the target is named ('s' a Server by name, 'n' a Namespace
  // by name, 'r' anything by group, kind and name in lower case), the policy's namespace and
  // those parts, each preceded by its length, so that no two targets share a key.
  static std::string targetKey(char how, std::string_view namespace_, std::string_view a,
                               std::string_view b = {}, std::string_view c = {}) {
    std::string key(1, how);
    for (std::string_view part : {namespace_, a, b, c})
      key.append(std::to_string(part.size())).append(1, ':').append(part);
    return key;
  }
  const std::vector<const PolicyInfo*>& policiesOn(const std::string& key) const {
    static const std::vector<const PolicyInfo*> kNone;
    auto it = policiesOn_.find(key);
    return it == policiesOn_.end() ? kNone : it->second;
  }

  const model::Store& store_;
  const config::LinkerdSettings& settings_;
  std::vector<ServerInfo> servers_;
  std::vector<PolicyInfo> policies_;
  std::vector<ServerAuthorizationInfo> serverAuthorizations_;
  std::vector<RouteInfo> routes_;
  ByNamespace<ServerInfo> serversIn_;
  ByNamespace<ServerAuthorizationInfo> serverAuthorizationsIn_;
  ByNamespace<RouteInfo> routesIn_;
  // The AuthorizationPolicies that resolved, by target (targetKey): a Server's and a
  // Namespace's by name, and every policy by its target's group, kind and name in lower case
  // (how routes find theirs). Each list in file order.
  std::unordered_map<std::string, std::vector<const PolicyInfo*>> policiesOn_;
  std::vector<Ignored> ignored_;
  // Shared by every port that serves them: the authorizations of each default policy, the
  // default HTTP and gRPC routes, and the probe route of each set of probe paths (filled as
  // workloads ask, on any thread).
  std::map<std::string, Authorizations, std::less<>> defaultAuthorizations_;
  std::shared_ptr<const InboundRoute> defaultHttpRoute_;
  std::shared_ptr<const InboundRoute> defaultGrpcRoute_;
  mutable std::mutex probeRoutesMutex_;
  mutable std::map<std::set<std::string>, std::shared_ptr<const InboundRoute>> probeRoutes_;
};

void Index::addServer(const model::Resource& r) {
  ServerInfo s;
  s.resource = &r;
  yaml::NodeRef spec = r.spec();
  model::LabelSelector::Error error;
  s.selector = model::LabelSelector::parse(spec.get("podSelector"), &error);
  if (!spec.get("podSelector")) s.selector.reset();  // selects only external workloads
  yaml::NodeRef port = spec.get("port");
  if (std::optional<std::int64_t> n = port.asInt())
    s.portNumber = *n;
  else
    s.portName = text(port);
  s.protocol = protocolOf(spec.get("proxyProtocol")).value_or("Detect");
  s.accessPolicy = spec.get("accessPolicy") ? text(spec.get("accessPolicy")) : "deny";
  s.timestamp = r.metadata().get("creationTimestamp").str();
  servers_.push_back(std::move(s));
}

// The authorization an AuthorizationPolicy grants (`policy_client_authz`); nullopt when the
// index ignores the policy: a reference that does not resolve, an unknown kind, or two
// identity sources (MeshTLSAuthentications or ServiceAccounts) or two NetworkAuthentications.
std::optional<Authorization> Index::resolvePolicy(const model::Resource& r) {
  Authorization a;
  a.kind = "AuthorizationPolicy";
  a.name = std::string(r.name);
  a.sources.push_back(&r);
  bool hasIdentities = false;
  bool hasNetworks = false;
  for (yaml::NodeRef ref : r.spec().get("requiredAuthenticationRefs").items()) {
    std::string kind = text(ref.get("kind"));
    std::string name = text(ref.get("name"));
    std::string ns = ref.get("namespace") ? text(ref.get("namespace")) : std::string(r.namespace_);
    std::string group = text(ref.get("group"));
    bool core = group.empty() || group == "core";
    bool linkerd = equalsIgnoringCase(group, kPolicyGroup);
    bool account = core && equalsIgnoringCase(kind, "ServiceAccount");
    bool mesh = linkerd && equalsIgnoringCase(kind, "MeshTLSAuthentication");
    bool network = linkerd && equalsIgnoringCase(kind, "NetworkAuthentication");
    if (!account && !mesh && !network) {
      ignore(r, ref, "requires a " + kind + ", which Linkerd cannot authenticate");
      return std::nullopt;
    }
    if (((account || mesh) && hasIdentities) || (network && hasNetworks)) {
      ignore(r, ref,
             "requires a second " + std::string(network ? "network" : "identity") +
                 " authentication; Linkerd's index ignores the policy");
      return std::nullopt;
    }
    if (account) {
      hasIdentities = true;
      a.identities.push_back({true, serviceAccountIdentity(name, ns, settings_), {}});
      continue;
    }
    const model::Resource* target = store_.find(
        kPolicyGroup, mesh ? "MeshTLSAuthentication" : "NetworkAuthentication", ns, name);
    if (target) {
      const std::vector<Problem> refusal =
          mesh ? refuseMeshTlsAuthentication(*target) : refuseNetworks(*target);
      if (!refusal.empty()) {
        const model::Location at = target->locate(refusal.front().at);
        ignore(r, ref.get("name") ? ref.get("name") : ref,
               "requires " + std::string(target->kind) + " " + ns + "/" + name +
                   ", which Linkerd's admission webhook refuses (see " +
                   (mesh ? "LD602" : "LD603") + " at " + at.path + ":" +
                   std::to_string(at.start.line) + ":" + std::to_string(at.start.column) +
                   "), so it is never created and Linkerd's index ignores the whole policy: "
                   "it authorizes nothing; fix the authentication");
        return std::nullopt;
      }
    }
    if (!target) {
      const char* authKind = mesh ? "MeshTLSAuthentication" : "NetworkAuthentication";
      const model::Store::Refusal* refused = store_.refusal(kPolicyGroup, authKind, ns, name);
      ignore(r, ref.get("name") ? ref.get("name") : ref,
             refused ? "requires " + std::string(authKind) + " " + ns + "/" + name + ", but " +
                           refused->notApplied() +
                           ", and Linkerd's index ignores the whole policy, so it authorizes "
                           "nothing; fix the authentication's schema violations"
                     : "requires a missing " + std::string(authKind) + " " + ns + "/" + name +
                           ": it is not in the input, and Linkerd's index ignores the whole "
                           "policy, so it authorizes nothing; add the authentication or fix the "
                           "reference",
             refused ? std::nullopt
                     : std::optional<model::Missing>(
                           model::Missing{std::string(kPolicyGroup), authKind, ns, name}));
      return std::nullopt;
    }
    a.sources.push_back(target);
    if (network) {
      hasNetworks = true;
      a.networks = readNetworks(target->spec().get("networks"), nullptr);
      continue;
    }
    hasIdentities = true;
    yaml::NodeRef spec = target->spec();
    for (yaml::NodeRef id : spec.get("identities").items())
      a.identities.push_back(parseIdentity(id.str()));
    for (yaml::NodeRef idRef : spec.get("identityRefs").items()) {
      std::string refKind = text(idRef.get("kind"));
      std::string refName = text(idRef.get("name"));
      if (equalsIgnoringCase(refKind, "ServiceAccount")) {
        std::string refNs =
            idRef.get("namespace") ? text(idRef.get("namespace")) : std::string(target->namespace_);
        a.identities.push_back({true, serviceAccountIdentity(refName, refNs, settings_), {}});
      } else if (equalsIgnoringCase(refKind, "Namespace")) {
        a.identities.push_back(parseIdentity("*." + refName + ".serviceaccount.identity." +
                                             settings_.controlPlaneNamespace + "." +
                                             settings_.identityDomain));
      }
    }
  }
  // Identities require mTLS; without them anyone may connect. Without a NetworkAuthentication,
  // every network.
  if (hasIdentities) a.authentication = AuthenticationKind::TlsAuthenticated;
  if (!hasNetworks) a.networks = everywhere();
  return a;
}

void Index::addPolicy(const model::Resource& r) {
  PolicyInfo p;
  p.resource = &r;
  yaml::NodeRef target = r.spec().get("targetRef");
  p.targetGroup = text(target.get("group"));
  p.targetKind = text(target.get("kind"));
  p.targetName = text(target.get("name"));
  if (std::optional<Authorization> a = resolvePolicy(r))
    p.authorization = std::make_shared<const Authorization>(std::move(*a));
  // A target that does not exist: the policy authorizes nothing.
  std::string kind;
  if (equalsIgnoringCase(p.targetKind, "Server")) kind = "Server";
  if (equalsIgnoringCase(p.targetKind, "HTTPRoute")) kind = "HTTPRoute";
  if (equalsIgnoringCase(p.targetKind, "GRPCRoute")) kind = "GRPCRoute";
  if (!kind.empty() && p.authorization) {
    std::string group = detail::lowerAscii(p.targetGroup);
    if (!store_.find(group, kind, r.namespace_, p.targetName)) {
      const model::Store::Refusal* refused =
          store_.refusal(group, kind, r.namespace_, p.targetName);
      ignore(r, target.get("name") ? target.get("name") : target,
             "targets " + kind + " " + std::string(r.namespace_) + "/" + p.targetName +
                 (refused ? ", but " + refused->notApplied() : ", which is not in the input") +
                 ": the policy authorizes nothing",
             refused ? std::nullopt
                     : std::optional<model::Missing>(
                           model::Missing{group, kind, std::string(r.namespace_), p.targetName}));
    }
  }
  policies_.push_back(std::move(p));
}

void Index::addServerAuthorization(const model::Resource& r) {
  ServerAuthorizationInfo s;
  s.resource = &r;
  yaml::NodeRef spec = r.spec();
  yaml::NodeRef server = spec.get("server");
  s.serverName = text(server.get("name"));
  if (yaml::NodeRef selector = server.get("selector")) {
    model::LabelSelector::Error error;
    s.serverSelector = model::LabelSelector::parse(selector, &error);
  }
  Authorization a;
  a.kind = "ServerAuthorization";
  a.name = std::string(r.name);
  a.sources.push_back(&r);
  yaml::NodeRef client = spec.get("client");
  // Served form: without networks, the cluster's (`to_authz`).
  a.networks = client.get("networks") ? readNetworks(client.get("networks"), nullptr)
                                      : asNetworks(settings_.clusterNetworks);
  yaml::NodeRef mesh = client.get("meshTLS");
  if (client.get("unauthenticated").asBool().value_or(false)) {
    a.authentication = AuthenticationKind::Unauthenticated;
  } else if (mesh.get("unauthenticatedTLS").asBool().value_or(false)) {
    a.authentication = AuthenticationKind::TlsUnauthenticated;
  } else {
    a.authentication = AuthenticationKind::TlsAuthenticated;
    for (yaml::NodeRef id : mesh.get("identities").items())
      a.identities.push_back(parseIdentity(id.str()));
    for (yaml::NodeRef sa : mesh.get("serviceAccounts").items()) {
      std::string ns = sa.get("namespace") ? text(sa.get("namespace")) : std::string(r.namespace_);
      a.identities.push_back(
          {true, serviceAccountIdentity(text(sa.get("name")), ns, settings_), {}});
    }
  }
  bool selectsAny = false;
  for (const model::Resource* candidate : store_.ofKind(kPolicyGroup, "Server")) {
    if (candidate->namespace_ != r.namespace_) continue;
    selectsAny = selectsAny || (!s.serverName.empty() && s.serverName == candidate->name) ||
                 (s.serverSelector && s.serverSelector->matches(candidate->labels()));
  }
  if (!selectsAny)
    ignore(r, server.get("name") ? server.get("name") : server,
           "names no Server of namespace " + std::string(r.namespace_) +
               " (by name or selector): it authorizes nothing");
  s.authorization = std::make_shared<const Authorization>(std::move(a));
  serverAuthorizations_.push_back(std::move(s));
}

void Index::addRoutes(const std::vector<ServerParent>& parents) {
  // A route's parents are consecutive: group them, then keep the routes the index serves.
  for (std::size_t i = 0; i < parents.size();) {
    const model::Resource* r = parents[i].route;
    std::size_t end = i;
    while (end < parents.size() && parents[end].route == r) ++end;
    std::optional<graph::RouteKind> kind = graph::routeKindOf(r->kind);
    bool served = kind == graph::RouteKind::HTTP || kind == graph::RouteKind::GRPC;
    RouteInfo info;
    info.resource = r;
    info.grpc = kind == graph::RouteKind::GRPC;
    for (std::size_t j = i; j < end && served; ++j) {
      const ServerParent& p = parents[j];
      if (p.namespace_ != r->namespace_ || !p.sectionName.empty() || p.port) {
        served = false;
        ignore(*r, p.parentRef,
               p.namespace_ != r->namespace_
                   ? "names a Server in another namespace (" + p.namespace_ +
                         "): Linkerd's inbound index ignores the whole route; move the route "
                         "to the Server's namespace"
                   : "sets " + std::string(p.port ? "port" : "sectionName") +
                         " on a Server parentRef: Linkerd's inbound index ignores the whole "
                         "route; remove it (the Server names its port)");
      }
      if (p.accepted.status == "True") info.servers.push_back(p.name);
    }
    i = end;
    if (!served || info.servers.empty()) continue;
    Problem problem;
    std::optional<std::vector<RouteRule>> rules = convertRules(*r, info.grpc, &problem);
    if (!rules) {
      if (!problem.refused) ignore(*r, problem.at, problem.message);
      continue;
    }
    InboundRoute& route = info.route;
    route.group = std::string(r->group);
    route.kind = std::string(r->kind);
    route.name = std::string(r->name);
    route.resource = r;
    route.rules = std::move(*rules);
    for (yaml::NodeRef h : r->spec().get("hostnames").items()) route.hostnames.push_back(text(h));
    info.timestamp = r->metadata().get("creationTimestamp").str();
    routes_.push_back(std::move(info));
  }
}

std::string Index::annotation(const graph::Workload& w, std::string_view key, bool* found) const {
  yaml::NodeRef value = w.annotations.get(key);
  if (!value) {
    // The proxy injector copies the Namespace's annotation onto pods that lack it.
    if (const model::Resource* ns = store_.find("", "Namespace", "", w.namespace_))
      value = ns->metadata().get("annotations").get(key);
  }
  if (found) *found = static_cast<bool>(value);
  return text(value);
}

InboundRoute Index::defaultHttpRoute() const {
  InboundRoute all;
  all.kind = "default";
  all.name = "default";
  HttpMatch prefix;
  prefix.path = StringMatch{"prefix", "/", ""};
  all.rules.push_back({{prefix}, {}, {}});
  return all;
}

InboundRoute Index::defaultGrpcRoute() const {
  InboundRoute all;
  all.kind = "default";
  all.name = "default";
  GrpcMatch any;
  any.hasMethod = true;
  all.rules.push_back({{}, {any}, {}});
  return all;
}

InboundRoute Index::probeRoute(const std::set<std::string>& paths) const {
  InboundRoute probe;
  probe.kind = "default";
  probe.name = "probe";
  RouteRule rule;
  for (const std::string& path : paths) {
    HttpMatch m;
    m.path = StringMatch{"exact", path, ""};
    m.method = "GET";
    rule.httpMatches.push_back(std::move(m));
  }
  probe.rules.push_back(std::move(rule));
  Authorization a;
  a.kind = "default";
  a.name = "probe";
  a.networks = asNetworks(settings_.probeNetworks);
  probe.authorizations.push_back(std::move(a));
  return probe;
}

// The default route, then the probe route when there are probe networks and paths.
InboundRoutes Index::defaultHttpRoutes(const std::set<std::string>& paths) const {
  InboundRoutes out;
  out.push_back(defaultHttpRoute_);
  if (settings_.probeNetworks.empty() || paths.empty()) return out;
  std::shared_ptr<const InboundRoute> probe;
  {
    std::lock_guard<std::mutex> lock(probeRoutesMutex_);
    std::shared_ptr<const InboundRoute>& cached = probeRoutes_[paths];
    if (!cached) cached = std::make_shared<const InboundRoute>(probeRoute(paths));
    probe = cached;
  }
  out.push_back(std::move(probe));
  return out;
}

InboundPort Index::defaultPort(const graph::Workload& w, std::int64_t port,
                               const std::set<std::string>& probePaths) const {
  InboundPort p;
  p.port = port;
  std::string policy = annotation(w, kDefaultPolicyAnnotation, nullptr);
  if (!config::isLinkerdDefaultPolicy(policy)) policy = settings_.defaultInboundPolicy;
  if (inPortSet(annotation(w, kRequireIdentityAnnotation, nullptr), port)) {
    if (policy == "all-unauthenticated") policy = "all-authenticated";
    if (policy == "cluster-unauthenticated") policy = "cluster-authenticated";
  }
  p.serverName = policy;
  p.protocol =
      inPortSet(annotation(w, kOpaquePortsAnnotation, nullptr), port) ? "Opaque" : "Detect";
  p.authorizations = defaultsOf(policy);
  p.httpRoutes = defaultHttpRoutes(probePaths);
  return p;
}

// Serving order (`to_route_list`): routes with a creationTimestamp first, oldest first; then by
// ref: resource routes before the defaults, then name, group, kind.
void sortRoutes(InboundRoutes& routes,
                const std::map<const model::Resource*, std::string_view>& timestamps) {
  auto key = [&](const InboundRoute& r) {
    std::string_view ts;
    if (auto it = timestamps.find(r.resource); it != timestamps.end()) ts = it->second;
    return std::make_tuple(ts.empty(), ts, r.isDefault(), std::string_view(r.name),
                           std::string_view(r.group), std::string_view(r.kind));
  };
  routes.sort([&](const InboundRoute& a, const InboundRoute& b) { return key(a) < key(b); });
}

InboundPort Index::serverPort(const ServerInfo& s, std::int64_t port,
                              const std::set<std::string>& probePaths) const {
  const model::Resource& server = *s.resource;
  InboundPort p;
  p.port = port;
  p.server = &server;
  p.serverName = std::string(server.name);
  p.protocol = s.protocol;
  for (const ServerAuthorizationInfo* info : serverAuthorizationsIn_.in(server.namespace_)) {
    const ServerAuthorizationInfo& sa = *info;
    bool named = !sa.serverName.empty() && sa.serverName == server.name;
    bool selected = sa.serverSelector && sa.serverSelector->matches(server.labels());
    if (named || selected) p.authorizations.push_back(sa.authorization);
  }
  // The Server's policies, then its Namespace's: sortAuthorizations orders them all below.
  for (const PolicyInfo* ap : policiesOn(targetKey('s', server.namespace_, server.name)))
    p.authorizations.push_back(ap->authorization);
  for (const PolicyInfo* ap : policiesOn(targetKey('n', server.namespace_, server.namespace_)))
    p.authorizations.push_back(ap->authorization);
  if (s.accessPolicy != "deny") p.authorizations.append(defaultsOf(s.accessPolicy));
  sortAuthorizations(p.authorizations);

  std::map<const model::Resource*, std::string_view> timestamps;
  for (const RouteInfo* info : routesIn_.in(server.namespace_)) {
    const RouteInfo& r = *info;
    if (std::find(r.servers.begin(), r.servers.end(), server.name) == r.servers.end()) continue;
    timestamps[r.resource] = r.timestamp;
    (r.grpc ? p.grpcRoutes : p.httpRoutes).push_back(r.served);
  }
  if (p.httpRoutes.empty()) p.httpRoutes = defaultHttpRoutes(probePaths);
  if (p.grpcRoutes.empty()) p.grpcRoutes.push_back(defaultGrpcRoute_);
  sortRoutes(p.httpRoutes, timestamps);
  sortRoutes(p.grpcRoutes, timestamps);
  return p;
}

// The named ports of the proxy container Linkerd's injector adds (proxy-injector's
// `linkerd-proxy` inbound and `linkerd-admin` ports, at their default numbers).
std::optional<std::int64_t> proxyPort(std::string_view name) {
  if (name == "linkerd-admin") return 4191;
  if (name == "linkerd-proxy") return 4143;
  return std::nullopt;
}

WorkloadInbound Index::inbound(const graph::Workload& w) const {
  WorkloadInbound out;
  out.workload = w.resource;
  std::vector<graph::ContainerPort> containerPorts = graph::containerPorts(w.podSpec);
  std::set<std::int64_t> ports;
  for (const graph::ContainerPort& c : containerPorts)
    if (isTcp(c)) ports.insert(c.number);
  // Probe paths by port (probePath).
  std::map<std::int64_t, std::set<std::string>> probePaths;
  for (const graph::HttpProbe& probe : graph::httpProbes(w.podSpec)) {
    std::optional<std::int64_t> port = probePort(probe, containerPorts);
    if (!port || *port < 1 || *port > 65535) continue;
    std::optional<std::string> path = probePath(probe);
    if (!path) continue;
    ports.insert(*port);
    probePaths[*port].insert(std::move(*path));
  }
  std::vector<const ServerInfo*> selecting;
  for (const ServerInfo* info : serversIn_.in(w.namespace_)) {
    const ServerInfo& s = *info;
    if (!s.selector || !s.selector->matches(w.labels)) continue;
    selecting.push_back(&s);
    out.selectedBy.push_back(s.resource);
    if (s.portNumber && *s.portNumber > 0 && *s.portNumber <= 65535) ports.insert(*s.portNumber);
    // The ports of the linkerd-proxy container the injector adds to every meshed pod: a
    // Server that names one selects meshed pods, whose proxy has it (the manifests do not).
    if (std::optional<std::int64_t> proxy = proxyPort(s.portName);
        proxy &&
        std::none_of(containerPorts.begin(), containerPorts.end(),
                     [&](const graph::ContainerPort& c) { return c.name == s.portName; })) {
      graph::ContainerPort added;
      added.name = s.portName;
      added.number = *proxy;
      added.protocol = "TCP";
      containerPorts.push_back(added);
      ports.insert(*proxy);
    }
  }
  static const std::set<std::string> kNoPaths;
  for (std::int64_t port : ports) {
    // The oldest Server wins the port (no timestamp counts as oldest), then the name.
    const ServerInfo* winner = nullptr;
    std::vector<const model::Resource*> shadowed;
    auto older = [](const ServerInfo& a, const ServerInfo& b) {
      return std::make_tuple(!a.timestamp.empty(), a.timestamp, a.resource->name) <
             std::make_tuple(!b.timestamp.empty(), b.timestamp, b.resource->name);
    };
    for (const ServerInfo* s : selecting) {
      bool matches = s->portNumber ? *s->portNumber == port
                                   : std::any_of(containerPorts.begin(), containerPorts.end(),
                                                 [&](const graph::ContainerPort& c) {
                                                   return isTcp(c) && c.number == port &&
                                                          c.name == s->portName;
                                                 });
      if (!matches) continue;
      if (winner && !older(*s, *winner)) {
        shadowed.push_back(s->resource);
        continue;
      }
      if (winner) shadowed.push_back(winner->resource);
      winner = s;
    }
    auto paths = probePaths.find(port);
    const std::set<std::string>& here = paths == probePaths.end() ? kNoPaths : paths->second;
    out.ports.push_back(winner ? serverPort(*winner, port, here) : defaultPort(w, port, here));
    out.ports.back().shadowed = std::move(shadowed);
  }
  return out;
}

// Route strength on a shared Server parent: a GRPCRoute beats an HTTPRoute, which beats a
// TLSRoute, which beats a TCPRoute.
int strength(std::optional<graph::RouteKind> kind) {
  switch (kind.value_or(graph::RouteKind::UDP)) {
    case graph::RouteKind::GRPC:
      return 3;
    case graph::RouteKind::HTTP:
      return 2;
    case graph::RouteKind::TLS:
      return 1;
    default:
      return 0;
  }
}

std::vector<ServerParent> serverParents(const model::Store& store) {
  std::vector<const model::Resource*> routes;
  for (std::string_view kind : {"HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute"})
    for (const model::Resource* r : store.ofKind(kind))
      if (isServerRouteKind(r->group, r->kind)) routes.push_back(r);
  std::sort(routes.begin(), routes.end(), std::less<const model::Resource*>());
  std::vector<ServerParent> out;
  for (const model::Resource* r : routes) {
    for (yaml::NodeRef ref : r->spec().get("parentRefs").items()) {
      if (ref.get("group").str() != kPolicyGroup || ref.get("kind").str() != "Server") continue;
      ServerParent p;
      p.route = r;
      p.parentRef = ref;
      p.namespace_ = ref.get("namespace") ? text(ref.get("namespace")) : std::string(r->namespace_);
      p.name = text(ref.get("name"));
      p.sectionName = ref.get("sectionName").str();
      p.port = ref.get("port").asInt();
      p.server = store.find(kPolicyGroup, "Server", p.namespace_, p.name);
      out.push_back(std::move(p));
    }
  }
  // The strongest route kind naming each Server.
  std::map<std::pair<std::string, std::string>, int> strongest;
  for (const ServerParent& p : out) {
    int s = strength(graph::routeKindOf(p.route->kind));
    int& best = strongest.try_emplace({p.namespace_, p.name}, s).first->second;
    best = std::max(best, s);
  }
  for (ServerParent& p : out) {
    std::string server = "Server " + p.namespace_ + "/" + p.name;
    if (!p.server) {
      p.accepted =
          graph::makeCondition("Accepted", false, "NoMatchingParent", server + " does not exist");
    } else if (strongest[{p.namespace_, p.name}] > strength(graph::routeKindOf(p.route->kind))) {
      p.accepted =
          graph::makeCondition("Accepted", false, "RouteReasonConflicted",
                               "a route of a kind that takes precedence over " +
                                   std::string(p.route->kind) + "s has the same parent " + server);
    } else {
      p.accepted = graph::makeCondition("Accepted", true, "Accepted", "Route is accepted");
    }
  }
  return out;
}

}  // namespace

std::optional<std::int64_t> probePort(const graph::HttpProbe& probe,
                                      const std::vector<graph::ContainerPort>& ports) {
  if (probe.portName.empty()) return probe.port;
  for (const graph::ContainerPort& p : ports)
    if (p.container == probe.container && isTcp(p) && equalsIgnoringCase(p.name, probe.portName))
      return p.number;
  return std::nullopt;
}

std::optional<std::string> probePath(const graph::HttpProbe& probe) {
  std::string path(probe.path.value_or("/"));
  if (auto query = path.find_first_of("?#"); query != std::string::npos) path.resize(query);
  if (path.empty()) return std::nullopt;
  return path;
}

bool isServerRouteKind(std::string_view group, std::string_view kind) {
  if (group == kPolicyGroup) return kind == "HTTPRoute";
  return group == graph::kGatewayGroup &&
         (kind == "HTTPRoute" || kind == "GRPCRoute" || kind == "TLSRoute" || kind == "TCPRoute");
}

const WorkloadInbound* LinkerdModel::inboundOf(const model::Resource* workload) const {
  auto it = workloadIndex.find(workload);
  return it == workloadIndex.end() ? nullptr : &workloads[it->second];
}

std::vector<const ServerParent*> LinkerdModel::parentsOf(const model::Resource* route) const {
  std::vector<const ServerParent*> out;
  if (auto it = parentIndex.find(route); it != parentIndex.end())
    for (std::size_t i = it->second.first; i < it->second.second; ++i)
      out.push_back(&serverParents[i]);
  return out;
}

LinkerdModel buildLinkerd(const model::Store& store, const config::LinkerdSettings& settings,
                          bool linkerdInUse, unsigned jobs) {
  LinkerdModel model;
  model.serverParents = serverParents(store);
  Index index(store, settings, model.serverParents);
  model.ignored = index.takeIgnored();
  const std::vector<graph::Workload> workloads =
      linkerdInUse ? graph::collectWorkloads(store) : std::vector<graph::Workload>();
  model.workloads.resize(workloads.size());
  // Each workload reads the index and writes only its own slot.
  model::parallelFor(
      model::workersFor(jobs, workloads.size(), kParallelMinWorkloads), workloads.size(),
      [&](std::size_t i, unsigned) { model.workloads[i] = index.inbound(workloads[i]); });
  for (std::size_t i = 0; i < model.workloads.size(); ++i)
    model.workloadIndex.emplace(model.workloads[i].workload, i);
  for (std::size_t i = 0; i < model.serverParents.size(); ++i) {
    auto [it, added] = model.parentIndex.try_emplace(model.serverParents[i].route, i, i + 1);
    if (!added) it->second.second = i + 1;
  }
  return model;
}

}  // namespace pg::policy::linkerd
