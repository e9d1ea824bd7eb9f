// `policygraph graph` on meshes: Kuma's meshes, services, proxies, gateways and policies, and
// Linkerd's Servers, the workloads they serve, their routes and authorizations, in the drawing
// model and its three renderings, with --focus.
#include <doctest/doctest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "lib/analysis/analysis.h"
#include "lib/report/graph.h"
#include "tests/unit/graph_test_util.h"
#include "tests/unit/test_folder.h"

using namespace pg;
using testing::contains;
using testing::edgesOf;
using testing::EdgeTuple;
using testing::render;

namespace {

// Universal: a Mesh, a service proxy and a builtin gateway proxy, a MeshService selecting the
// first by tag, an external service, a MeshGateway with a route on it, a policy on a tag subset
// with a `to` item, and one on the MeshService with a `from` item; a policy naming a
// MeshService that does not exist.
constexpr const char* kKumaUniversal = R"(type: Mesh
name: default
meshServices:
  mode: Exclusive
---
type: Dataplane
mesh: default
name: backend-1
networking:
  address: 10.0.0.1
  inbound:
    - port: 8080
      tags:
        kuma.io/service: backend
        version: v1
---
type: Dataplane
mesh: default
name: edge-1
networking:
  address: 10.0.0.9
  gateway:
    type: BUILTIN
    tags:
      kuma.io/service: edge
---
type: MeshService
mesh: default
name: backend
spec:
  selector:
    dataplaneTags:
      kuma.io/service: backend
  ports:
    - port: 80
      targetPort: 8080
      appProtocol: http
---
type: MeshExternalService
mesh: default
name: payments
spec:
  match:
    type: HostnameGenerator
    port: 443
    protocol: tcp
  endpoints:
    - address: payments.example.com
      port: 443
---
type: MeshGateway
mesh: default
name: edge
selectors:
  - match:
      kuma.io/service: edge
conf:
  listeners:
    - port: 80
      protocol: HTTP
---
type: MeshHTTPRoute
mesh: default
name: edge-to-backend
spec:
  targetRef:
    kind: MeshGateway
    name: edge
  to:
    - targetRef:
        kind: Mesh
      rules:
        - matches:
            - path: {type: PathPrefix, value: /}
          default:
            backendRefs:
              - kind: MeshService
                name: backend
                port: 80
---
type: MeshTimeout
mesh: default
name: backend-timeouts
spec:
  targetRef:
    kind: MeshSubset
    tags:
      version: v1
  to:
    - targetRef:
        kind: MeshExternalService
        name: payments
      default:
        connectionTimeout: 2s
---
type: MeshTrafficPermission
mesh: default
name: allow-all
spec:
  targetRef:
    kind: MeshService
    name: backend
  from:
    - targetRef:
        kind: Mesh
      default:
        action: Allow
---
type: MeshRetry
mesh: default
name: lost
spec:
  targetRef:
    kind: Mesh
  to:
    - targetRef:
        kind: MeshService
        name: nowhere
      default:
        http:
          numRetries: 2
)";

// Kubernetes: an injected namespace, whose Deployment gets a proxy and whose Service becomes a
// MeshService (the mesh's meshServices mode is not Disabled).
constexpr const char* kKumaKubernetes = R"(apiVersion: kuma.io/v1alpha1
kind: Mesh
metadata:
  name: default
spec:
  meshServices:
    mode: Exclusive
---
apiVersion: v1
kind: Namespace
metadata:
  name: shop
  labels:
    kuma.io/sidecar-injection: enabled
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
  namespace: shop
spec:
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      containers:
        - name: api
          image: example.com/api:1
          ports:
            - containerPort: 8080
---
apiVersion: v1
kind: Service
metadata:
  name: api
  namespace: shop
spec:
  selector: {app: api}
  ports:
    - port: 80
      targetPort: 8080
---
apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: api-timeouts
  namespace: kuma-system
  labels:
    kuma.io/mesh: default
spec:
  targetRef:
    kind: Dataplane
    labels:
      app: api
  to:
    - targetRef:
        kind: MeshService
        name: api
        namespace: shop
        sectionName: "80"
      default:
        idleTimeout: 20s
)";

