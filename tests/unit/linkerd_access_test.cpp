// `policygraph access` for Linkerd: the proxy's decision over an InboundPort written by hand
// (localhost, networks and exceptions, authentications, identity suffixes, route precedence,
// 404 against 403, opaque and detect ports, route and server authorizations, redirects), and
// clients read from manifests (injection, service accounts).
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lib/analysis/analysis.h"
#include "lib/config/config.h"
#include "lib/policy/access.h"
#include "lib/policy/linkerd/access.h"
#include "lib/policy/linkerd/inbound.h"
#include "tests/unit/test_folder.h"

using namespace pg;
namespace ld = policy::linkerd;
using policy::AccessDecision;
using policy::Admits;

namespace {

model::Cidr cidr(const char* text) {
  std::optional<model::Cidr> c = model::Cidr::parse(text);
  REQUIRE(c);
  return *c;
}

ld::Network net(const char* n, std::vector<const char*> except = {}) {
  ld::Network out{cidr(n), {}};
  for (const char* e : except) out.except.push_back(cidr(e));
  return out;
}

ld::Authorization everyone(std::string name, std::vector<ld::Network> networks = {}) {
  ld::Authorization a;
  a.kind = "AuthorizationPolicy";
  a.name = std::move(name);
  a.networks = networks.empty() ? std::vector<ld::Network>{net("0.0.0.0/0"), net("::/0")}
                                : std::move(networks);
  return a;
}

ld::Authorization identities(std::string name, std::vector<ld::IdentityMatch> ids) {
  ld::Authorization a = everyone(std::move(name));
  a.authentication = ld::AuthenticationKind::TlsAuthenticated;
  a.identities = std::move(ids);
  return a;
}

ld::IdentityMatch exact(std::string id) {
  return {true, std::move(id), {}};
}

const char* kFrontend = "frontend.shop.serviceaccount.identity.linkerd.cluster.local";

policy::AccessClient meshed(std::string identity = kFrontend) {
  policy::AccessClient c;
  c.display = "ServiceAccount/shop/x";
  c.meshed = true;
  c.identity = std::move(identity);
  c.assumedNetworks = {cidr("10.0.0.0/8")};
  return c;
}

policy::AccessClient at(const char* address, bool isMeshed = false) {
  policy::AccessClient c = meshed();
  c.meshed = isMeshed;
  if (!isMeshed) c.identity.clear();
  c.address = cidr(address);
  return c;
}

policy::AccessRequest req(const char* text, std::string host = {}) {
  std::optional<policy::AccessRequest> r = policy::parseAccessRequest(text);
  REQUIRE(r);
  r->host = std::move(host);
  return *r;
}

ld::HttpMatch pathMatch(std::string kind, std::string value, std::string method = {}) {
  ld::HttpMatch m;
  m.path = ld::StringMatch{std::move(kind), std::move(value), {}};
  m.method = std::move(method);
  return m;
}

ld::InboundRoute route(std::string name, std::vector<ld::HttpMatch> matches,
                       std::vector<ld::Authorization> authorizations = {}) {
  ld::InboundRoute r;
  r.group = "gateway.networking.k8s.io";
  r.kind = "HTTPRoute";
  r.name = std::move(name);
  ld::RouteRule rule;
  rule.httpMatches = std::move(matches);
  r.rules.push_back(rule);
  r.authorizations = std::move(authorizations);
  return r;
}

ld::InboundPort httpPort(std::vector<ld::InboundRoute> routes,
                         std::vector<ld::Authorization> authorizations = {},
                         std::string protocol = "HTTP/1") {
  ld::InboundPort p;
  p.port = 8080;
  p.serverName = "api";
  p.protocol = std::move(protocol);
  p.httpRoutes = std::move(routes);
  p.authorizations = std::move(authorizations);
  return p;
}

std::string routeOf(const policy::AccessResult& r) {
  return r.route ? r.route->ref.name : std::string("(none)");
}

}  // namespace

TEST_CASE("requests parse as METHOD PATH with a query; anything else does not") {
  policy::AccessRequest r = req("GET /books?id=3&x");
  CHECK(r.method == "GET");
  CHECK(r.path == "/books");
  REQUIRE(r.query.size() == 2);
  CHECK(r.query[0] == std::pair<std::string, std::string>{"id", "3"});
  CHECK(r.query[1].first == "x");
  CHECK_FALSE(policy::parseAccessRequest("GET"));
  CHECK_FALSE(policy::parseAccessRequest("GET books"));
  CHECK_FALSE(policy::parseAccessRequest("get /books"));
  CHECK_FALSE(policy::parseAccessRequest("GET /a b"));
}

