// `policygraph graph`: the drawing model built from a small repository, its three renderings,
// --focus, and determinism.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
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

// One of each thing the graph must show: a route a listener accepted, one a listener rejected,
// one naming a Gateway that does not exist, one whose backend port does not exist, one naming a
// listener the Gateway lacks, a GAMMA route on a Service, and a Gateway of a class that is not
// in the input (simulated all the same, its class drawn as missing).
// The controller name has characters every format must escape, which the upstream
// GatewayClass schema's pattern refuses: the repository's own CRD, open, replaces it.
constexpr const char* kOpenGatewayClassCrd = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gatewayclasses.gateway.networking.k8s.io
spec:
  group: gateway.networking.k8s.io
  names: {kind: GatewayClass, plural: gatewayclasses}
  scope: Cluster
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
)";

constexpr const char* kInfra = R"(apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: gc
spec:
  controllerName: 'example.com/"quoted" <controller> #1 & co'
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: gw
  namespace: infra
spec:
  gatewayClassName: gc
  listeners:
    - name: web
      protocol: HTTP
      port: 80
      hostname: "*.example.com"
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: orphan
  namespace: infra
spec:
  gatewayClassName: nowhere
  listeners:
    - name: web
      protocol: HTTP
      port: 80
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: infra
spec:
  ports:
    - port: 80
)";

constexpr const char* kRoutes = R"(apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: ok
  namespace: infra
spec:
  parentRefs:
    - name: gw
      sectionName: web
  hostnames: [www.example.com]
  rules:
    - name: main
      backendRefs:
        - name: web
          port: 80
    - filters:
        - type: RequestRedirect
          requestRedirect:
            scheme: https
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: blocked
  namespace: app
spec:
  parentRefs:
    - name: gw
      namespace: infra
  rules:
    - backendRefs:
        - name: api
          port: 8080
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: lost
  namespace: infra
spec:
  parentRefs:
    - name: nope
  rules:
    - backendRefs:
        - name: web
          port: 80
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: broken
  namespace: infra
spec:
  parentRefs:
    - name: gw
  rules:
    - backendRefs:
        - name: web
          port: 9999
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: misnamed
  namespace: infra
spec:
  parentRefs:
    - name: gw
      sectionName: websecure
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: unsimulated
  namespace: infra
spec:
  parentRefs:
    - name: orphan
)";

constexpr const char* kMesh = R"(apiVersion: v1
kind: Service
metadata:
  name: api
  namespace: app
spec:
  ports:
    - port: 8080
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: mesh
  namespace: app
spec:
  parentRefs:
    - group: ""
      kind: Service
      name: api
  rules:
    - backendRefs:
        - name: api
          port: 8080
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: ghost
  namespace: app
spec:
  parentRefs:
    - group: ""
      kind: Service
      name: gone
)";

struct Fixture {
  testing::TestFolder dir;
  analysis::Analysis analysis;

  explicit Fixture(unsigned jobs = 1) {
    dir.write("0-crds.yaml", kOpenGatewayClassCrd);
    dir.write("1-infra.yaml", kInfra);
    dir.write("2-routes.yaml", kRoutes);
    dir.write("3-mesh.yaml", kMesh);
    analysis = analysis::analyze({}, {{dir.path().string()}, dir.path(), jobs, {}, {}, {}});
    REQUIRE(analysis.problems.empty());
  }
};

const nlohmann::json* nodeOf(const nlohmann::json& doc, const std::string& id) {
  for (const auto& n : doc["nodes"])
    if (n["id"] == id) return &n;
  return nullptr;
}

}  // namespace