// Linkerd: a Server on a Deployment's port, a policy.linkerd.io route and a Gateway API route on
// it, an AuthorizationPolicy on the route that requires a NetworkAuthentication and a
// MeshTLSAuthentication, one on the Namespace, a ServerAuthorization by selector, a route whose
// Server does not exist, and a policy ignored for a missing authentication.
constexpr const char* kLinkerd = R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: shop}
spec:
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers:
      - name: api
        image: example.com/api:1.0
        ports:
        - {name: http, containerPort: 8080}
        - {name: admin, containerPort: 9990}
---
apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: api, namespace: shop, labels: {tier: web}}
spec:
  podSelector: {matchLabels: {app: api}}
  port: http
  proxyProtocol: HTTP/1
---
apiVersion: policy.linkerd.io/v1beta3
kind: HTTPRoute
metadata: {name: books, namespace: shop}
spec:
  parentRefs:
  - {group: policy.linkerd.io, kind: Server, name: api}
  rules:
  - matches:
    - path: {type: PathPrefix, value: /books}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: health, namespace: shop}
spec:
  parentRefs:
  - {group: policy.linkerd.io, kind: Server, name: api}
  rules:
  - matches:
    - path: {type: Exact, value: /healthz}
---
apiVersion: policy.linkerd.io/v1beta3
kind: HTTPRoute
metadata: {name: stray, namespace: shop}
spec:
  parentRefs:
  - {group: policy.linkerd.io, kind: Server, name: gone}
---
apiVersion: policy.linkerd.io/v1alpha1
kind: NetworkAuthentication
metadata: {name: office, namespace: shop}
spec:
  networks: [{cidr: 192.0.2.0/24}]
---
apiVersion: policy.linkerd.io/v1alpha1
kind: MeshTLSAuthentication
metadata: {name: frontend, namespace: shop}
spec:
  identities: ["frontend.shop.serviceaccount.identity.linkerd.cluster.local"]
---
apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: books-readers, namespace: shop}
spec:
  targetRef: {group: policy.linkerd.io, kind: HTTPRoute, name: books}
  requiredAuthenticationRefs:
  - {group: policy.linkerd.io, kind: NetworkAuthentication, name: office}
  - {group: policy.linkerd.io, kind: MeshTLSAuthentication, name: frontend}
---
apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: everyone, namespace: shop}
spec:
  targetRef: {kind: Namespace, name: shop}
  requiredAuthenticationRefs: []
---
apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: dangling, namespace: shop}
spec:
  targetRef: {group: policy.linkerd.io, kind: Server, name: api}
  requiredAuthenticationRefs:
  - {group: policy.linkerd.io, kind: NetworkAuthentication, name: vpn}
---
apiVersion: policy.linkerd.io/v1beta1
kind: ServerAuthorization
metadata: {name: web-tier, namespace: shop}
spec:
  server:
    selector: {matchLabels: {tier: web}}
  client:
    unauthenticated: true
)";

analysis::Analysis analyze(const testing::TestFolder& dir) {
  analysis::Analysis a = analysis::analyze({}, {{dir.path().string()}, dir.path(), 1, {}, {}, {}});
  REQUIRE(a.problems.empty());
  return a;
}

nlohmann::json nodeOf(const nlohmann::json& doc, const std::string& id) {
  for (const auto& n : doc["nodes"])
    if (n["id"] == id) return n;
  FAIL("no node " << id);
  return {};
}

std::vector<std::string> idsOf(const report::Graph& g) {
  std::vector<std::string> ids;
  for (const report::GraphNode& n : g.nodes) ids.push_back(n.id);
  return ids;
}

}  // namespace

