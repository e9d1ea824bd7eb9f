// Kuma on Kubernetes: the proxies and MeshServices Kuma's control plane derives from injected
// workloads and Services (lib/graph/kuma_kubernetes.cpp), and policies selecting them.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/graph/kuma.h"
#include "lib/graph/workloads.h"
#include "lib/policy/kuma/kuma.h"
#include "tests/unit/load_store.h"

using namespace pg;
namespace kuma = pg::policy::kuma;

namespace {

using testing::Loaded;
using testing::loadStore;

const char* kNamespaces =
    "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  labels:\n"
    "    kuma.io/sidecar-injection: enabled\n---\n"
    "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: plain\n---\n"
    "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kuma-system\n  labels:\n"
    "    kuma.io/sidecar-injection: enabled\n---\n";

std::string deployment(const std::string& ns, const std::string& name,
                       const std::string& extraLabels = "") {
  return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name +
         "\n  namespace: " + ns +
         "\nspec:\n  template:\n    metadata:\n      labels:\n        app: " + name + "\n" +
         extraLabels +
         "    spec:\n      containers:\n      - name: app\n        ports:\n"
         "        - name: http\n          containerPort: 8080\n"
         "        - name: admin\n          containerPort: 9090\n---\n";
}

std::string service(const std::string& ns, const std::string& name, const std::string& app,
                    const std::string& ports) {
  return "apiVersion: v1\nkind: Service\nmetadata:\n  name: " + name + "\n  namespace: " + ns +
         "\nspec:\n  selector:\n    app: " + app + "\n  ports:\n" + ports + "---\n";
}

std::string tags(const graph::kuma::Tags& t) {
  std::string out;
  for (const auto& [k, v] : t) out += std::string(k) + "=" + std::string(v) + ";";
  return out;
}

}  // namespace

TEST_CASE("kuma k8s: injection comes from the pod, else its namespace; kuma-system gets none") {
  Loaded l = loadStore(std::string(kNamespaces) + deployment("shop", "a") +
                       deployment("shop", "off", "        kuma.io/sidecar-injection: disabled\n") +
                       deployment("plain", "b") +
                       deployment("plain", "on", "        kuma.io/sidecar-injection: enabled\n") +
                       deployment("kuma-system", "cp"));
  graph::kuma::Topology t = graph::kuma::build(l.store, "kuma-system");
  std::vector<std::string> names;
  for (const graph::kuma::Dataplane& dp : t.dataplanes)
    names.push_back(std::string(dp.namespace_) + "/" + std::string(dp.name));
  CHECK(names == std::vector<std::string>{"shop/a", "plain/on"});
  // Another system namespace: then kuma-system is an ordinary injected namespace.
  graph::kuma::Topology other = graph::kuma::build(l.store, "mesh-system");
  CHECK(other.dataplanes.size() == 3);
}

TEST_CASE("kuma k8s: inbounds per Service port, with Kuma's tags and the targetPort's port") {
  Loaded l =
      loadStore(std::string(kNamespaces) + deployment("shop", "api", "        version: v1\n") +
                service("shop", "api", "api",
                        "  - port: 80\n    targetPort: http\n    appProtocol: http\n"
                        "  - port: 9000\n    targetPort: 9090\n  - port: 53\n    protocol: UDP\n"
                        "  - port: 70\n    targetPort: missing\n") +
                service("shop", "api-admin", "api", "  - port: 9901\n    targetPort: admin\n"));
  graph::kuma::Topology t = graph::kuma::build(l.store);
  REQUIRE(t.dataplanes.size() == 1);
  const graph::kuma::Dataplane& dp = t.dataplanes[0];
  CHECK(dp.derived);
  CHECK(dp.mesh == "default");
  CHECK(dp.resource->kind == "Deployment");
  CHECK(tags(dp.labels) == "app=api;k8s.kuma.io/namespace=shop;kuma.io/mesh=default;version=v1;");
  REQUIRE(dp.inbounds.size() == 3);  // UDP and an unknown port name are left out
  CHECK(dp.inbounds[0].port == 8080);
  CHECK(dp.inbounds[0].servicePort == 80);
  CHECK(dp.inbounds[0].name == "http");
  CHECK(tags(dp.inbounds[0].tags) ==
        "app=api;k8s.kuma.io/namespace=shop;k8s.kuma.io/service-name=api;"
        "k8s.kuma.io/service-port=80;kuma.io/protocol=http;kuma.io/service=api_shop_svc_80;"
        "version=v1;");
  CHECK(dp.inbounds[1].port == 9090);
  CHECK(dp.inbounds[1].name == "admin");  // the container port with that number
  CHECK(graph::kuma::tagValue(dp.inbounds[1].tags, "kuma.io/protocol") == "tcp");
  CHECK(graph::kuma::tagValue(dp.inbounds[2].tags, "kuma.io/service") == "api-admin_shop_svc_9901");
  CHECK(t.dataplaneOf(*dp.resource) == &dp);
  CHECK(t.dataplane("default", "api.shop") == &dp);
  CHECK(t.derivedDataplane("shop", "api") == &dp);
  CHECK(t.derivedDataplane("plain", "api") == nullptr);
}