TEST_CASE("graph JSON: every node and edge, in store order, with statuses and reasons") {
  Fixture f;
  report::Graph g = report::buildGraph(f.analysis);
  nlohmann::json doc = nlohmann::json::parse(render(g, report::writeGraphJson));

  // Parents before children; edges in the order the topology holds the objects.
  std::vector<EdgeTuple> expected = {
      {"gatewayclass_gc", "gateway_infra_gw", "class", true, ""},
      {"gateway_infra_gw", "listener_infra_gw_web", "listener", true, ""},
      {"gateway_infra_orphan", "missing_gatewayclass_nowhere", "missing", false, "NotFound"},
      {"gateway_infra_orphan", "listener_infra_orphan_web", "listener", true, ""},
      {"listener_infra_gw_web", "httproute_infra_ok", "attached", true, ""},
      {"httproute_infra_ok", "rule_httproute_infra_ok_0", "rule", true, ""},
      {"rule_httproute_infra_ok_0", "backend_service_infra_web_80", "backend", true, ""},
      {"httproute_app_blocked", "listener_infra_gw_web", "rejected", false,
       "NotAllowedByListeners"},
      {"httproute_app_blocked", "rule_httproute_app_blocked_0", "rule", true, ""},
      {"rule_httproute_app_blocked_0", "backend_service_app_api_8080", "backend", true, ""},
      {"httproute_infra_lost", "missing_gateway_infra_nope", "missing", false, "NotFound"},
      {"httproute_infra_lost", "rule_httproute_infra_lost_0", "rule", true, ""},
      {"rule_httproute_infra_lost_0", "backend_service_infra_web_80", "backend", true, ""},
      {"listener_infra_gw_web", "httproute_infra_broken", "attached", true, ""},
      {"httproute_infra_broken", "rule_httproute_infra_broken_0", "rule", true, ""},
      {"rule_httproute_infra_broken_0", "backend_service_infra_web_9999", "backend", false,
       "BackendNotFound"},
      {"httproute_infra_misnamed", "gateway_infra_gw", "rejected", false, "NoMatchingParent"},
      {"listener_infra_orphan_web", "httproute_infra_unsimulated", "attached", true, ""},
      {"service_app_api", "httproute_app_mesh", "mesh", true, ""},
      {"httproute_app_mesh", "rule_httproute_app_mesh_0", "rule", true, ""},
      {"rule_httproute_app_mesh_0", "backend_service_app_api_8080", "backend", true, ""},
      {"httproute_app_ghost", "service_app_gone", "missing", false, "NoMatchingParent"},
  };
  CHECK(edgesOf(doc) == expected);

  std::vector<std::string> ids;
  for (const auto& n : doc["nodes"]) ids.push_back(n["id"]);
  CHECK(ids == std::vector<std::string>{"gatewayclass_gc",
                                        "gateway_infra_gw",
                                        "listener_infra_gw_web",
                                        "gateway_infra_orphan",
                                        "missing_gatewayclass_nowhere",
                                        "listener_infra_orphan_web",
                                        "httproute_infra_ok",
                                        "rule_httproute_infra_ok_0",
                                        "backend_service_infra_web_80",
                                        "httproute_app_blocked",
                                        "rule_httproute_app_blocked_0",
                                        "backend_service_app_api_8080",
                                        "httproute_infra_lost",
                                        "missing_gateway_infra_nope",
                                        "rule_httproute_infra_lost_0",
                                        "httproute_infra_broken",
                                        "rule_httproute_infra_broken_0",
                                        "backend_service_infra_web_9999",
                                        "httproute_infra_misnamed",
                                        "httproute_infra_unsimulated",
                                        "httproute_app_mesh",
                                        "service_app_api",
                                        "rule_httproute_app_mesh_0",
                                        "httproute_app_ghost",
                                        "service_app_gone"});

  auto node = [&](const std::string& id) {
    const nlohmann::json* n = nodeOf(doc, id);
    REQUIRE(n);
    return *n;
  };
  CHECK(node("listener_infra_gw_web") ==
        nlohmann::json{{"id", "listener_infra_gw_web"},
                       {"kind", "Listener"},
                       {"namespace", "infra"},
                       {"name", "web"},
                       {"label", "web\nHTTP :80 *.example.com\nattachedRoutes: 2"},
                       {"status", "ok"}});
  CHECK(node("httproute_infra_ok")["label"] == "HTTPRoute infra/ok\nwww.example.com");
  CHECK(node("httproute_infra_ok")["status"] == "ok");
  CHECK(node("rule_httproute_infra_ok_0")["label"] == "rule main");
  CHECK(node("rule_httproute_infra_ok_0")["name"] == "main");
  CHECK(node("rule_httproute_app_blocked_0")["label"] == "rules[0]");
  CHECK(node("httproute_app_blocked")["status"] == "rejected");
  CHECK(node("httproute_infra_lost")["status"] == "rejected");
  CHECK(node("httproute_infra_misnamed")["status"] == "rejected");
  CHECK(node("httproute_infra_broken")["status"] == "unresolved");
  CHECK(node("rule_httproute_infra_broken_0")["status"] == "unresolved");
  CHECK(node("httproute_infra_unsimulated")["status"] == "ok");
  CHECK(node("gateway_infra_orphan")["status"] == "ok");
  CHECK(node("httproute_app_mesh")["status"] == "ok");
  CHECK(node("httproute_app_ghost")["status"] == "rejected");
  CHECK(node("missing_gateway_infra_nope") ==
        nlohmann::json{{"id", "missing_gateway_infra_nope"},
                       {"kind", "Gateway"},
                       {"namespace", "infra"},
                       {"name", "nope"},
                       {"label", "Gateway infra/nope\nnot found"},
                       {"status", "missing"}});
  CHECK(node("backend_service_infra_web_9999")["label"] == "Service infra/web:9999\nno port 9999");
  CHECK(node("backend_service_infra_web_9999")["status"] == "missing");
  CHECK(node("backend_service_infra_web_80")["label"] == "Service infra/web:80");
  CHECK(node("service_app_gone")["status"] == "missing");
  CHECK(node("gatewayclass_gc")["label"] ==
        "GatewayClass gc\nexample.com/\"quoted\" <controller> #1 & co");

  // The model keeps what JSON leaves out: details for people, and the direction drawings use.
  const report::GraphEdge& misnamed = g.edges[16];
  CHECK(misnamed.detail == "Gateway has no listener named websecure");
  CHECK(misnamed.upward);
  CHECK(g.edges[7].detail == "does not admit routes from namespace app");
  CHECK(!g.edges[4].upward);
}