TEST_CASE("graph JSON, Kuma Universal: mesh members, endpoints, gateway route, policy targets") {
  testing::TestFolder dir;
  dir.write("kuma.yaml", kKumaUniversal);
  analysis::Analysis a = analyze(dir);
  nlohmann::json doc = nlohmann::json::parse(render(report::buildGraph(a), report::writeGraphJson));

  std::vector<EdgeTuple> expected = {
      {"mesh_default", "meshgateway_edge", "member", true, ""},
      {"mesh_default", "meshservice_backend", "member", true, ""},
      {"mesh_default", "meshexternalservice_payments", "member", true, ""},
      {"mesh_default", "dataplane_backend_1", "member", true, ""},
      {"mesh_default", "dataplane_edge_1", "member", true, ""},
      {"meshgateway_edge", "dataplane_edge_1", "gateway-proxy", true, ""},
      {"meshservice_backend", "dataplane_backend_1", "endpoint", true, ""},
      {"meshgateway_edge", "policy_meshhttproute_edge_to_backend", "gateway-route", true, ""},
      {"policy_meshhttproute_edge_to_backend", "mesh_default", "to", true, ""},
      {"policy_meshhttproute_edge_to_backend", "meshservice_backend", "backend", true, ""},
      {"policy_meshtimeout_backend_timeouts", "dataplane_backend_1", "policy", true, ""},
      {"policy_meshtimeout_backend_timeouts", "meshexternalservice_payments", "to", true, ""},
      {"policy_meshtrafficpermission_allow_all", "meshservice_backend", "policy", true, ""},
      {"policy_meshtrafficpermission_allow_all", "mesh_default", "from", true, ""},
      {"policy_meshretry_lost", "mesh_default", "policy", true, ""},
      {"policy_meshretry_lost", "missing_meshservice_nowhere", "to", false, "NotFound"},
  };
  CHECK(edgesOf(doc) == expected);
  CHECK(nodeOf(doc, "mesh_default") ==
        nlohmann::json{{"id", "mesh_default"},
                       {"kind", "Mesh"},
                       {"namespace", ""},
                       {"name", "default"},
                       {"label", "Mesh default\nmeshServices Exclusive"},
                       {"status", "ok"}});
  CHECK(nodeOf(doc, "dataplane_backend_1")["label"] == "Dataplane backend-1\nmesh default");
  CHECK(nodeOf(doc, "dataplane_backend_1")["kind"] == "Dataplane");
  CHECK(nodeOf(doc, "meshexternalservice_payments")["kind"] == "MeshExternalService");
  CHECK(nodeOf(doc, "meshgateway_edge")["kind"] == "MeshGateway");
  CHECK(nodeOf(doc, "policy_meshhttproute_edge_to_backend")["label"] ==
        "MeshHTTPRoute\nedge-to-backend\nmesh default");
  CHECK(nodeOf(doc, "missing_meshservice_nowhere")["status"] == "missing");
}

TEST_CASE("graph JSON, Kuma on Kubernetes: the derived proxy names its workload") {
  testing::TestFolder dir;
  dir.write("kuma.yaml", kKumaKubernetes);
  analysis::Analysis a = analyze(dir);
  nlohmann::json doc = nlohmann::json::parse(render(report::buildGraph(a), report::writeGraphJson));
  std::vector<EdgeTuple> expected = {
      {"mesh_default", "meshservice_shop_api", "member", true, ""},
      {"mesh_default", "dataplane_shop_api", "member", true, ""},
      {"meshservice_shop_api", "dataplane_shop_api", "endpoint", true, ""},
      {"policy_meshtimeout_kuma_system_api_timeouts", "dataplane_shop_api", "policy", true, ""},
      {"policy_meshtimeout_kuma_system_api_timeouts", "meshservice_shop_api", "to", true, ""},
  };
  CHECK(edgesOf(doc) == expected);
  CHECK(nodeOf(doc, "dataplane_shop_api") ==
        nlohmann::json{{"id", "dataplane_shop_api"},
                       {"kind", "Dataplane"},
                       {"namespace", "shop"},
                       {"name", "api"},
                       {"label", "Dataplane shop/api\nproxy of Deployment/shop/api"},
                       {"status", "ok"}});
  CHECK(nodeOf(doc, "meshservice_shop_api")["label"] ==
        "MeshService shop/api\nfrom Service/shop/api");
  // The section a `to` item names labels its edge in the drawings.
  report::Graph g = report::buildGraph(a);
  auto to = std::find_if(g.edges.begin(), g.edges.end(),
                         [](const report::GraphEdge& e) { return e.kind == "to"; });
  REQUIRE(to != g.edges.end());
  CHECK(to->detail == "to 80");
}