TEST_CASE("the proxy authorizes localhost whatever the policy says") {
  ld::InboundPort p = httpPort({route("all", {pathMatch("prefix", "/")})});  // no authorization
  policy::AccessResult local = ld::decideAccess(p, at("127.0.0.1"), req("GET /"));
  CHECK(local.decision == AccessDecision::Allowed);
  REQUIRE(local.authorization);
  CHECK(local.authorization->ref.name == "localhost");
  CHECK(local.authorization->level == "proxy");
  CHECK(ld::decideAccess(p, at("::1"), req("GET /")).decision == AccessDecision::Allowed);
  policy::AccessResult remote = ld::decideAccess(p, at("10.0.0.1"), req("GET /"));
  CHECK(remote.decision == AccessDecision::Unauthorized);
  CHECK(remote.status == 403);
}

TEST_CASE("networks with exceptions: a known address, and an unknown one decided by the worst") {
  ld::InboundPort p = httpPort({route("all", {pathMatch("prefix", "/")})},
                               {everyone("ops", {net("10.1.0.0/16", {"10.1.255.0/24"})})});
  CHECK(ld::decideAccess(p, at("10.1.2.3"), req("GET /")).decision == AccessDecision::Allowed);
  policy::AccessResult except = ld::decideAccess(p, at("10.1.255.7"), req("GET /"));
  CHECK(except.decision == AccessDecision::Unauthorized);
  REQUIRE(except.considered.size() == 2);  // ops, then the proxy's localhost
  CHECK(except.considered[0].reason.find("exception 10.1.255.0/24") != std::string::npos);
  policy::AccessResult outside = ld::decideAccess(p, at("10.2.0.1"), req("GET /"));
  CHECK(outside.considered[0].reason.find("is outside 10.1.0.0/16") != std::string::npos);

  policy::AccessResult unknown = ld::decideAccess(p, meshed(), req("GET /"));
  CHECK(unknown.decision == AccessDecision::Unauthorized);
  REQUIRE(unknown.considered.size() == 1);
  CHECK(unknown.considered[0].admits == Admits::Depends);
  CHECK(unknown.condition ==
        "allowed only if the client's address is in 10.1.0.0/16 except 10.1.255.0/24 "
        "(AuthorizationPolicy/ops)");

  policy::AccessClient elsewhere = meshed();
  elsewhere.assumedNetworks = {cidr("192.168.0.0/16")};
  policy::AccessResult none = ld::decideAccess(p, elsewhere, req("GET /"));
  CHECK(none.considered[0].admits == Admits::No);
  CHECK(none.condition.empty());

  policy::AccessClient inside = meshed();
  inside.assumedNetworks = {cidr("10.1.3.0/24")};
  CHECK(ld::decideAccess(p, inside, req("GET /")).decision == AccessDecision::Allowed);
}

TEST_CASE("authentications: unauthenticated, tlsUnauthenticated, tlsAuthenticated") {
  ld::Authorization tls = everyone("tls");
  tls.authentication = ld::AuthenticationKind::TlsUnauthenticated;
  ld::InboundPort p = httpPort({route("all", {pathMatch("prefix", "/")})}, {tls});
  CHECK(ld::decideAccess(p, meshed("anyone.else"), req("GET /")).decision ==
        AccessDecision::Allowed);
  policy::AccessResult plain = ld::decideAccess(p, at("10.0.0.1"), req("GET /"));
  CHECK(plain.decision == AccessDecision::Unauthorized);
  CHECK(plain.considered[0].reason.find("not meshed") != std::string::npos);

  p.authorizations = {identities("readers", {exact(kFrontend)})};
  CHECK(ld::decideAccess(p, meshed(), req("GET /")).decision == AccessDecision::Allowed);
  policy::AccessResult other = ld::decideAccess(
      p, meshed("other.shop.serviceaccount.identity.linkerd.cluster.local"), req("GET /"));
  CHECK(other.decision == AccessDecision::Unauthorized);
  CHECK(other.considered[0].reason.find("matches none of " + std::string(kFrontend)) !=
        std::string::npos);
  CHECK(ld::decideAccess(p, at("10.0.0.1"), req("GET /")).decision == AccessDecision::Unauthorized);

  p.authorizations = {everyone("open")};
  CHECK(ld::decideAccess(p, at("10.0.0.1"), req("GET /")).decision == AccessDecision::Allowed);
}