TEST_CASE("graph DOT: clusters per namespace, parent-first edges, valid Graphviz") {
  Fixture f;
  std::string dot = render(report::buildGraph(f.analysis), report::writeGraphDot);
  CHECK(dot.rfind("digraph policygraph {\n", 0) == 0);
  CHECK(contains(dot, "rankdir=LR"));
  CHECK(contains(dot, "subgraph cluster_ns_infra {\n    label=\"namespace infra\";"));
  CHECK(contains(dot, "subgraph cluster_ns_app {"));
  CHECK(contains(dot, "subgraph cluster_gateway_infra_gw {"));
  CHECK(contains(dot, "  listener_infra_gw_web -> httproute_infra_ok [color=\"#2e7d32\""));
  // A rejection is drawn from the listener, with the arrow turned back towards it.
  CHECK(contains(dot,
                 "  listener_infra_gw_web -> httproute_app_blocked [color=\"#c62828\", "
                 "fontcolor=\"#c62828\", style=dashed, penwidth=1.5, "
                 "label=\"NotAllowedByListeners\\ndoes not admit routes from namespace app\", "
                 "dir=back];"));
  CHECK(contains(dot,
                 "  gateway_infra_gw -> httproute_infra_misnamed [color=\"#c62828\", "
                 "fontcolor=\"#c62828\", style=dashed, penwidth=1.5, "
                 "label=\"NoMatchingParent\\nGateway has no listener named websecure\", "
                 "dir=back, minlen=2];"));
  CHECK(contains(dot, "  missing_gateway_infra_nope -> httproute_infra_lost [color=\"#c62828\""));
  CHECK(contains(dot,
                 "  rule_httproute_infra_broken_0 -> backend_service_infra_web_9999 "
                 "[color=\"#c62828\", fontcolor=\"#c62828\", style=dashed, penwidth=1.5, "
                 "label=\"BackendNotFound\"];"));
  CHECK(contains(dot,
                 "  service_app_api -> httproute_app_mesh [color=\"#2e7d32\", penwidth=1.5, "
                 "label=\"producer\"];"));
  CHECK(contains(dot, "missing_gateway_infra_nope [label=\"Gateway infra/nope\\nnot found\""));
  CHECK(
      contains(dot, "label=\"GatewayClass gc\\nexample.com/\\\"quoted\\\" <controller> #1 & co\""));

  // Graphviz itself is the judge, when it is installed; it is no build dependency.
  if (std::system("command -v dot >/dev/null 2>&1") != 0) {
    MESSAGE("dot is not installed: Graphviz syntax not checked");
    return;
  }
  testing::TestFolder out;
  std::filesystem::path file = out.write("graph.dot", dot);
  std::string command = "dot -Tsvg '" + file.string() + "' -o '" +
                        (out.path() / "graph.svg").string() + "' 2>'" +
                        (out.path() / "err").string() + "'";
  CHECK(std::system(command.c_str()) == 0);
  std::ifstream err(out.path() / "err");
  std::string messages((std::istreambuf_iterator<char>(err)), {});
  // Font substitutions may be reported on some machines; syntax errors never may.
  CHECK_MESSAGE(messages.find("rror") == std::string::npos, messages);
  CHECK_MESSAGE(messages.find("syntax") == std::string::npos, messages);
}

