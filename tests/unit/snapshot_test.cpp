#include "lib/snapshot/snapshot.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "lib/analysis/analysis.h"
#include "lib/config/config.h"
#include "lib/report/report.h"
#include "lib/report/values.h"
#include "lib/yaml/parser.h"
#include "tests/unit/test_folder.h"
#include "tests/unit/write_failures.h"

namespace pg {
namespace {

// A Gateway with an override and defaults and a route with a default of one GEP-713 kind,
// and a Kuadrant limit with a dot in its name on the route: both objects have effective
// policies, the route's merge has values from both levels and a default it overrode.
// `routeDefault` is the route's default block, one `field: value` line.
std::string manifests(const std::string& routeDefault) {
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
    )" + routeDefault +
         R"(
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
  default:
    requestTimeout: 30s
    hosts: []
---
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: checkout-limits, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: checkout}
  limits: {per.user: {rates: [{limit: 5, window: 10s}]}}
)";
}

analysis::Analysis analyzeFolder(const testing::TestFolder& dir) {
  return analysis::analyze({}, {{(dir.path() / "manifests").string()}, dir.path(), 1, {}, {}, {}});
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

bool listed(const std::vector<std::string>& all, std::string_view one) {
  return std::find(all.begin(), all.end(), one) != all.end();
}

const snapshot::Snapshot* find(const std::vector<snapshot::Snapshot>& all, std::string_view file) {
  for (const snapshot::Snapshot& s : all)
    if (s.file == file) return &s;
  return nullptr;
}

}  // namespace

