#include "lib/snapshot/snapshot.h"

#include <doctest/doctest.h>

#include <string>

#include "lib/analysis/analysis.h"
#include "lib/config/config.h"
#include "tests/unit/test_folder.h"

namespace pg {
namespace {

// A Gateway with an override and a route with a default of one GEP-713 kind: both objects
// have effective policies, and the route's merge has values from both levels.
std::string manifests(const std::string& requestTimeout) {
  return R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: timeoutpolicies.policies.acme.example
  labels:
    gateway.networking.k8s.io/policy: inherited
spec:
  group: policies.acme.example
  scope: Namespaced
  names:
    kind: TimeoutPolicy
    plural: timeoutpolicies
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: acme
spec:
  controllerName: acme.example/gateway-controller
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: public
  namespace: infra
spec:
  gatewayClassName: acme
  listeners:
  - name: http
    port: 80
    protocol: HTTP
    allowedRoutes:
      namespaces:
        from: All
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: checkout
  namespace: shop
spec:
  parentRefs:
  - name: public
    namespace: infra
  rules:
  - backendRefs:
    - name: checkout
      port: 8080
---
apiVersion: policies.acme.example/v1alpha1
kind: TimeoutPolicy
metadata:
  name: checkout-timeouts
  namespace: shop
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: checkout
  default:
    requestTimeout: )" +
         requestTimeout + R"(
---
apiVersion: policies.acme.example/v1alpha1
kind: TimeoutPolicy
metadata:
  name: gateway-timeouts
  namespace: infra
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: Gateway
    name: public
  override:
    idleTimeout: 5m
)";
}

analysis::Analysis analyzeFolder(const testing::TestFolder& dir) {
  return analysis::analyze({}, {{(dir.path() / "manifests").string()}, dir.path(), 1, {}, {}, {}});
}

const snapshot::Snapshot* find(const std::vector<snapshot::Snapshot>& all, std::string_view file) {
  for (const snapshot::Snapshot& s : all)
    if (s.file == file) return &s;
  return nullptr;
}

}  // namespace

TEST_CASE("snapshots: one file per object, values with their provenance, nothing unstable") {
  testing::TestFolder dir;
  dir.write("manifests/all.yaml", manifests("15s"));
  analysis::Analysis a = analyzeFolder(dir);
  std::vector<snapshot::Snapshot> all = snapshot::render(a);
  const snapshot::Snapshot* route = find(all, "HTTPRoute/shop/checkout.yaml");
  REQUIRE(route);
  CHECK(find(all, "Gateway/infra/public.yaml"));
  CHECK(route->text.find("requestTimeout: 15s  # TimeoutPolicy/shop/checkout-timeouts (default, "
                         "HTTPRoute)") != std::string::npos);
  CHECK(route->text.find("idleTimeout: 5m  # TimeoutPolicy/infra/gateway-timeouts (override, "
                         "Gateway)") != std::string::npos);
  CHECK(route->text.find(dir.path().string()) == std::string::npos);
  // Keys in a fixed order: the target, then the policies.
  CHECK(route->text.find("target:") < route->text.find("policies:"));
  CHECK(snapshot::render(analyzeFolder(dir))[0].text == all[0].text);

  const model::Resource* ns = nullptr;
  dir.write("manifests/ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n");
  analysis::Analysis withNamespace = analyzeFolder(dir);
  auto found = withNamespace.store.findByKind("Namespace", "", "shop");
  REQUIRE(!found.empty());
  ns = found.front();
  CHECK(snapshot::fileNameOf(*ns) == "Namespace/shop.yaml");
}

TEST_CASE("snapshots: update, then drift, orphans and missing files") {
  testing::TestFolder dir;
  dir.write("manifests/all.yaml", manifests("15s"));
  analysis::Analysis a = analyzeFolder(dir);
  std::filesystem::path folder = snapshot::folderOf(a);
  CHECK(folder == dir.path() / ".policygraph" / "snapshots");
  CHECK_FALSE(snapshot::checked(a));

  snapshot::UpdateResult first = snapshot::update(a, folder);
  CHECK(first.written.size() == snapshot::render(a).size());
  CHECK(snapshot::checked(a));
  CHECK(snapshot::compare(a, folder).empty());
  CHECK(snapshot::update(a, folder).written.empty());

  dir.write("manifests/all.yaml", manifests("20s"));
  dir.write(".policygraph/snapshots/HTTPRoute/shop/legacy.yaml", "target: {}\n");
  analysis::Analysis changed = analyzeFolder(dir);
  std::filesystem::remove(folder / "Gateway/infra/public.yaml");
  std::vector<snapshot::Drift> drift = snapshot::compare(changed, folder);
  REQUIRE(drift.size() == 3);
  CHECK(drift[0].kind == snapshot::DriftKind::Missing);
  CHECK(drift[0].file == "Gateway/infra/public.yaml");
  CHECK(drift[1].kind == snapshot::DriftKind::Changed);
  CHECK(drift[1].path == ".policygraph/snapshots/HTTPRoute/shop/checkout.yaml");
  CHECK(drift[1].lineText.find("requestTimeout: 15s") != std::string::npos);
  REQUIRE(drift[1].changes.size() == 1);
  CHECK(drift[1].changes[0] ==
        "TimeoutPolicy [Gateway/infra/public > HTTPRoute/shop/checkout] requestTimeout: 15s → 20s");
  CHECK(drift[2].kind == snapshot::DriftKind::Orphaned);
  CHECK(drift[2].object == nullptr);

  snapshot::UpdateResult again = snapshot::update(changed, folder);
  CHECK(again.deleted == std::vector<std::string>{"HTTPRoute/shop/legacy.yaml"});
  CHECK(snapshot::compare(changed, folder).empty());
}

TEST_CASE("snapshots: changed fields name the field, before and after") {
  CHECK(snapshot::changedFields("target:\n  kind: A\n", "target:\n  kind: B\n") ==
        std::vector<std::string>{"target.kind: A → B"});
  CHECK(snapshot::changedFields("a: [1]\n", "a: [1, 2]\n") ==
        std::vector<std::string>{"a[1]: (absent) → 2"});
  CHECK(snapshot::changedFields("a: 1\nb: 2\n", "a: 1\n") ==
        std::vector<std::string>{"b: 2 → (absent)"});
  CHECK(snapshot::changedFields("a: 1  # x\n", "a: 1  # y\n").empty());
}

TEST_CASE("snapshots: the folder comes from the config file") {
  config::Config c = config::parseConfig("snapshots:\n  dir: golden\n", ".policygraph.yaml");
  CHECK(c.snapshots.dir == "golden");
  CHECK_THROWS_AS(config::parseConfig("snapshots:\n  folder: golden\n", ".policygraph.yaml"),
                  config::ConfigError);
}

}  // namespace pg