TEST_CASE("graph Mermaid: flowchart LR, subgraphs, safe ids, quoted labels, classes") {
  Fixture f;
  report::Graph g = report::buildGraph(f.analysis);
  std::string mermaid = render(g, report::writeGraphMermaid);
  std::istringstream lines(mermaid);
  std::string line;
  std::getline(lines, line);
  CHECK(line == "flowchart LR");

  std::vector<std::string> edges;
  int subgraphs = 0, ends = 0;
  std::regex nodeLine(
      R"re(^ +([A-Za-z0-9_]+)(\{\{|\[\[|\(\[|\[\(|\[|\()"(.*)"(\}\}|\]\]|\]\)|\)\]|\]|\))$)re");
  std::regex edgeLine(
      R"re(^  ([A-Za-z0-9_]+) (-->|-\.-x|--x|-\.-)(\|"[^"]*"\|)? ([A-Za-z0-9_]+)$)re");
  std::set<std::string> declared;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (line.rfind("  subgraph ", 0) == 0) {
      ++subgraphs;
      continue;
    }
    if (line == "  end") {
      ++ends;
      continue;
    }
    if (line.rfind("  classDef ", 0) == 0 || line.rfind("  class ", 0) == 0 ||
        line.rfind("  linkStyle ", 0) == 0)
      continue;
    if (std::regex_match(line, m, edgeLine)) {
      CHECK(declared.count(m[1]));
      CHECK(declared.count(m[4]));
      edges.push_back(line);
      continue;
    }
    REQUIRE_MESSAGE(std::regex_match(line, m, nodeLine), line);
    // Inside the quotes nothing may end the label early.
    CHECK(m[3].str().find('"') == std::string::npos);
    declared.insert(m[1]);
  }
  CHECK(subgraphs == 2);  // infra, app; the GatewayClass is cluster-scoped
  CHECK(ends == 2);
  CHECK(declared.size() == g.nodes.size());
  CHECK(edges.size() == g.edges.size());

  CHECK(contains(mermaid, "  subgraph ns_infra[\"namespace infra\"]\n"));
  CHECK(contains(mermaid,
                 "    listener_infra_gw_web([\"web<br>HTTP :80 *.example.com<br>"
                 "attachedRoutes: 2\"])\n"));
  CHECK(contains(mermaid,
                 "  gatewayclass_gc{{\"GatewayClass gc<br>example.com/#quot;quoted#quot; "
                 "#lt;controller#gt; #35;1 #amp; co\"}}\n"));
  CHECK(contains(mermaid,
                 "  listener_infra_gw_web -.-x|\"NotAllowedByListeners<br>does not admit "
                 "routes from namespace app\"| httproute_app_blocked\n"));
  CHECK(contains(mermaid,
                 "  rule_httproute_infra_broken_0 --x|\"BackendNotFound\"| "
                 "backend_service_infra_web_9999\n"));
  CHECK(
      contains(mermaid, "  missing_gateway_infra_nope -.-x|\"NotFound\"| httproute_infra_lost\n"));
  CHECK(contains(mermaid, "  service_app_api -->|\"producer\"| httproute_app_mesh\n"));
  CHECK(contains(mermaid, "  classDef rejected "));
  CHECK(contains(mermaid,
                 "  class httproute_app_blocked,httproute_infra_lost,"
                 "httproute_infra_misnamed,httproute_app_ghost rejected\n"));
  CHECK(contains(mermaid,
                 "  class missing_gatewayclass_nowhere,missing_gateway_infra_nope,"
                 "backend_service_infra_web_9999,service_app_gone missing\n"));
  CHECK(!contains(mermaid, "classDef partial"));  // no partial route: no unused class
  // linkStyle numbers links in writing order: the failed ones are these.
  std::string failed;
  for (std::size_t i = 0; i < g.edges.size(); ++i)
    if (!g.edges[i].ok) failed += (failed.empty() ? "" : ",") + std::to_string(i);
  CHECK(failed == "2,7,10,15,16,21");
  CHECK(contains(mermaid, "  linkStyle " + failed + " stroke:#c62828"));
}