TEST_CASE("graph JSON, Linkerd: Servers serve workloads, routes name their Server, policies") {
  testing::TestFolder dir;
  dir.write("linkerd.yaml", kLinkerd);
  analysis::Analysis a = analyze(dir);
  report::Graph g = report::buildGraph(a);
  nlohmann::json doc = nlohmann::json::parse(render(g, report::writeGraphJson));
  std::vector<EdgeTuple> expected = {
      {"httproute_shop_health", "server_shop_api", "server-parent", true, ""},
      {"server_shop_api", "workload_deployment_shop_api", "serves", true, ""},
      {"route_httproute_shop_books", "server_shop_api", "server-parent", true, ""},
      {"route_httproute_shop_stray", "missing_server_shop_gone", "missing", false,
       "NoMatchingParent"},
      {"policy_authorizationpolicy_shop_books_readers", "route_httproute_shop_books", "policy",
       true, ""},
      {"policy_authorizationpolicy_shop_books_readers", "policy_networkauthentication_shop_office",
       "requires", true, ""},
      {"policy_authorizationpolicy_shop_books_readers",
       "policy_meshtlsauthentication_shop_frontend", "requires", true, ""},
      {"policy_authorizationpolicy_shop_everyone", "namespace_shop", "policy", true, ""},
      {"policy_authorizationpolicy_shop_dangling", "server_shop_api", "policy", false, "Ignored"},
      {"policy_authorizationpolicy_shop_dangling", "missing_networkauthentication_shop_vpn",
       "missing", false, "NotFound"},
      {"policy_serverauthorization_shop_web_tier", "server_shop_api", "policy", true, ""},
  };
  CHECK(edgesOf(doc) == expected);
  CHECK(nodeOf(doc, "server_shop_api") ==
        nlohmann::json{{"id", "server_shop_api"},
                       {"kind", "Server"},
                       {"namespace", "shop"},
                       {"name", "api"},
                       {"label", "Server shop/api\nport http HTTP/1"},
                       {"status", "ok"}});
  // A route only a Server takes is accepted, not the "rejected" of a route no Gateway took.
  CHECK(nodeOf(doc, "httproute_shop_health")["status"] == "ok");
  CHECK(nodeOf(doc, "route_httproute_shop_books")["status"] == "ok");
  CHECK(nodeOf(doc, "route_httproute_shop_stray")["status"] == "rejected");
  CHECK(nodeOf(doc, "policy_authorizationpolicy_shop_dangling")["status"] == "rejected");
  CHECK(nodeOf(doc, "namespace_shop")["kind"] == "Namespace");
  // The ports a Server serves label its edge; references point up at what they name.
  auto serves = std::find_if(g.edges.begin(), g.edges.end(),
                             [](const report::GraphEdge& e) { return e.kind == "serves"; });
  REQUIRE(serves != g.edges.end());
  CHECK(serves->detail == "port 8080");
  for (const report::GraphEdge& e : g.edges)
    CHECK(e.upward == (e.kind == "server-parent" || e.kind == "requires" || e.kind == "missing"));
}

TEST_CASE("graph DOT and Mermaid draw the mesh kinds with their own shapes and edge labels") {
  testing::TestFolder dir;
  dir.write("kuma.yaml", kKumaUniversal);
  dir.write("k8s/linkerd.yaml", kLinkerd);
  analysis::Analysis a = analyze(dir);
  report::Graph g = report::buildGraph(a);
  std::string dot = render(g, report::writeGraphDot);
  CHECK(contains(dot,
                 "  mesh_default [label=\"Mesh default\\nmeshServices Exclusive\", "
                 "tooltip=\"Mesh/default\", shape=box, style=\"rounded,filled\", "
                 "fillcolor=\"#c5cae9\""));
  CHECK(contains(dot,
                 "  dataplane_backend_1 [label=\"Dataplane backend-1\\nmesh default\", "
                 "tooltip=\"Dataplane/backend-1\", shape=component"));
  CHECK(contains(dot,
                 "    server_shop_api [label=\"Server shop/api\\nport http HTTP/1\", "
                 "tooltip=\"Server/shop/api\", shape=box, style=\"rounded,filled\", "
                 "fillcolor=\"#b3e5fc\""));
  CHECK(
      contains(dot, "  policy_meshtrafficpermission_allow_all -> mesh_default [label=\"from\"];"));
  CHECK(contains(dot, "  server_shop_api -> workload_deployment_shop_api [label=\"port 8080\"];"));
  // A route names its Server: drawn from the Server, the arrow turned back at it.
  CHECK(contains(dot, "  server_shop_api -> route_httproute_shop_books [dir=back];"));
  CHECK(contains(dot,
                 "  policy_networkauthentication_shop_office -> "
                 "policy_authorizationpolicy_shop_books_readers [dir=back];"));

  std::string mermaid = render(g, report::writeGraphMermaid);
  CHECK(contains(mermaid, "  mesh_default[/\"Mesh default<br>meshServices Exclusive\"\\]\n"));
  CHECK(contains(mermaid, "  dataplane_backend_1[/\"Dataplane backend-1<br>mesh default\"/]\n"));
  CHECK(contains(mermaid, "    server_shop_api[\\\"Server shop/api<br>port http HTTP/1\"/]\n"));
  CHECK(contains(mermaid, "    workload_deployment_shop_api[/\"Deployment shop/api\"/]\n"));
  CHECK(contains(mermaid, "  meshgateway_edge --> policy_meshhttproute_edge_to_backend\n"));
  CHECK(contains(mermaid, "  server_shop_api -->|\"port 8080\"| workload_deployment_shop_api\n"));
  CHECK(contains(mermaid, "  server_shop_api --> route_httproute_shop_books\n"));
  CHECK(contains(mermaid,
                 "  policy_meshretry_lost -.-x|\"NotFound\"| missing_meshservice_nowhere\n"));
}