TEST_CASE("snapshots: one file per object, values with their provenance, nothing unstable") {
  testing::TestFolder dir;
  dir.write("manifests/all.yaml", manifests("requestTimeout: 15s"));
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

TEST_CASE("snapshots: explain's JSON content, and comments beside the values they name") {
  testing::TestFolder dir;
  dir.write("manifests/all.yaml", manifests("requestTimeout: 15s"));
  analysis::Analysis a = analyzeFolder(dir);
  std::vector<snapshot::Snapshot> all = snapshot::render(a);
  REQUIRE(all.size() == 2);
  for (const snapshot::Snapshot& s : all) {
    CAPTURE(s.file);
    yaml::ParseResult parsed = yaml::parse(s.text, {}, false);
    REQUIRE(parsed.problems.empty());
    std::vector<policy::Effective> effective =
        policy::effectiveOn(a.policies, a.topology, a.store, *s.object, "");
    report::detail::Json explain =
        report::detail::Json::parse(report::explainJsonText({*s.object, {}, effective}));
    // Ordered JSON: the same keys in the same order, provenance in explain's order.
    CHECK(report::detail::nodeToJson(parsed.tree->root(0)) == explain);
  }
  const std::string& route = find(all, "HTTPRoute/shop/checkout.yaml")->text;
  CHECK(contains(route,
                 "\n        per.user:  # RateLimitPolicy/shop/checkout-limits (intent, "
                 "HTTPRoute)\n          rates:\n"));
  CHECK(contains(route,
                 "\n      hosts: []  # TimeoutPolicy/infra/gateway-timeouts (default, "
                 "Gateway)\n"));
  CHECK(contains(route,
                 "    provenance:\n      - field: limits[\"per.user\"]\n"
                 "        policy: RateLimitPolicy/shop/checkout-limits\n        role: intent\n"
                 "        level: HTTPRoute\n    overridden: []\n"));
  CHECK(contains(route,
                 "    overridden:\n      - field: requestTimeout\n"
                 "        policy: TimeoutPolicy/infra/gateway-timeouts\n        role: default\n"
                 "        by: TimeoutPolicy/shop/checkout-timeouts\n        byRole: default\n"));
}

TEST_CASE("snapshots: a value that comes from another policy is drift, even when it is equal") {
  testing::TestFolder dir;
  dir.write("manifests/all.yaml", manifests("requestTimeout: 30s"));
  std::string before =
      find(snapshot::render(analyzeFolder(dir)), "HTTPRoute/shop/checkout.yaml")->text;
  dir.write("manifests/all.yaml", manifests("connectTimeout: 1s"));
  std::string after =
      find(snapshot::render(analyzeFolder(dir)), "HTTPRoute/shop/checkout.yaml")->text;
  std::vector<std::string> changes = snapshot::changedFields(before, after);
  std::string shown;
  for (const std::string& c : changes) shown += c + "\n";
  CAPTURE(shown);
  const std::string label = "TimeoutPolicy [Gateway/infra/public > HTTPRoute/shop/checkout] ";
  CHECK(listed(changes, label +
                            "provenance of requestTimeout: TimeoutPolicy/shop/checkout-timeouts "
                            "(default, HTTPRoute) → TimeoutPolicy/infra/gateway-timeouts "
                            "(default, Gateway)"));
  CHECK(listed(changes, label + "connectTimeout: (absent) → 1s"));
  CHECK(std::none_of(changes.begin(), changes.end(), [&](const std::string& c) {
    return c.starts_with(label + "requestTimeout:");  // the value itself did not change
  }));
}

TEST_CASE("snapshots: update, then drift, orphans and missing files") {
  testing::TestFolder dir;
  dir.write("manifests/all.yaml", manifests("requestTimeout: 15s"));
  analysis::Analysis a = analyzeFolder(dir);
  std::filesystem::path folder = snapshot::folderOf(a);
  CHECK(folder == dir.path() / ".policygraph" / "snapshots");
  CHECK_FALSE(snapshot::checked(a));

  snapshot::UpdateResult first = snapshot::update(a, folder);
  CHECK(first.written.size() == snapshot::render(a).size());
  CHECK(snapshot::checked(a));
  CHECK(snapshot::compare(a, folder).empty());
  CHECK(snapshot::update(a, folder).written.empty());

  dir.write("manifests/all.yaml", manifests("requestTimeout: 20s"));
  dir.write(".policygraph/snapshots/HTTPRoute/shop/legacy.yaml",
            "# Effective policies on HTTPRoute/shop/legacy, written by `policygraph snapshot "
            "--update`:\ntarget: {}\n");
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

namespace {

std::string readAll(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A folder with the snapshots written for the route default `requestTimeout: 15s`.
struct WrittenSnapshots {
  testing::TestFolder dir;
  analysis::Analysis analysis;
  std::filesystem::path folder;
  std::filesystem::path route;

  WrittenSnapshots()
      : analysis((dir.write("manifests/all.yaml", manifests("requestTimeout: 15s")),
                  analyzeFolder(dir))),
        folder(snapshot::folderOf(analysis)),
        route(folder / "HTTPRoute/shop/checkout.yaml") {
    snapshot::update(analysis, folder);
  }
};

}  // namespace

TEST_CASE("snapshots: update replaces each file whole or not at all, and leaves no temporary") {
  WrittenSnapshots written;
  const std::filesystem::path& folder = written.folder;
  const std::filesystem::path& route = written.route;
  const std::string before = readAll(route);
  written.dir.write("manifests/all.yaml", manifests("requestTimeout: 20s"));
  analysis::Analysis changed = analyzeFolder(written.dir);

  SUBCASE("a write that fails half way (a full disk) keeps the old file") {
    std::string error;
    {
      testing::FileSizeLimit limit(64);  // the new text is longer: the write fails after 64 bytes
      try {
        snapshot::update(changed, folder);
      } catch (const std::runtime_error& e) {
        error = e.what();
      }
    }
    CHECK(error ==
          "cannot write .policygraph/snapshots/HTTPRoute/shop/checkout.yaml: File too "
          "large");
    CHECK(readAll(route) == before);
  }
  SUBCASE("a file that cannot be replaced (a folder in its place) leaves no temporary") {
    std::filesystem::remove(route);
    std::filesystem::create_directories(route / "in-the-way");
    CHECK_THROWS_WITH_AS(
        snapshot::update(changed, folder),
        "cannot write .policygraph/snapshots/HTTPRoute/shop/checkout.yaml: Is a directory",
        std::runtime_error);
    CHECK(std::filesystem::is_directory(route / "in-the-way"));
  }
  CHECK(testing::hiddenEntries(folder).empty());
  CHECK(std::filesystem::exists(folder / "Gateway/infra/public.yaml"));
}

TEST_CASE("snapshots: a checkout with CRLF line ends is no drift; a drift points at the field") {
  WrittenSnapshots s;
  std::string crlf;
  for (char c : readAll(s.route)) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  s.dir.write(".policygraph/snapshots/HTTPRoute/shop/checkout.yaml", crlf);
  CHECK(snapshot::compare(s.analysis, s.folder).empty());
  CHECK(snapshot::update(s.analysis, s.folder).written.empty());

  s.dir.write("manifests/all.yaml", manifests("requestTimeout: 20s"));
  std::vector<snapshot::Drift> drift = snapshot::compare(analyzeFolder(s.dir), s.folder);
  REQUIRE(drift.size() == 1);
  model::Location at = snapshot::locationOf(drift[0]);
  const std::string line =
      "requestTimeout: 15s  # TimeoutPolicy/shop/checkout-timeouts "
      "(default, HTTPRoute)";
  CHECK(drift[0].lineText == "      " + line);
  CHECK(at.start.column == 7);
  CHECK(at.end.line == at.start.line);
  CHECK(at.end.column == 7 + line.size());
}

TEST_CASE("snapshots: changed fields name the field, before and after") {
  CHECK(snapshot::changedFields("target:\n  kind: A\n", "target:\n  kind: B\n") ==
        std::vector<std::string>{"target.kind: A → B"});
  CHECK(snapshot::changedFields("a: [1]\n", "a: [1, 2]\n") ==
        std::vector<std::string>{"a[1]: (absent) → 2"});
  CHECK(snapshot::changedFields("a: 1\nb: 2\n", "a: 1\n") ==
        std::vector<std::string>{"b: 2 → (absent)"});
  CHECK(snapshot::changedFields("a: 1  # x\n", "a: 1  # y\n").empty());
  // Provenance, overridden and ineffective are named by field, not by their index, so that an
  // entry added above does not renumber those below.
  const std::string head = "policies:\n  - kind: K\n    path: [Gateway/a]\n";
  const std::string one = head +
                          "    effective: {b: 2}\n    provenance:\n"
                          "      - {field: b, policy: P/b, role: default, level: Gateway}\n"
                          "    ineffective: [P/x]\n";
  const std::string two =
      head +
      "    effective: {a: 1, b: 2}\n    provenance:\n"
      "      - {field: a, policy: P/a, role: override, level: Gateway}\n"
      "      - {field: b, policy: P/b, role: default, level: Gateway}\n"
      "    overridden:\n"
      "      - {field: a, policy: P/c, role: default, by: P/a, byRole: override}\n"
      "      - {field: a, policy: P/d, role: default, by: P/a, byRole: override}\n"
      "    ineffective: [P/x, P/y]\n";
  CHECK(snapshot::changedFields(one, two) ==
        std::vector<std::string>{
            "K [Gateway/a] a: (absent) → 1",
            "K [Gateway/a] provenance of a: (absent) → P/a (override, Gateway)",
            "K [Gateway/a] overridden a: (absent) → P/c (default) by P/a (override), P/d "
            "(default) by P/a (override)",
            "K [Gateway/a] ineffective: P/x → P/x, P/y"});
}

TEST_CASE("snapshots: the folder comes from the config file") {
  config::Config c = config::parseConfig("snapshots:\n  dir: golden\n", ".policygraph.yaml");
  CHECK(c.snapshots.dir == "golden");
  CHECK_THROWS_AS(config::parseConfig("snapshots:\n  folder: golden\n", ".policygraph.yaml"),
                  config::ConfigError);
}

}  // namespace pg