TEST_CASE("graph --focus: the object, its ancestors and its descendants, nothing beside") {
  Fixture f;
  const report::Graph all = report::buildGraph(f.analysis);
  auto ids = [](const report::Graph& g) {
    std::vector<std::string> out;
    for (const auto& n : g.nodes) out.push_back(n.id);
    return out;
  };

  report::Graph route = all;
  REQUIRE(report::focusGraph(route, "HTTPRoute/app/blocked"));
  // Up through the listener that refused it to the class; down to its backend. The other
  // routes on the same listener are siblings, not connections.
  CHECK(ids(route) == std::vector<std::string>{"gatewayclass_gc", "gateway_infra_gw",
                                               "listener_infra_gw_web", "httproute_app_blocked",
                                               "rule_httproute_app_blocked_0",
                                               "backend_service_app_api_8080"});
  CHECK(route.edges.size() == 5);

  report::Graph gateway = all;
  REQUIRE(report::focusGraph(gateway, "Gateway/infra/gw"));
  std::vector<std::string> kept = ids(gateway);
  for (const char* id : {"httproute_infra_ok", "httproute_app_blocked", "httproute_infra_broken",
                         "httproute_infra_misnamed", "backend_service_infra_web_9999"})
    CHECK(std::find(kept.begin(), kept.end(), id) != kept.end());
  for (const char* id : {"gateway_infra_orphan", "httproute_infra_lost", "httproute_app_mesh"})
    CHECK(std::find(kept.begin(), kept.end(), id) == kept.end());

  // Every port of a Service shares its ref; the mesh parent too.
  report::Graph service = all;
  REQUIRE(report::focusGraph(service, "Service/infra/web"));
  kept = ids(service);
  CHECK(std::find(kept.begin(), kept.end(), "backend_service_infra_web_80") != kept.end());
  CHECK(std::find(kept.begin(), kept.end(), "backend_service_infra_web_9999") != kept.end());
  CHECK(std::find(kept.begin(), kept.end(), "httproute_infra_lost") != kept.end());

  report::Graph listener = all;
  REQUIRE(report::focusGraph(listener, "Gateway/infra/gw#web"));
  kept = ids(listener);
  CHECK(std::find(kept.begin(), kept.end(), "httproute_infra_misnamed") == kept.end());

  report::Graph missing = all;
  REQUIRE(report::focusGraph(missing, "Gateway/infra/nope"));
  CHECK(ids(missing) ==
        std::vector<std::string>{"backend_service_infra_web_80", "httproute_infra_lost",
                                 "missing_gateway_infra_nope", "rule_httproute_infra_lost_0"});

  // Matched exactly; nothing found leaves the graph as it was.
  report::Graph unchanged = all;
  CHECK(!report::focusGraph(unchanged, "HTTPRoute/app/nothing"));
  CHECK(!report::focusGraph(unchanged, "httproute/app/blocked"));
  CHECK(!report::focusGraph(unchanged, "HTTPRoute/blocked"));
  CHECK(unchanged.nodes.size() == all.nodes.size());
  CHECK(report::graphRefs(all, "HTTPRoute") ==
        std::vector<std::string>{"HTTPRoute/infra/ok", "HTTPRoute/app/blocked",
                                 "HTTPRoute/infra/lost", "HTTPRoute/infra/broken",
                                 "HTTPRoute/infra/misnamed", "HTTPRoute/infra/unsimulated",
                                 "HTTPRoute/app/mesh", "HTTPRoute/app/ghost"});
  // Missing objects are not offered as what exists.
  CHECK(report::graphRefs(all, "Gateway") ==
        std::vector<std::string>{"Gateway/infra/gw", "Gateway/infra/orphan"});
  CHECK(report::graphRefs(all, "Deployment").empty());
}