TEST_CASE("identity suffixes match on label boundaries; the empty suffix matches any") {
  ld::IdentityMatch ns{
      false, {}, {"shop", "serviceaccount", "identity", "linkerd", "cluster", "local"}};
  CHECK(ld::identityMatches(ns, kFrontend));
  CHECK_FALSE(
      ld::identityMatches(ns, "frontend.books.serviceaccount.identity.linkerd.cluster.local"));
  CHECK_FALSE(ld::identityMatches(ns, "shop.serviceaccount.identity.linkerd.cluster.local"));
  CHECK_FALSE(ld::identityMatches({false, {}, {"op"}}, "a.shop"));
  CHECK(ld::identityMatches({false, {}, {}}, "anything.at.all"));
  CHECK(ld::identityMatches(exact("a.b"), "a.b"));
  CHECK_FALSE(ld::identityMatches(exact("a.b"), "x.a.b"));

  ld::InboundPort p =
      httpPort({route("all", {pathMatch("prefix", "/")})}, {identities("namespace", {ns})});
  CHECK(ld::decideAccess(p, meshed(), req("GET /")).decision == AccessDecision::Allowed);
}

TEST_CASE("route precedence: longest path matched, method, headers, then serving order") {
  ld::HttpMatch withHeader = pathMatch("prefix", "/books", "GET");
  withHeader.headers.push_back({"exact", "yes", "x-beta"});
  ld::InboundPort p = httpPort(
      {route("root", {pathMatch("prefix", "/")}), route("books", {pathMatch("prefix", "/books")}),
       route("books-get", {pathMatch("prefix", "/books", "GET")}),
       route("book-one", {pathMatch("exact", "/books/1")}), route("books-beta", {withHeader}),
       route("books-again", {pathMatch("prefix", "/books")})},
      {everyone("open")});
  CHECK(routeOf(ld::decideAccess(p, meshed(), req("GET /books/1"))) == "book-one");
  CHECK(routeOf(ld::decideAccess(p, meshed(), req("GET /books/2"))) == "books-get");
  CHECK(routeOf(ld::decideAccess(p, meshed(), req("POST /books/2"))) == "books");
  CHECK(routeOf(ld::decideAccess(p, meshed(), req("GET /other"))) == "root");
  policy::AccessRequest beta = req("GET /books/2");
  beta.headers.emplace_back("X-Beta", "yes");
  CHECK(routeOf(ld::decideAccess(p, meshed(), beta)) == "books-beta");

  ld::InboundPort regex = httpPort({route("prefix", {pathMatch("prefix", "/api")}),
                                    route("regex", {pathMatch("regex", "/api/v[0-9]+")})},
                                   {everyone("open")});
  CHECK(routeOf(ld::decideAccess(regex, meshed(), req("GET /api/v2"))) == "regex");
  CHECK(routeOf(ld::decideAccess(regex, meshed(), req("GET /api/v2/x"))) == "prefix");

  // The proxy compares the length of path matched, whatever the kind: a prefix as long as the
  // path ties with an exact match, and the earlier route wins.
  ld::InboundPort tie = httpPort({route("prefix", {pathMatch("prefix", "/books")}),
                                  route("exact", {pathMatch("exact", "/books")})},
                                 {everyone("open")});
  CHECK(routeOf(ld::decideAccess(tie, meshed(), req("GET /books"))) == "prefix");
  CHECK(routeOf(ld::decideAccess(tie, meshed(), req("GET /books/1"))) == "prefix");
  tie.httpRoutes.swap(0, 1);
  CHECK(routeOf(ld::decideAccess(tie, meshed(), req("GET /books"))) == "exact");
}

