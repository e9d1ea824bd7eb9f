// `policygraph graph` as a user runs it on a Kuma and a Linkerd repository: each format from the
// binary, --focus on the new kinds, and the error for a focus that names nothing.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli/run.h"
#include "tests/unit/test_folder.h"

namespace {

using pg::testing::run;
using pg::testing::Run;

const char* const kKuma = R"(type: Mesh
name: default
---
type: Dataplane
mesh: default
name: web-1
networking:
  address: 10.0.0.1
  inbound:
    - port: 8080
      tags:
        kuma.io/service: web
---
type: MeshService
mesh: default
name: web
spec:
  selector:
    dataplaneTags:
      kuma.io/service: web
  ports:
    - port: 80
      targetPort: 8080
---
type: MeshTimeout
mesh: default
name: web-timeouts
spec:
  targetRef:
    kind: MeshService
    name: web
  from:
    - targetRef:
        kind: Mesh
      default:
        idleTimeout: 20s
)";

const char* const kLinkerd = R"(apiVersion: v1
kind: Pod
metadata:
  name: api
  namespace: shop
  labels: {app: api}
spec:
  containers:
  - name: api
    image: example.com/api:1.0
    ports: [{name: http, containerPort: 8080}]
---
apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: api, namespace: shop}
spec:
  podSelector: {matchLabels: {app: api}}
  port: http
---
apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: api-all, namespace: shop}
spec:
  targetRef: {group: policy.linkerd.io, kind: Server, name: api}
  requiredAuthenticationRefs: []
)";

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("graph CLI: a Kuma repository in DOT, Mermaid and JSON") {
  pg::testing::TestFolder dir;
  dir.write("kuma.yaml", kKuma);
  Run json = run(dir.path(), "graph . --format json");
  REQUIRE(json.status == 0);
  nlohmann::json doc = nlohmann::json::parse(json.out);
  nlohmann::json edges = nlohmann::json::array();
  for (const auto& e : doc["edges"]) edges.push_back({e["from"], e["to"], e["kind"]});
  CHECK(edges == nlohmann::json::parse(R"([
    ["mesh_default", "meshservice_web", "member"],
    ["mesh_default", "dataplane_web_1", "member"],
    ["meshservice_web", "dataplane_web_1", "endpoint"],
    ["policy_meshtimeout_web_timeouts", "meshservice_web", "policy"],
    ["policy_meshtimeout_web_timeouts", "mesh_default", "from"]])"));

  Run dot = run(dir.path(), "graph . --format dot");
  REQUIRE(dot.status == 0);
  CHECK(contains(dot.out, "  meshservice_web -> dataplane_web_1;\n"));
  CHECK(contains(dot.out, "  policy_meshtimeout_web_timeouts -> mesh_default [label=\"from\"];\n"));
  Run mermaid = run(dir.path(), "graph . --format mermaid");
  REQUIRE(mermaid.status == 0);
  CHECK(contains(mermaid.out, "  mesh_default[/\"Mesh default\"\\]\n"));
  CHECK(contains(mermaid.out, "  meshservice_web --> dataplane_web_1\n"));

  Run focus = run(dir.path(), "graph . --format json --focus Dataplane/web-1");
  REQUIRE(focus.status == 0);
  CHECK(nlohmann::json::parse(focus.out)["nodes"].size() ==
        4);  // it, its mesh and MeshService, the policy on that
  Run wrong = run(dir.path(), "graph . --focus Dataplane/web-2");
  CHECK(wrong.status == 2);
  CHECK(contains(wrong.err, "Dataplane objects in it: Dataplane/web-1"));
}

TEST_CASE("graph CLI: a Linkerd repository in DOT, Mermaid and JSON") {
  pg::testing::TestFolder dir;
  dir.write("linkerd.yaml", kLinkerd);
  Run json = run(dir.path(), "graph . --format json");
  REQUIRE(json.status == 0);
  nlohmann::json doc = nlohmann::json::parse(json.out);
  nlohmann::json edges = nlohmann::json::array();
  for (const auto& e : doc["edges"]) edges.push_back({e["from"], e["to"], e["kind"], e["ok"]});
  CHECK(edges == nlohmann::json::parse(R"([
    ["server_shop_api", "workload_pod_shop_api", "serves", true],
    ["policy_authorizationpolicy_shop_api_all", "server_shop_api", "policy", true]])"));

  Run dot = run(dir.path(), "graph . --format dot");
  REQUIRE(dot.status == 0);
  CHECK(contains(dot.out, "  subgraph cluster_ns_shop {"));
  CHECK(contains(dot.out, "  server_shop_api -> workload_pod_shop_api [label=\"port 8080\"];\n"));
  Run mermaid = run(dir.path(), "graph . --format mermaid");
  REQUIRE(mermaid.status == 0);
  CHECK(contains(mermaid.out, "    workload_pod_shop_api[/\"Pod shop/api\"/]\n"));
  CHECK(contains(mermaid.out, "  policy_authorizationpolicy_shop_api_all --> server_shop_api\n"));

  Run focus = run(dir.path(), "graph . --format mermaid --focus Pod/shop/api");
  REQUIRE(focus.status == 0);
  CHECK(contains(focus.out, "server_shop_api -->|\"port 8080\"| workload_pod_shop_api"));
}