TEST_CASE("kuma k8s: a pod no Service selects has one inbound for itself") {
  Loaded l = loadStore(std::string(kNamespaces) + deployment("shop", "worker") +
                       service("shop", "other", "nobody", "  - port: 80\n"));
  graph::kuma::Topology t = graph::kuma::build(l.store);
  REQUIRE(t.dataplanes.size() == 1);
  REQUIRE(t.dataplanes[0].inbounds.size() == 1);
  const graph::kuma::Inbound& in = t.dataplanes[0].inbounds[0];
  CHECK(in.port == 49151);
  CHECK(graph::kuma::tagValue(in.tags, "kuma.io/service") == "worker_shop_svc");
  CHECK(graph::kuma::tagValue(in.tags, "kuma.io/instance") == "worker");
}

TEST_CASE("kuma k8s: MeshServices from Services only when the mesh generates them") {
  std::string input = std::string(kNamespaces) + deployment("shop", "api") +
                      service("shop", "api", "api", "  - port: 80\n    targetPort: http\n") +
                      service("plain", "x", "x", "  - port: 80\n");
  Loaded disabled = loadStore(input);
  CHECK(graph::kuma::build(disabled.store).services.empty());
  Loaded exclusive = loadStore(input +
                               "apiVersion: kuma.io/v1alpha1\nkind: Mesh\nmetadata:\n"
                               "  name: default\nspec:\n  meshServices:\n    mode: Exclusive\n");
  graph::kuma::Topology t = graph::kuma::build(exclusive.store);
  REQUIRE(t.services.size() == 1);  // plain is not injected
  const graph::kuma::MeshService& s = t.services[0];
  CHECK(s.derived);
  CHECK(s.name == "api");
  CHECK(s.namespace_ == "shop");
  CHECK(s.resource->kind == "Service");
  REQUIRE(s.ports.size() == 1);
  CHECK(s.ports[0].targetPort == "http");
  CHECK(t.selectedBy(s).size() == 1);
  // It is a MeshService to Kuma: found from its Service, with an `msvc` KRI.
  CHECK(kuma::derivedService(t, *s.resource) == &s);
  CHECK(kuma::kriOf(s, "http") == "kri_msvc_default__shop_api_http");
  const model::Resource* ns = exclusive.store.ofKind("Namespace").front();
  CHECK(kuma::derivedService(t, *ns) == nullptr);
}

TEST_CASE("kuma k8s: Dataplane targetRefs by labels and namespace, and the namespace MADR") {
  Loaded l = loadStore(
      std::string(kNamespaces) +
      "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: web\n  labels:\n"
      "    kuma.io/sidecar-injection: enabled\n---\n" +
      deployment("shop", "api", "        tier: core\n") + deployment("web", "front") +
      "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: core\n"
      "  namespace: kuma-system\n  labels:\n    kuma.io/mesh: default\nspec:\n"
      "  targetRef:\n    kind: Dataplane\n    labels:\n      tier: core\n"
      "  from:\n  - targetRef:\n      kind: Mesh\n    default:\n      idleTimeout: 1s\n---\n"
      "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: web-only\n"
      "  namespace: web\n  labels:\n    kuma.io/mesh: default\nspec:\n"
      "  to:\n  - targetRef:\n      kind: Mesh\n    default:\n      idleTimeout: 2s\n");
  graph::kuma::Topology t = graph::kuma::build(l.store);
  std::vector<kuma::Policy> ps = kuma::readPolicies(l.store, "default", {});
  REQUIRE(ps.size() == 2);
  auto selected = [&](const char* ns, const char* name) {
    const graph::kuma::Dataplane* dp = t.derivedDataplane(ns, name);
    REQUIRE(dp);
    kuma::Proxy proxy{dp->resource, dp, nullptr, {}};
    std::string out;
    for (const kuma::Policy& p : ps)
      if (kuma::select(p, proxy, ps, {}).selected) out += std::string(p.resource->name) + ";";
    return out;
  };
  CHECK(selected("shop", "api") == "core;");
  CHECK(selected("web", "front") == "web-only;");
}

TEST_CASE("ServiceIndex: the Services that select a workload, in Store order, each once") {
  Loaded l = loadStore(
      "apiVersion: v1\nkind: Service\nmetadata: {name: zeta, namespace: shop}\n"
      "spec: {selector: {tier: web}}\n---\n"
      "apiVersion: v1\nkind: Service\nmetadata: {name: alpha, namespace: shop}\n"
      "spec: {selector: {app: api, tier: web}}\n---\n"
      "apiVersion: v1\nkind: Service\nmetadata: {name: other-app, namespace: shop}\n"
      "spec: {selector: {app: other}}\n---\n"
      "apiVersion: v1\nkind: Service\nmetadata: {name: manual, namespace: shop}\n"
      "spec: {ports: [{port: 80}]}\n---\n"
      "apiVersion: v1\nkind: Service\nmetadata: {name: elsewhere, namespace: web}\n"
      "spec: {selector: {app: api}}\n---\n"
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: api\n  namespace: shop\n"
      "  labels: {app: api, tier: web, app: api}\nspec: {containers: [{name: c}]}\n");
  graph::ServiceIndex index(l.store);
  std::vector<const model::Resource*> pods = l.store.findByKind("Pod", "shop", "api");
  REQUIRE(pods.size() == 1);
  std::optional<graph::Workload> pod = graph::workloadOf(*pods.front());
  REQUIRE(pod);
  std::vector<std::string_view> names;
  for (const model::Resource* s : index.selecting(*pod)) names.push_back(s->name);
  // Store order, not the order of the pod's labels; the duplicate `app` label lists none twice;
  // a Service without selector and one in another namespace select nothing here.
  CHECK(names == std::vector<std::string_view>{"zeta", "alpha"});
}