TEST_CASE("host precedence comes first: exact over wildcard over no hostnames") {
  ld::InboundRoute any = route("any", {pathMatch("exact", "/books/1")});
  ld::InboundRoute wildcard = route("wildcard", {pathMatch("prefix", "/")});
  wildcard.hostnames = {"*.example.com"};
  ld::InboundRoute exactHost = route("exact-host", {pathMatch("prefix", "/")});
  exactHost.hostnames = {"api.example.com"};
  ld::InboundPort p = httpPort({any, wildcard, exactHost}, {everyone("open")});
  CHECK(routeOf(ld::decideAccess(p, meshed(), req("GET /books/1"))) == "any");
  CHECK(routeOf(ld::decideAccess(p, meshed(), req("GET /books/1", "www.example.com"))) ==
        "wildcard");
  CHECK(routeOf(ld::decideAccess(p, meshed(), req("GET /books/1", "API.example.com."))) ==
        "exact-host");
}

TEST_CASE("prefixes match whole path segments") {
  CHECK(ld::pathPrefixMatches("/foo", "/foo"));
  CHECK(ld::pathPrefixMatches("/foo", "/foo/bar"));
  CHECK_FALSE(ld::pathPrefixMatches("/foo", "/foobar"));
  CHECK(ld::pathPrefixMatches("/foo/", "/foo/bar"));
  CHECK(ld::pathPrefixMatches("/foo/", "/foo"));
  CHECK(ld::pathPrefixMatches("/foo", "/foo/"));
  CHECK_FALSE(ld::pathPrefixMatches("/foo/", "/foobar"));
  CHECK(ld::pathPrefixMatches("/", "/anything"));
  ld::InboundPort p =
      httpPort({route("books", {pathMatch("prefix", "/books")})}, {everyone("open")});
  CHECK(ld::decideAccess(p, meshed(), req("GET /bookshelf")).decision == AccessDecision::NoRoute);
}

TEST_CASE("no route is a 404 before any authorization; a route nobody may use is a 403") {
  ld::InboundPort p = httpPort({route("books", {pathMatch("prefix", "/books", "GET")},
                                      {identities("readers", {exact(kFrontend)})})});
  policy::AccessResult missing = ld::decideAccess(p, meshed(), req("GET /other"));
  CHECK(missing.decision == AccessDecision::NoRoute);
  CHECK(missing.status == 404);
  CHECK(missing.considered.empty());
  CHECK(missing.advice.at(0).find("routes: HTTPRoute/books") != std::string::npos);
  policy::AccessResult wrongMethod = ld::decideAccess(p, meshed(), req("POST /books"));
  CHECK(wrongMethod.decision == AccessDecision::NoRoute);
  policy::AccessResult denied = ld::decideAccess(p, meshed("x.y"), req("GET /books"));
  CHECK(denied.decision == AccessDecision::Unauthorized);
  CHECK(denied.status == 403);
  CHECK(ld::decideAccess(p, meshed(), req("GET /books")).status == 200);
}

TEST_CASE("hostnames: a route with hostnames needs a matching --host") {
  ld::InboundRoute r = route("site", {pathMatch("prefix", "/")});
  r.hostnames = {"*.example.com"};
  ld::InboundPort p = httpPort({r}, {everyone("open")});
  policy::AccessResult noHost = ld::decideAccess(p, meshed(), req("GET /"));
  CHECK(noHost.decision == AccessDecision::NoRoute);
  CHECK(noHost.notes.at(0).find("no --host") != std::string::npos);
  CHECK(ld::decideAccess(p, meshed(), req("GET /", "a.example.com:8080")).decision ==
        AccessDecision::Allowed);
  CHECK(ld::decideAccess(p, meshed(), req("GET /", "example.com")).decision ==
        AccessDecision::NoRoute);
  CHECK(ld::hostnameMatches("API.example.com", "api.Example.com"));
}

TEST_CASE("opaque ports refuse connections by the server's authorizations alone") {
  ld::InboundPort p = httpPort({route("open", {pathMatch("prefix", "/")}, {everyone("route")})},
                               {identities("server", {exact(kFrontend)})}, "Opaque");
  policy::AccessResult plain = ld::decideAccess(p, at("10.0.0.1"), req("GET /"));
  CHECK(plain.decision == AccessDecision::Refused);
  CHECK_FALSE(plain.status);
  CHECK_FALSE(plain.route);
  REQUIRE(plain.considered.size() == 2);  // server, localhost: the route's is never read
  CHECK(plain.considered[0].ref.name == "server");
  CHECK(plain.notes.at(0).find("does not read HTTP") != std::string::npos);
  CHECK(ld::decideAccess(p, meshed(), {}).decision == AccessDecision::Allowed);
}

