// Hierarchy paths: the paths the policy stage indexes once per route are the ones it would
// build on demand, for whole routes, route rules and the backends routes use.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "lib/analysis/analysis.h"
#include "lib/policy/engine.h"
#include "tests/unit/test_folder.h"

using namespace pg;

namespace {

// Two Gateways in two namespaces; `both` attaches to a listener of each (and so has two
// paths), `mesh` is a GAMMA route on a Service, `lost` names no Gateway that exists.
constexpr const char* kManifests = R"(apiVersion: v1
kind: Namespace
metadata:
  name: infra
---
apiVersion: v1
kind: Namespace
metadata:
  name: shop
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: gc
spec:
  controllerName: example.com/gateway
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: edge
  namespace: infra
spec:
  gatewayClassName: gc
  listeners:
    - name: http
      protocol: HTTP
      port: 80
      allowedRoutes:
        namespaces:
          from: All
    - name: other
      protocol: HTTP
      port: 8080
      allowedRoutes:
        namespaces:
          from: All
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: local
  namespace: shop
spec:
  gatewayClassName: gc
  listeners:
    - name: http
      protocol: HTTP
      port: 80
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: both
  namespace: shop
spec:
  parentRefs:
    - name: edge
      namespace: infra
    - name: local
  rules:
    - name: api
      backendRefs:
        - name: app
          port: 8080
    - backendRefs:
        - name: app
          port: 8080
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: mesh
  namespace: shop
spec:
  parentRefs:
    - group: ""
      kind: Service
      name: app
  rules:
    - name: all
      backendRefs:
        - name: app
          port: 8080
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: lost
  namespace: shop
spec:
  parentRefs:
    - name: nowhere
  rules:
    - name: r
      backendRefs:
        - name: app
          port: 8080
---
apiVersion: v1
kind: Service
metadata:
  name: app
  namespace: shop
spec:
  ports:
    - port: 8080
)";

std::vector<std::string> shown(const std::vector<policy::Path>& paths) {
  std::vector<std::string> out;
  for (const policy::Path& path : paths) {
    std::string line;
    for (const policy::Step& s : path)
      line += (line.empty() ? "" : " > ") + s.display() + "@" +
              std::to_string(static_cast<int>(s.level)) +
              (s.parent ? "#" + std::to_string(s.parent - s.route->parents.data()) : "");
    out.push_back(line);
  }
  return out;
}

}  // namespace

TEST_CASE("indexed route paths are the paths built on demand") {
  testing::TestFolder dir;
  dir.write("manifests.yaml", kManifests);
  analysis::Analysis a = analysis::analyze({}, {{dir.path().string()}, dir.path(), 1, {}, {}, {}});
  REQUIRE(a.topology.routes.size() == 3);

  struct Query {
    const model::Resource* target;
    std::string section;
  };
  std::vector<Query> queries;
  for (const graph::Route& route : a.topology.routes) {
    REQUIRE(a.policies.pathsOfRoute(route));
    queries.push_back({route.resource, ""});
    for (const graph::RouteRule& rule : route.rules)
      if (!rule.name.empty()) queries.push_back({route.resource, std::string(rule.name)});
  }
  const model::Resource* app = a.store.find("", "Service", "shop", "app");
  REQUIRE(app);
  queries.push_back({app, ""});
  queries.push_back({app, "8080"});

  std::vector<std::vector<std::string>> indexed;
  for (const Query& q : queries)
    indexed.push_back(
        shown(policy::pathsTo(a.policies, a.topology, a.store, *q.target, q.section)));

  // `both` goes through three listeners, and its rule through the same three.
  const model::Resource* both =
      a.store.find("gateway.networking.k8s.io", "HTTPRoute", "shop", "both");
  REQUIRE(both);
  CHECK(shown(policy::pathsTo(a.policies, a.topology, a.store, *both)).size() == 3);
  CHECK(shown(policy::pathsTo(a.policies, a.topology, a.store, *both, "api")).size() == 3);

  // An index of no routes: every path is built on demand again.
  a.policies.indexRoutePaths(graph::Topology{}, a.store);
  for (const graph::Route& route : a.topology.routes) CHECK_FALSE(a.policies.pathsOfRoute(route));
  for (std::size_t i = 0; i < queries.size(); ++i) {
    INFO(queries[i].target->display() << " " << queries[i].section);
    CHECK(shown(policy::pathsTo(a.policies, a.topology, a.store, *queries[i].target,
                                queries[i].section)) == indexed[i]);
  }
}

namespace {

// A TLSPolicy (a direct kind) and a RateLimitPolicy with defaults on Gateway `edge`, and an
// override RateLimitPolicy on route `both`: the Gateway and the routes behind it meet the same
// policies at the same steps, on paths of different lengths.
constexpr const char* kPolicies = R"(---
apiVersion: kuadrant.io/v1
kind: TLSPolicy
metadata:
  name: edge-tls
  namespace: infra
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: Gateway
    name: edge
  issuerRef:
    group: cert-manager.io
    kind: ClusterIssuer
    name: letsencrypt
---
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata:
  name: edge-limits
  namespace: infra
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: Gateway
    name: edge
  defaults:
    limits:
      global:
        rates:
        - limit: 100
          window: 1m
---
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata:
  name: both-limits
  namespace: shop
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: both
  overrides:
    limits:
      global:
        rates:
        - limit: 5
          window: 1m
)";

bool sameValue(const policy::Value& a, const policy::Value& b) {
  if (a.node != b.node || a.origin.policy != b.origin.policy || a.origin.step != b.origin.step ||
      a.origin.level != b.origin.level || a.origin.role != b.origin.role ||
      a.entries.size() != b.entries.size())
    return false;
  for (std::size_t i = 0; i < a.entries.size(); ++i)
    if (a.entries[i].first != b.entries[i].first ||
        !sameValue(a.entries[i].second, b.entries[i].second))
      return false;
  return true;
}

}  // namespace

TEST_CASE("the effective policies simulate() shares between objects are each object's own") {
  testing::TestFolder dir;
  dir.write("manifests.yaml", std::string(kManifests) + kPolicies);
  analysis::Analysis a = analysis::analyze({}, {{dir.path().string()}, dir.path(), 1, {}, {}, {}});
  REQUIRE(a.schema.violations.empty());
  std::size_t entries = 0;
  bool directOnGateway = false;
  for (const policy::ObjectEffective& o : a.policies.effective) {
    INFO(o.object->display());
    std::vector<policy::Effective> alone =
        policy::effectiveOn(a.policies, a.topology, a.store, *o.object);
    REQUIRE(o.effective.size() == alone.size());
    for (std::size_t i = 0; i < alone.size(); ++i) {
      const policy::Effective& shared = o.effective[i];
      CHECK(shared.profile == alone[i].profile);
      CHECK(shown({shared.path}) == shown({alone[i].path}));
      CHECK(sameValue(shared.value, alone[i].value));
      CHECK(shared.ineffective == alone[i].ineffective);
      CHECK(shared.overridden.size() == alone[i].overridden.size());
      ++entries;
      directOnGateway = directOnGateway ||
                        (o.object->kind == "Gateway" && shared.profile->kind == "TLSPolicy" &&
                         !shared.value.empty());
    }
  }
  CHECK(entries >= 4);
  CHECK(directOnGateway);
}