TEST_CASE("graph output is the same bytes whatever the jobs, and from run to run") {
  Fixture one(1), four(4);
  report::Graph a = report::buildGraph(one.analysis), b = report::buildGraph(four.analysis);
  for (auto writer : {report::writeGraphDot, report::writeGraphMermaid, report::writeGraphJson}) {
    std::string first = render(a, writer);
    CHECK(first == render(b, writer));
    CHECK(first == render(report::buildGraph(one.analysis), writer));
  }
}

TEST_CASE("graph ids: readable, safe, and distinct when names differ only in punctuation") {
  testing::TestFolder dir;
  dir.write("a.yaml", R"(apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: a-b
  namespace: x
spec: {}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: a.b
  namespace: x
spec: {}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata:
  name: a-b
  namespace: x
spec: {}
)");
  analysis::Analysis a = analysis::analyze({}, {{dir.path().string()}, dir.path(), 1, {}, {}, {}});
  report::Graph g = report::buildGraph(a);
  REQUIRE(g.nodes.size() == 3);
  CHECK(g.nodes[0].id == "httproute_x_a_b");
  CHECK(g.nodes[1].id == "httproute_x_a_b_2");
  CHECK(g.nodes[2].id == "grpcroute_x_a_b");
  // No parentRef: attached nowhere.
  CHECK(g.nodes[0].status == "rejected");
}

TEST_CASE("graph: ListenerSets hang off their Gateway; a refused set says why") {
  testing::TestFolder dir;
  dir.write("a.yaml", R"(apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: gc
spec:
  controllerName: example.com/gc
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: gw
  namespace: infra
spec:
  gatewayClassName: gc
  listeners:
    - name: web
      protocol: HTTP
      port: 80
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata:
  name: extra
  namespace: team
spec:
  parentRef:
    name: gw
    namespace: infra
  listeners:
    - name: team
      protocol: HTTP
      port: 8080
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata:
  name: stray
  namespace: team
spec:
  parentRef:
    name: absent
  listeners:
  - {name: http, port: 80, protocol: HTTP}
)");
  analysis::Analysis a = analysis::analyze({}, {{dir.path().string()}, dir.path(), 1, {}, {}, {}});
  nlohmann::json doc = nlohmann::json::parse(render(report::buildGraph(a), report::writeGraphJson));
  std::vector<EdgeTuple> expected = {
      {"gatewayclass_gc", "gateway_infra_gw", "class", true, ""},
      {"gateway_infra_gw", "listener_infra_gw_web", "listener", true, ""},
      {"gateway_infra_gw", "listenerset_team_extra", "listener-set", false, "NotAllowed"},
      {"listenerset_team_stray", "missing_gateway_team_absent", "missing", false, "NotFound"},
      {"listenerset_team_stray", "listener_team_stray_http", "listener", true, ""},
  };
  CHECK(edgesOf(doc) == expected);
  const nlohmann::json* set = nodeOf(doc, "listenerset_team_extra");
  REQUIRE(set);
  CHECK((*set)["status"] == "rejected");
  CHECK((*set)["label"] == "ListenerSet team/extra\nNotAllowed");
  // A set the Gateway does not take adds no listeners to it.
  CHECK(nodeOf(doc, "listener_team_extra_team") == nullptr);
}