TEST_CASE("detect ports: HTTP routes for a request, the server's authorizations without one") {
  ld::InboundPort p = httpPort({route("open", {pathMatch("prefix", "/")}, {everyone("route")})},
                               {identities("server", {exact(kFrontend)})}, "Detect");
  CHECK(ld::decideAccess(p, at("10.0.0.1"), req("GET /")).decision == AccessDecision::Allowed);
  policy::AccessResult tcp = ld::decideAccess(p, at("10.0.0.1"), {});
  CHECK(tcp.decision == AccessDecision::Refused);
  CHECK(tcp.considered.at(0).ref.name == "server");
}

TEST_CASE("a route's authorizations come first, then the server's; either may admit") {
  ld::InboundPort p = httpPort({route("books", {pathMatch("prefix", "/books")},
                                      {identities("readers", {exact(kFrontend)})})},
                               {everyone("ops", {net("10.1.0.0/16")})});
  policy::AccessResult viaServer = ld::decideAccess(p, at("10.1.2.3"), req("GET /books"));
  CHECK(viaServer.decision == AccessDecision::Allowed);
  REQUIRE(viaServer.authorization);
  CHECK(viaServer.authorization->ref.name == "ops");
  CHECK(viaServer.authorization->level == "server");
  CHECK(viaServer.considered.at(0).level == "route");
  policy::AccessResult viaRoute = ld::decideAccess(p, meshed(), req("GET /books"));
  CHECK(viaRoute.authorization->ref.name == "readers");
  CHECK(viaRoute.authorization->level == "route");
  CHECK(ld::decideAccess(p, at("10.2.0.1"), req("GET /books")).decision ==
        AccessDecision::Unauthorized);
}

TEST_CASE("a redirect filter answers with its status once the client is authorized") {
  ld::InboundRoute r = route("old", {pathMatch("prefix", "/old")}, {everyone("open")});
  ld::Filter redirect;
  redirect.kind = ld::Filter::Kind::RequestRedirect;
  r.rules[0].filters.push_back(redirect);
  ld::InboundPort p = httpPort({r});
  policy::AccessResult moved = ld::decideAccess(p, at("10.0.0.1"), req("GET /old/x"));
  CHECK(moved.decision == AccessDecision::Redirect);
  CHECK(moved.status == 302);
  CHECK(policy::permitted(moved.decision));
  p.httpRoutes.edit(0).rules[0].filters[0].statusCode = 301;
  CHECK(ld::decideAccess(p, at("10.0.0.1"), req("GET /old")).status == 301);
  p.httpRoutes.edit(0).authorizations.clear();
  CHECK(ld::decideAccess(p, at("10.0.0.1"), req("GET /old")).status == 403);
}

TEST_CASE("gRPC: service and method matches, PERMISSION_DENIED and UNIMPLEMENTED") {
  ld::InboundPort p = httpPort({}, {identities("server", {exact(kFrontend)})}, "gRPC");
  ld::InboundRoute r;
  r.group = "gateway.networking.k8s.io";
  r.kind = "GRPCRoute";
  r.name = "books";
  ld::RouteRule rule;
  rule.grpcMatches.push_back({true, "shop.Books", "Get", {}});
  r.rules.push_back(rule);
  p.grpcRoutes = {r};
  policy::AccessResult ok = ld::decideAccess(p, meshed(), req("POST /shop.Books/Get"));
  CHECK(ok.decision == AccessDecision::Allowed);
  CHECK(ok.grpcStatus == "OK");
  policy::AccessResult unknown = ld::decideAccess(p, meshed(), req("POST /shop.Books/Put"));
  CHECK(unknown.decision == AccessDecision::NoRoute);
  CHECK(unknown.grpcStatus == "UNIMPLEMENTED");
  policy::AccessResult denied = ld::decideAccess(p, meshed("x.y"), req("POST /shop.Books/Get"));
  CHECK(denied.grpcStatus == "PERMISSION_DENIED");
}