TEST_CASE("graph --focus on mesh objects: ancestors and descendants, not the whole mesh") {
  testing::TestFolder dir;
  dir.write("kuma.yaml", kKumaUniversal);
  dir.write("k8s/linkerd.yaml", kLinkerd);
  analysis::Analysis a = analyze(dir);

  // A proxy: its mesh, the MeshService it implements, the route sending to that and the gateway
  // it is on, and the policies that select any of them; a policy whose `to` or `from` names the
  // mesh does not come along.
  report::Graph proxy = report::buildGraph(a);
  REQUIRE(report::focusGraph(proxy, "Dataplane/backend-1"));
  CHECK(idsOf(proxy) == std::vector<std::string>{
                            "mesh_default", "meshgateway_edge", "meshservice_backend",
                            "dataplane_backend_1", "policy_meshhttproute_edge_to_backend",
                            "policy_meshtimeout_backend_timeouts",
                            "policy_meshtrafficpermission_allow_all", "policy_meshretry_lost"});

  // A Server: what it serves (the workload, the routes naming it) and the policies on it; not
  // the Namespace policy, nor the route of a Server that does not exist.
  report::Graph server = report::buildGraph(a);
  REQUIRE(report::focusGraph(server, "Server/shop/api"));
  CHECK(idsOf(server) ==
        std::vector<std::string>{
            "httproute_shop_health", "server_shop_api", "workload_deployment_shop_api",
            "route_httproute_shop_books", "policy_authorizationpolicy_shop_dangling",
            "missing_networkauthentication_shop_vpn", "policy_serverauthorization_shop_web_tier"});

  // A route: its Server and what is above it, its own policy and the authentications that
  // policy requires.
  report::Graph route = report::buildGraph(a);
  REQUIRE(report::focusGraph(route, "HTTPRoute/shop/books"));
  std::vector<std::string> ids = idsOf(route);
  for (const char* id :
       {"server_shop_api", "route_httproute_shop_books",
        "policy_authorizationpolicy_shop_books_readers", "policy_networkauthentication_shop_office",
        "policy_meshtlsauthentication_shop_frontend", "policy_authorizationpolicy_shop_dangling",
        "policy_serverauthorization_shop_web_tier"})
    CHECK_MESSAGE(std::count(ids.begin(), ids.end(), id) == 1, id);
  CHECK(std::count(ids.begin(), ids.end(), "workload_deployment_shop_api") == 0);
  CHECK(std::count(ids.begin(), ids.end(), "httproute_shop_health") == 0);

  report::Graph gateway = report::buildGraph(a);
  REQUIRE(report::focusGraph(gateway, "MeshGateway/edge"));
  // A policy on the whole mesh is above it; the route on it and the service it sends to are
  // below; what the route's `to` names (the mesh) is not.
  CHECK(idsOf(gateway) ==
        std::vector<std::string>{"mesh_default", "meshgateway_edge", "meshservice_backend",
                                 "dataplane_backend_1", "dataplane_edge_1",
                                 "policy_meshhttproute_edge_to_backend", "policy_meshretry_lost"});

  // A policy: its top-level target with what is below it, and what its items name.
  report::Graph policy = report::buildGraph(a);
  REQUIRE(report::focusGraph(policy, "MeshTimeout/backend-timeouts"));
  CHECK(idsOf(policy) == std::vector<std::string>{"meshexternalservice_payments",
                                                  "dataplane_backend_1",
                                                  "policy_meshtimeout_backend_timeouts"});
}