TEST_CASE("graph: policies point at what they target; rejected and lost targets show") {
  testing::TestFolder dir;
  dir.write("a.yaml", R"(apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: gc
spec:
  controllerName: example.com/gc
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: gw
  namespace: infra
spec:
  gatewayClassName: gc
  listeners:
    - name: web
      protocol: HTTP
      port: 80
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata:
  name: second
  namespace: infra
  creationTimestamp: "2026-01-01T00:00:00Z"
spec:
  targetRefs:
    - group: gateway.networking.k8s.io
      kind: Gateway
      name: gw
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata:
  name: on-gateway
  namespace: infra
spec:
  targetRefs:
    - group: gateway.networking.k8s.io
      kind: Gateway
      name: gw
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata:
  name: lost
  namespace: infra
spec:
  targetRefs:
    - group: gateway.networking.k8s.io
      kind: HTTPRoute
      name: absent
)");
  analysis::Analysis a = analysis::analyze({}, {{dir.path().string()}, dir.path(), 1, {}, {}, {}});
  nlohmann::json doc = nlohmann::json::parse(render(report::buildGraph(a), report::writeGraphJson));
  std::vector<EdgeTuple> edges = edgesOf(doc);
  auto has = [&](const EdgeTuple& e) {
    return std::find(edges.begin(), edges.end(), e) != edges.end();
  };
  CHECK(has({"policy_backendtrafficpolicy_infra_on_gateway", "gateway_infra_gw", "policy", false,
             "NotAccepted"}));
  CHECK(has({"policy_backendtrafficpolicy_infra_lost", "missing_httproute_infra_absent", "missing",
             false, "TargetNotFound"}));
  const nlohmann::json* lost = nodeOf(doc, "missing_httproute_infra_absent");
  REQUIRE(lost);
  CHECK((*lost)["status"] == "missing");
  const nlohmann::json* policy = nodeOf(doc, "policy_backendtrafficpolicy_infra_on_gateway");
  REQUIRE(policy);
  CHECK((*policy)["status"] == "rejected");
  CHECK((*policy)["label"] == "BackendTrafficPolicy\ninfra/on-gateway");
  // Created earlier, `second` keeps the Gateway: `on-gateway`, with no timestamp, is Conflicted.
  CHECK(has({"policy_backendtrafficpolicy_infra_second", "gateway_infra_gw", "policy", true, ""}));
}

TEST_CASE("graph: a Gateway of another controller's class is not simulated, its class not drawn") {
  testing::TestFolder dir;
  dir.write("a.yaml", R"(apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: edge
  namespace: infra
spec:
  gatewayClassName: cilium
  listeners:
    - name: web
      protocol: HTTP
      port: 80
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: r
  namespace: infra
spec:
  parentRefs:
    - name: edge
)");
  analysis::Inputs inputs{{dir.path().string()}, dir.path(), 1, {}, {}, {}};
  inputs.topology.controllerName = "istio.io/gateway-controller";
  analysis::Analysis a = analysis::analyze({}, inputs);
  nlohmann::json doc =
      nlohmann::json::parse(render(report::buildGraph(a), report::writeGraphJson));
  CHECK(edgesOf(doc) == std::vector<EdgeTuple>{
                            {"gateway_infra_edge", "listener_infra_edge_web", "listener", true, ""},
                            {"httproute_infra_r", "gateway_infra_edge", "unsimulated", true, ""}});
  const nlohmann::json* gateway = nodeOf(doc, "gateway_infra_edge");
  REQUIRE(gateway);
  CHECK((*gateway)["status"] == "unmanaged");
}