TEST_CASE("clients from manifests: injection, the pod's service account, ServiceAccounts") {
  testing::TestFolder dir;
  dir.write("m.yaml", R"(apiVersion: v1
kind: Namespace
metadata:
  name: shop
  annotations:
    linkerd.io/inject: enabled
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: frontend
  namespace: shop
spec:
  selector: {matchLabels: {app: frontend}}
  template:
    metadata:
      labels: {app: frontend}
    spec:
      serviceAccountName: frontend
      containers: [{name: web, image: web}]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: batch
  namespace: shop
spec:
  selector: {matchLabels: {app: batch}}
  template:
    metadata:
      labels: {app: batch}
      annotations:
        linkerd.io/inject: disabled
    spec:
      containers: [{name: job, image: job}]
---
apiVersion: v1
kind: Pod
metadata:
  name: plain
  namespace: other
spec:
  containers: [{name: c, image: c}]
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: reader
  namespace: shop
)");
  config::Config config =
      config::parseConfig("linkerd:\n  identityDomain: example.org\n", ".policygraph.yaml");
  analysis::Analysis a =
      analysis::analyze(config, {{dir.path().string()}, dir.path(), 1, {}, {}, {}});
  auto find = [&](const char* kind, const char* ns, const char* name) -> const model::Resource& {
    std::vector<const model::Resource*> found = a.store.findByKind(kind, ns, name);
    REQUIRE(found.size() == 1);
    return *found.front();
  };
  policy::AccessClient frontend =
      ld::workloadClient(a.store, find("Deployment", "shop", "frontend"), a.config.linkerd);
  CHECK(frontend.meshed);
  CHECK(frontend.identity == "frontend.shop.serviceaccount.identity.linkerd.example.org");
  CHECK(frontend.meshedBecause.find("Namespace shop") != std::string::npos);
  CHECK_FALSE(frontend.address);
  CHECK(frontend.assumedNetworks == a.config.linkerd.clusterNetworks);
  policy::AccessClient batch =
      ld::workloadClient(a.store, find("Deployment", "shop", "batch"), a.config.linkerd);
  CHECK_FALSE(batch.meshed);
  CHECK(batch.identity.empty());
  CHECK_FALSE(ld::workloadClient(a.store, find("Pod", "other", "plain"), a.config.linkerd).meshed);
  policy::AccessClient reader =
      ld::serviceAccountClient(find("ServiceAccount", "shop", "reader"), a.config.linkerd);
  CHECK(reader.meshed);
  CHECK(reader.identity == "reader.shop.serviceaccount.identity.linkerd.example.org");
}

TEST_CASE("DecisionOnly decides as Full does, without the words") {
  // Ports and clients that reach every outcome: allowed by the route, by the server, only from
  // some addresses, 403, 404, opaque refusal, redirect.
  ld::Authorization partial = everyone("pods", {net("10.1.0.0/16")});
  ld::InboundRoute books =
      route("books", {pathMatch("prefix", "/books")}, {identities("readers", {exact(kFrontend)})});
  ld::InboundRoute open = route("open", {pathMatch("exact", "/open")}, {everyone("all")});
  ld::InboundRoute old = route("old", {pathMatch("prefix", "/old")}, {everyone("all")});
  ld::Filter redirect;
  redirect.kind = ld::Filter::Kind::RequestRedirect;
  old.rules[0].filters.push_back(redirect);
  std::vector<ld::InboundPort> ports = {
      httpPort({books, open, old}, {partial}),
      httpPort({books}, {identities("server", {exact("other.ns.serviceaccount.identity")})}),
      httpPort({}, {everyone("all")}, "Opaque"),
      httpPort({}, {partial}, "Opaque"),
  };
  std::vector<policy::AccessClient> clients = {meshed(), meshed("stranger.ns"), at("10.1.2.3"),
                                               at("10.9.0.1"), at("127.0.0.1")};
  policy::AccessClient unknown = at("10.1.2.3");
  unknown.address.reset();
  clients.push_back(unknown);
  std::set<AccessDecision> seen;
  for (const ld::InboundPort& port : ports)
    for (const policy::AccessClient& client : clients)
      for (const char* request : {"GET /books/1", "GET /open", "GET /old/x", "GET /none"}) {
        CAPTURE(port.protocol);
        CAPTURE(client.display);
        CAPTURE(request);
        policy::AccessResult full = ld::decideAccess(port, client, req(request));
        policy::AccessResult quick =
            ld::decideAccess(port, client, req(request), ld::AccessDetail::DecisionOnly);
        CHECK(quick.decision == full.decision);
        CHECK(quick.status == full.status);
        CHECK(quick.condition == full.condition);
        CHECK(routeOf(quick) == routeOf(full));
        CHECK(quick.advice.empty());
        seen.insert(full.decision);
      }
  CHECK(seen.size() == 5);  // Allowed, Unauthorized, NoRoute, Refused, Redirect
}
