// Runs the built binary as a user would: exit codes, formats and outputs, stdin, rules.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli/run.h"
#include "tests/unit/skip.h"
#include "tests/unit/test_folder.h"
#include "tests/unit/write_failures.h"

namespace {

using pg::testing::quote;
using pg::testing::readAll;
using pg::testing::run;
using pg::testing::Run;

const char* kClean = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n";
const char* kBroken = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: [shop\n";

}  // namespace

TEST_CASE("exit status: 0 clean, 1 findings, 2 usage, and --fail-on") {
  pg::testing::TestFolder dir;
  dir.write("ok/a.yaml", kClean);
  dir.write("bad/a.yaml", kBroken);
  Run clean = run(dir.path(), "lint ok");
  CHECK(clean.status == 0);
  CHECK(clean.out == "no findings in 1 file (1 object)\n");
  Run bad = run(dir.path(), "lint bad");
  CHECK(bad.status == 1);
  CHECK(bad.out.find("bad/a.yaml:5:1: error:") != std::string::npos);
  CHECK(bad.out.find("[IN101]") != std::string::npos);
  CHECK(run(dir.path(), "lint bad --fail-on none").status == 0);
  CHECK(run(dir.path(), "lint nothing-here").status == 2);
  CHECK(run(dir.path(), "lint ok --fail-on sometimes").status == 2);
  CHECK(run(dir.path(), "lint ok --format xml").status == 2);
  CHECK(run(dir.path(), "lint ok --no-such-flag").status == 2);
  CHECK(run(dir.path(), "frobnicate").status == 2);
}

TEST_CASE("warnings fail only with --fail-on warning") {
  pg::testing::TestFolder dir;
  dir.write("a.yaml", kClean);
  dir.write(".policygraph.yaml", "rules:\n  NOPE1: off\n");
  CHECK(run(dir.path(), "lint .").status == 0);
  Run warn = run(dir.path(), "lint . --fail-on warning");
  CHECK(warn.status == 1);
  CHECK(warn.out.find(".policygraph.yaml:2:3: warning:") != std::string::npos);
}

TEST_CASE("a broken config file is a usage error naming the spot") {
  pg::testing::TestFolder dir;
  dir.write("a.yaml", kClean);
  dir.write(".policygraph.yaml", "rules:\n  IN101: loud\n");
  Run r = run(dir.path(), "lint .");
  CHECK(r.status == 2);
  CHECK(r.err.find(".policygraph.yaml:2:10:") != std::string::npos);
}

TEST_CASE("schemas: in the config validates against named CRDs; a bad entry is a config error") {
  pg::testing::TestFolder dir;
  dir.write("crds/widgets.yaml", R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {size: {type: integer}}}
)");
  dir.write("app/widget.yaml", R"(apiVersion: example.com/v1
kind: Widget
metadata: {name: w, namespace: shop}
spec: {size: 1, colour: red}
)");
  dir.write(".policygraph.yaml", "schemas:\n  - crds\n");
  Run ok = run(dir.path(), "lint app");
  CHECK(ok.status == 1);
  CHECK(ok.out.find("app/widget.yaml:4:17: error: unknown field \"spec.colour\"") !=
        std::string::npos);
  dir.write(".policygraph.yaml", "schemas:\n  - crds/missing.yaml\n");
  Run missing = run(dir.path(), "lint app");
  CHECK(missing.status == 2);
  CHECK(missing.err.find(".policygraph.yaml:2:5: schemas: crds/missing.yaml does not exist") !=
        std::string::npos);
  dir.write("crds/other.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n");
  dir.write(".policygraph.yaml", "schemas: [crds]\n");
  Run notCrd = run(dir.path(), "lint app");
  CHECK(notCrd.status == 2);
  CHECK(notCrd.err.find(".policygraph.yaml:1:11: schemas: crds/other.yaml:1:1: this ConfigMap is "
                        "not a CustomResourceDefinition") != std::string::npos);
  dir.write(".policygraph.yaml", "schemas: crds\n");
  CHECK(run(dir.path(), "lint app").status == 2);
}

TEST_CASE("a refused object is not simulated: explain says why, its dependents say so") {
  pg::testing::TestFolder dir;
  dir.write("repo.yaml", R"(apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: eg}
spec: {controllerName: example.com/gateway}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: public, namespace: shop}
spec:
  gatewayClassName: eg
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: checkout, namespace: shop}
spec:
  parentRefs: [{name: public}]
  hostname: shop.example.com
)");
  Run explain = run(dir.path(), "explain HTTPRoute/shop/checkout");
  CHECK(explain.status == 2);
  CHECK(explain.err.find("HTTPRoute/shop/checkout is not simulated: HTTPRoute shop/checkout is "
                         "not applied: it fails schema validation (see IN120 at repo.yaml:18:3)") !=
        std::string::npos);
  Run status = run(dir.path(), "status --format json");
  CHECK(status.out.find("checkout") == std::string::npos);  // no status for what is not stored
  Run lint = run(dir.path(), "lint .");
  CHECK(lint.out.find("repo.yaml:18:3: error: unknown field \"spec.hostname\"") !=
        std::string::npos);
}

TEST_CASE("--format/--output pairs write files and still print text; exit status is the same") {
  pg::testing::TestFolder dir;
  dir.write("a.yaml", kBroken);
  Run r = run(dir.path(),
              "lint a.yaml --format sarif --output r.sarif --format junit --output r.xml "
              "--format json --output r.json");
  CHECK(r.status == 1);
  CHECK(r.out.find("a.yaml:5:1: error:") != std::string::npos);
  CHECK(readAll(dir.path() / "r.sarif").find("\"version\": \"2.1.0\"") != std::string::npos);
  CHECK(readAll(dir.path() / "r.xml").find("<testsuites") != std::string::npos);
  CHECK(readAll(dir.path() / "r.json").find("\"ruleId\": \"IN101\"") != std::string::npos);
  Run quiet = run(dir.path(), "lint a.yaml --quiet --format json --output q.json");
  CHECK(quiet.status == 1);
  CHECK(quiet.out.empty());
  Run json = run(dir.path(), "lint a.yaml --format json");
  CHECK(json.status == 1);
  CHECK(json.out.rfind("{", 0) == 0);
  CHECK(run(dir.path(), "lint a.yaml --output x.json").status == 2);
  CHECK(run(dir.path(), "lint a.yaml --format json --format sarif").status == 2);
}

TEST_CASE("standard input") {
  pg::testing::TestFolder dir;
  Run r = run(dir.path(), "lint -", kBroken);
  CHECK(r.status == 1);
  CHECK(r.out.find("<stdin>:5:1: error:") != std::string::npos);
  CHECK(run(dir.path(), "lint -", kClean).status == 0);
}

TEST_CASE("a baseline hides the findings it holds") {
  pg::testing::TestFolder dir;
  dir.write("a.yaml", kBroken);
  CHECK(run(dir.path(), "lint a.yaml --quiet --format json --output base.json").status == 1);
  Run r = run(dir.path(), "lint a.yaml --baseline base.json");
  CHECK(r.status == 0);
  CHECK(r.out.find("1 in the baseline") != std::string::npos);
  dir.write("not-a-report.json", "[1, 2]");
  CHECK(run(dir.path(), "lint a.yaml --baseline not-a-report.json").status == 2);
}

TEST_CASE("output does not depend on --jobs") {
  pg::testing::TestFolder dir;
  for (int i = 0; i < 30; ++i)
    dir.write("f" + std::to_string(i) + ".yaml", i % 4 ? kClean : kBroken);
  Run one = run(dir.path(), "lint . --jobs 1 --format json");
  Run two = run(dir.path(), "lint . --jobs 2 --format json");
  Run many = run(dir.path(), "lint . --jobs 7 --format json");
  CHECK(one.out == two.out);
  CHECK(one.out == many.out);
  CHECK(one.out.find("\"ruleId\": \"IN110\"") != std::string::npos);
}

TEST_CASE("status: the example's Kuadrant policies are Enforced and affect their Gateway") {
  // `status` is the one command that asks for the enforcement simulation `lint` skips.
  pg::testing::TestFolder dir;
  const std::string examples =
      quote((std::filesystem::path(PG_SOURCE_DIR) / "testdata" / "examples").string());
  Run status = run(dir.path(), "status " + examples);
  CHECK(status.status == 0);
  CHECK(status.out.find("type: Enforced") != std::string::npos);
  CHECK(status.out.find("type: kuadrant.io/RateLimitPolicyAffected") != std::string::npos);
  CHECK(status.out.find("message: Object affected by RateLimitPolicy "
                        "[infra/public-gateway-limits]") != std::string::npos);
}

TEST_CASE("rules and version") {
  pg::testing::TestFolder dir;
  Run list = run(dir.path(), "rules");
  CHECK(list.status == 0);
  CHECK(list.out.find("IN101  error   invalid-yaml") != std::string::npos);
  Run page = run(dir.path(), "rules IN104");
  CHECK(page.status == 0);
  CHECK(page.out.rfind("# IN104 duplicate-key", 0) == 0);
  Run unknown = run(dir.path(), "rules XX000");
  CHECK(unknown.status == 2);
  CHECK(run(dir.path(), "version").out.rfind("policygraph ", 0) == 0);
}

TEST_CASE("explain: the effective policy of one object, in every format; a REF naming nothing") {
  pg::testing::TestFolder dir;
  dir.write("repo.yaml", R"(apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: eg}
spec: {controllerName: example.com/gateway}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: public, namespace: infra}
spec:
  gatewayClassName: eg
  listeners: [{name: http, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: checkout, namespace: shop}
spec:
  parentRefs: [{name: public, namespace: infra}]
---
apiVersion: acme.io/v1
kind: TimeoutPolicy
metadata: {name: gateway-timeouts, namespace: infra}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: public}
  override: {idle: 30s}
  default: {request: 10s}
---
apiVersion: acme.io/v1
kind: TimeoutPolicy
metadata: {name: checkout-timeouts, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: checkout}
  default: {request: 3s, idle: 60s}
)");
  dir.write(".policygraph.yaml", "policies:\n  - {group: acme.io, kind: TimeoutPolicy}\n");
  Run text = run(dir.path(), "explain HTTPRoute/shop/checkout");
  CHECK(text.status == 0);
  CHECK(text.out.find("TimeoutPolicy  Gateway/infra/public > HTTPRoute/shop/checkout") !=
        std::string::npos);
  CHECK(text.out.find("idle = \"30s\"") != std::string::npos);
  CHECK(text.out.find("beat TimeoutPolicy/shop/checkout-timeouts (default)") != std::string::npos);
  Run json = run(dir.path(), "explain HTTPRoute/shop/checkout --format json");
  CHECK(json.status == 0);
  CHECK(json.out.find("\"request\": \"3s\"") != std::string::npos);
  CHECK(json.out.find("\"role\": \"override\"") != std::string::npos);
  Run yaml = run(dir.path(), "explain HTTPRoute/shop/checkout --format yaml");
  CHECK(yaml.status == 0);
  CHECK(yaml.out.find("effective:") != std::string::npos);
  Run missing = run(dir.path(), "explain HTTPRoute/shop/cart");
  CHECK(missing.status == 2);
  CHECK(missing.err.find("HTTPRoute objects in it: HTTPRoute/shop/checkout") != std::string::npos);
  CHECK(run(dir.path(), "explain not-a-ref").status == 2);
}

TEST_CASE("explain on a workload: Linkerd's inbound servers as JSON, YAML and text") {
  pg::testing::TestFolder dir;
  dir.write("app.yaml", R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: web, image: example.com/web:1.0, ports: [{name: http, containerPort: 8080}]}
---
apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: web, namespace: shop}
spec: {podSelector: {matchLabels: {app: web}}, port: http, proxyProtocol: HTTP/2}
)");
  dir.write(".policygraph.yaml", "linkerd:\n  defaultInboundPolicy: deny\n");
  Run json = run(dir.path(), "explain Deployment/shop/web --format json");
  REQUIRE(json.status == 0);
  nlohmann::json doc = nlohmann::json::parse(json.out);
  REQUIRE(doc["linkerd"]["inbound"].size() == 1);
  const nlohmann::json& port = doc["linkerd"]["inbound"][0];
  CHECK(port["port"] == 8080);
  CHECK(port["server"] == nlohmann::json({{"kind", "Server"}, {"name", "web"}}));
  CHECK(port["protocol"] == "HTTP/2");
  CHECK(port["authorizations"].empty());
  CHECK(port["grpcRoutes"][0]["ref"]["name"] == "default");
  Run yaml = run(dir.path(), "explain Deployment/shop/web --format yaml");
  CHECK(yaml.status == 0);
  CHECK(yaml.out.find("linkerd:\n  inbound:\n    - port: 8080") != std::string::npos);
  Run text = run(dir.path(), "explain Deployment/shop/web");
  CHECK(text.status == 0);
  CHECK(text.out.find("port 8080: Server web, HTTP/2") != std::string::npos);
  CHECK(text.out.find("from Server/shop/web  app.yaml:14:12") != std::string::npos);
  CHECK(text.out.find("authorizations: none (denies every request)") != std::string::npos);
  // Nothing injects it: the text says that nothing of this is enforced; once the Namespace
  // turns injection on, it names the annotation.
  CHECK(text.out.find("Linkerd inbound\n  not injected (no linkerd.io/inject annotation on the "
                      "pod template or its Namespace): without a proxy nothing below is "
                      "enforced") != std::string::npos);
  dir.write("ns.yaml",
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n"
            "  annotations: {linkerd.io/inject: enabled}\n");
  Run injected = run(dir.path(), "explain Deployment/shop/web");
  CHECK(injected.out.find("Linkerd inbound\n  injected: linkerd.io/inject: enabled on "
                          "Namespace shop\n") != std::string::npos);
  // A ConfigMap is no workload: no linkerd document. A bad setting is a usage error.
  dir.write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: shop}\n");
  CHECK(run(dir.path(), "explain ConfigMap/shop/c --format json").out.find("linkerd") ==
        std::string::npos);
  dir.write(".policygraph.yaml", "linkerd:\n  clusterNetworks: [10.0.0.0/33]\n");
  Run bad = run(dir.path(), "explain Deployment/shop/web");
  CHECK(bad.status == 2);
  CHECK(bad.err.find(".policygraph.yaml:2:21") != std::string::npos);
}

TEST_CASE("snapshot: --update then --check passes; a policy edit fails --check naming the field") {
  pg::testing::TestFolder dir;
  const std::string gateway =
      "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata:\n  name: acme\n"
      "spec:\n  controllerName: acme.example/gw\n---\n"
      "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  name: public\n"
      "  namespace: infra\nspec:\n  gatewayClassName: acme\n  listeners:\n  - name: http\n"
      "    port: 80\n    protocol: HTTP\n---\n"
      "apiVersion: policies.acme.example/v1\nkind: TimeoutPolicy\nmetadata:\n  name: limits\n"
      "  namespace: infra\nspec:\n  targetRef:\n    group: gateway.networking.k8s.io\n"
      "    kind: Gateway\n    name: public\n  override:\n    idleTimeout: ";
  // The config file makes the folder the repository root, and declares the policy kind.
  dir.write("repo/.policygraph.yaml",
            "policies:\n  - group: policies.acme.example\n    kind: TimeoutPolicy\n");
  dir.write("repo/manifests.yaml", gateway + "5m\n");
  const std::filesystem::path repo = dir.path() / "repo";
  Run missing = run(repo, "snapshot --check .");
  CHECK(missing.status == 1);
  CHECK(missing.out.find("[SN703]") != std::string::npos);

  Run update = run(repo, "snapshot --update .");
  REQUIRE(update.status == 0);
  CHECK(update.out.find("wrote .policygraph/snapshots/Gateway/infra/public.yaml") !=
        std::string::npos);
  CHECK(run(repo, "snapshot --check .").status == 0);
  CHECK(run(repo, "lint .").status == 0);

  dir.write("repo/manifests.yaml", gateway + "10m\n");
  Run drift = run(repo, "snapshot --check . --format json");
  CHECK(drift.status == 1);
  CHECK(drift.out.find("\"SN701\"") != std::string::npos);
  CHECK(drift.out.find("idleTimeout: 5m → 10m") != std::string::npos);
  CHECK(run(repo, "lint .").status == 1);  // the folder exists: lint checks it too
  CHECK(run(repo, "snapshot .").status == 2);
  CHECK(run(repo, "snapshot --update --check .").status == 2);

  // --dir names another folder; --update removes what no object accounts for.
  CHECK(run(repo, "snapshot --update . --dir golden").status == 0);
  CHECK(std::filesystem::exists(repo / "golden/Gateway/infra/public.yaml"));
  // An orphan snapshot (written by an earlier --update) is deleted; nothing else would be.
  dir.write("repo/golden/Gateway/infra/gone.yaml",
            "# Effective policies on Gateway/infra/gone, written by `policygraph snapshot "
            "--update`:\ntarget: {}\n");
  Run orphan = run(repo, "snapshot --check . --dir golden");
  CHECK(orphan.status == 1);
  CHECK(orphan.out.find("[SN702]") != std::string::npos);
  CHECK(run(repo, "snapshot --update . --dir golden").status == 0);
  CHECK_FALSE(std::filesystem::exists(repo / "golden/Gateway/infra/gone.yaml"));
}

namespace {

// A repository with a Gateway and a GEP-713 policy on it, the kind declared in its config
// file; `idle` is the policy's idleTimeout.
void writeSnapshotRepo(const pg::testing::TestFolder& dir, const std::string& idle) {
  dir.write("repo/.policygraph.yaml", "policies:\n  - {group: acme.io, kind: TimeoutPolicy}\n");
  // One line per object but the policy, whose lines the findings name.
  dir.write(
      "repo/manifests.yaml",
      R"({apiVersion: gateway.networking.k8s.io/v1, kind: GatewayClass, metadata: {name: acme}, spec: {controllerName: acme.example/gw}}
---
{apiVersion: gateway.networking.k8s.io/v1, kind: Gateway, metadata: {name: public, namespace: infra}, spec: {gatewayClassName: acme, listeners: [{name: http, port: 80, protocol: HTTP}]}}
---
apiVersion: acme.io/v1
kind: TimeoutPolicy
metadata: {name: limits, namespace: infra}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: public}
  override: {idleTimeout: )" +
          idle + R"(, requestTimeout: 15s, connectTimeout: 2s}
)");
}

}  // namespace

TEST_CASE("snapshot --update: a write that fails leaves the old file whole and no temporary") {
  pg::testing::TestFolder dir;
  writeSnapshotRepo(dir, "5m");
  const std::filesystem::path repo = dir.path() / "repo";
  const std::filesystem::path folder = repo / ".policygraph/snapshots";
  REQUIRE(run(repo, "snapshot --update .").status == 0);
  const std::filesystem::path file = folder / "Gateway/infra/public.yaml";
  const std::string before = readAll(file);
  REQUIRE(before.size() > 512);
  writeSnapshotRepo(dir, "10m");

  Run full;
  {
    pg::testing::FileSizeLimit limit(512);  // a full disk, for policygraph
    full = run(repo, "snapshot --update .");
  }
  CHECK(full.status == 2);
  CHECK(full.err.find("cannot write .policygraph/snapshots/Gateway/infra/public.yaml: File too "
                      "large") != std::string::npos);
  CHECK(full.out.empty());
  CHECK(readAll(file) == before);
  CHECK(pg::testing::hiddenEntries(folder).empty());

  // Permissions do not stop root, so this part runs only for other users.
  if (::geteuid() != 0) {
    std::filesystem::permissions(file.parent_path(), std::filesystem::perms::owner_write,
                                 std::filesystem::perm_options::remove);
    Run readOnly = run(repo, "snapshot --update .");
    std::filesystem::permissions(file.parent_path(), std::filesystem::perms::owner_write,
                                 std::filesystem::perm_options::add);
    CHECK(readOnly.status == 2);
    CHECK(readOnly.err.find("cannot write .policygraph/snapshots/Gateway/infra/public.yaml: "
                            "Permission denied") != std::string::npos);
    CHECK(readAll(file) == before);
    CHECK(pg::testing::hiddenEntries(folder).empty());
  }
  CHECK(run(repo, "snapshot --update .").status == 0);
  CHECK(readAll(file).find("idleTimeout: 10m") != std::string::npos);
}

namespace {

// Where a finding on one line of a file must point: its line, and the columns of its first and
// last characters (1-based, the end one past the last).
struct LineSpan {
  int line = 0, column = 0, endColumn = 0;
};

LineSpan spanOf(const std::string& text, const std::string& part) {
  std::istringstream lines(text);
  std::string l;
  for (int n = 1; std::getline(lines, l); ++n) {
    if (l.find(part) == std::string::npos) continue;
    auto first = l.find_first_not_of(' ');
    return {n, static_cast<int>(first) + 1, static_cast<int>(l.find_last_not_of(' ')) + 2};
  }
  return {};
}

}  // namespace

TEST_CASE("snapshot --check: every format names the snapshot file from the root, line, columns") {
  pg::testing::TestFolder dir;
  writeSnapshotRepo(dir, "5m");
  const std::filesystem::path repo = dir.path() / "repo";
  REQUIRE(run(repo, "snapshot --update .").status == 0);
  const std::string gateway = ".policygraph/snapshots/Gateway/infra/public.yaml";
  const std::string gone = ".policygraph/snapshots/Gateway/infra/gone.yaml";
  const LineSpan drift = spanOf(readAll(repo / gateway), "idleTimeout: 5m");
  REQUIRE(drift.line > 0);
  CHECK(drift.column == 7);  // after the indentation, at the field
  writeSnapshotRepo(dir, "10m");
  dir.write("repo/" + gone, "# Effective policies on Gateway/infra/gone\ntarget: {}\n");
  dir.write("repo/apps/.keep", "");

  // From a sub-folder of the repository: paths stay relative to its root (the config file's).
  Run r =
      run(repo / "apps",
          "snapshot --check -v .. --format text --format json --output ../r.json --format sarif "
          "--output ../r.sarif --format junit --output ../r.xml --format github --output "
          "../r.txt");
  CHECK(r.status == 1);
  const std::string at = gateway + ":" + std::to_string(drift.line) + ":7: error: ";
  CHECK(r.out.find(at + "the effective policies on Gateway/infra/public changed") !=
        std::string::npos);
  CHECK(r.out.find("TimeoutPolicy [Gateway/infra/public] idleTimeout: 5m → 10m; if the change") !=
        std::string::npos);
  CHECK(r.out.find(gone + ":1:1: error: snapshot " + gone + " is orphaned") != std::string::npos);

  const nlohmann::json json = nlohmann::json::parse(readAll(repo / "r.json"));
  std::map<std::string, nlohmann::json> byRule;
  for (const nlohmann::json& f : json["findings"]) byRule[f["ruleId"]] = f["location"];
  CHECK(byRule["SN701"] == nlohmann::json{{"path", gateway},
                                          {"line", drift.line},
                                          {"column", drift.column},
                                          {"endLine", drift.line},
                                          {"endColumn", drift.endColumn}});
  CHECK(byRule["SN702"]["path"] == gone);
  CHECK(byRule["SN702"]["line"] == 1);

  const nlohmann::json sarif = nlohmann::json::parse(readAll(repo / "r.sarif"));
  const nlohmann::json& runJson = sarif["runs"][0];
  CHECK(runJson["originalUriBaseIds"]["SRCROOT"]["uri"] ==
        "file://" + std::filesystem::canonical(repo).string() + "/");
  const nlohmann::json& rules = runJson["tool"]["driver"]["rules"];
  std::map<std::string, std::size_t> ruleIndex;
  for (std::size_t i = 0; i < rules.size(); ++i) ruleIndex[rules[i]["id"]] = i;
  for (const char* id : {"SN701", "SN702", "SN703"}) {
    CAPTURE(id);
    REQUIRE(ruleIndex.count(id));
    const nlohmann::json& rule = rules[ruleIndex[id]];
    for (const char* field : {"name", "shortDescription", "fullDescription", "help", "helpUri"})
      CHECK(rule.contains(field));
    CHECK(rule["help"]["markdown"].get<std::string>().find(std::string("# ") + id) == 0);
    CHECK(rule["defaultConfiguration"]["level"] == "error");
  }
  bool sawDrift = false;
  for (const nlohmann::json& result : runJson["results"]) {
    CHECK(result["ruleIndex"] == ruleIndex[result["ruleId"]]);
    if (result["ruleId"] != "SN701") continue;
    sawDrift = true;
    const nlohmann::json& where = result["locations"][0]["physicalLocation"];
    CHECK(where["artifactLocation"] == nlohmann::json{{"uri", gateway}, {"uriBaseId", "SRCROOT"}});
    CHECK(where["region"] == nlohmann::json{{"startLine", drift.line},
                                            {"startColumn", drift.column},
                                            {"endLine", drift.line},
                                            {"endColumn", drift.endColumn}});
  }
  CHECK(sawDrift);

  const std::string junit = readAll(repo / "r.xml");
  CHECK(junit.find("<testcase classname=\"policygraph.snapshot.SN701\" "
                   "name=\"Gateway/infra/public\">\n      <failure ") != std::string::npos);
  CHECK(junit.find(">" + gateway + ":" + std::to_string(drift.line) + ":7: the effective") !=
        std::string::npos);
  CHECK(junit.find("<testcase classname=\"policygraph.snapshot.SN702\" name=\"" + gone + "\">") !=
        std::string::npos);

  // SN702 checks the snapshots of objects, not manifest files.
  CHECK(junit.find("\"policygraph.snapshot.SN702\" name=\"manifests.yaml\"") == std::string::npos);

  const std::string github = readAll(repo / "r.txt");
  CHECK(github.find("::error file=" + gateway + ",line=" + std::to_string(drift.line) +
                    ",col=7,endColumn=" + std::to_string(drift.endColumn) +
                    ",title=SN701 snapshot-drift::") != std::string::npos);
  CHECK(github.find("::error file=" + gone + ",line=1,col=1,endColumn=") != std::string::npos);
}

namespace {

// A repository whose config file sits in `sub/`: a route in sub/apps/ names a listener its
// Gateway in sub/infra/ does not have (GW201 at line 9, column 5, with a note on the
// listener), and a broken file in sub/skipped/ that the config's exclude glob, relative to
// sub/, leaves out. other/ holds a broken file outside the config file's folder.
void writeNestedConfigRepo(const pg::testing::TestFolder& dir, const std::string& repo) {
  dir.write(repo + "/sub/.policygraph.yaml", "exclude: [\"skipped/**\"]\n");
  dir.write(repo + "/sub/infra/gateway.yaml",
            "{apiVersion: gateway.networking.k8s.io/v1, kind: GatewayClass, metadata: {name: "
            "acme}, spec: {controllerName: acme.example/gw}}\n---\n"
            "{apiVersion: v1, kind: Namespace, metadata: {name: web}}\n---\n"
            "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\n"
            "metadata: {name: edge, namespace: web}\nspec:\n  gatewayClassName: acme\n"
            "  listeners:\n  - {name: http, port: 80, protocol: HTTP}\n");
  dir.write(repo + "/sub/apps/route.yaml",
            "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n"
            "  name: landing\n  namespace: web\nspec:\n  parentRefs:\n  - name: edge\n"
            "    sectionName: https\n");
  dir.write(repo + "/sub/skipped/broken.yaml", kBroken);
  dir.write(repo + "/other/broken.yaml", kBroken);
}

// Every URI a SARIF report names a file by, SRCROOT's first.
std::vector<std::string> sarifUris(const std::string& report) {
  const nlohmann::json run = nlohmann::json::parse(report)["runs"][0];
  std::vector<std::string> uris = {run["originalUriBaseIds"]["SRCROOT"]["uri"]};
  for (const nlohmann::json& result : run["results"]) {
    for (const char* list : {"locations", "relatedLocations"})
      for (const nlohmann::json& at : result.value(list, nlohmann::json::array()))
        uris.push_back(at["physicalLocation"]["artifactLocation"]["uri"]);
  }
  return uris;
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

}  // namespace

TEST_CASE("SARIF and GitHub annotations name files from the top of the git repository") {
  namespace fs = std::filesystem;
  pg::testing::TestFolder dir;
  writeNestedConfigRepo(dir, "repo");
  const fs::path repo = fs::canonical(dir.path() / "repo");
  pg::testing::git(repo, "init -q");

  struct Invocation {
    fs::path cwd;
    std::string args;
  };
  // From the top, from the config file's folder, from below it, and with --root naming the
  // config file's folder: the root stays sub/ (text, globs), the repository's top is repo/.
  for (const Invocation& at :
       {Invocation{repo, "lint sub"}, Invocation{repo / "sub", "lint"},
        Invocation{repo / "sub/apps", "lint .."}, Invocation{repo, "lint sub --root sub"}}) {
    CAPTURE(at.cwd);
    CAPTURE(at.args);
    Run sarif = run(at.cwd, at.args + " --format sarif");
    CHECK(sarif.status == 1);
    const std::vector<std::string> uris = sarifUris(sarif.out);
    REQUIRE(uris.size() >= 3);
    CHECK(uris[0] == "file://" + repo.string() + "/");
    CHECK(contains(uris, "sub/apps/route.yaml"));
    CHECK(contains(uris, "sub/infra/gateway.yaml"));  // the related listener
    for (std::size_t i = 1; i < uris.size(); ++i) CHECK(uris[i].starts_with("sub/"));

    Run github = run(at.cwd, at.args + " --format github");
    CHECK(github.status == 1);
    CHECK(github.out.find("::error file=sub/apps/route.yaml,line=9,col=5,") != std::string::npos);
    CHECK(github.out.find("%0Asub/infra/gateway.yaml:") != std::string::npos);
    CHECK(github.out.find("skipped") == std::string::npos);  // the glob is relative to sub/

    // Text (as JSON and JUnit) stays relative to the root.
    Run text = run(at.cwd, at.args);
    CHECK(text.out.find("apps/route.yaml:9:5: error: ") != std::string::npos);
    CHECK(text.out.find("sub/") == std::string::npos);
  }

  // A file inside the repository but outside the root: absolute in text, from the top in SARIF
  // and annotations. Standard input names no file in either.
  Run outside = run(repo, "lint sub other/broken.yaml --format github");
  CHECK(outside.out.find("::error file=other/broken.yaml,line=") != std::string::npos);
  CHECK(run(repo, "lint sub other/broken.yaml").out.find(repo.string() + "/other/broken.yaml:") !=
        std::string::npos);
  Run standardInput = run(repo / "sub", "lint - --format sarif", kBroken);
  CHECK(standardInput.status == 1);
  CHECK(sarifUris(standardInput.out).at(1) == "stdin");

  // A linked worktree or a submodule has a `.git` file, not a folder.
  writeNestedConfigRepo(dir, "worktree");
  const fs::path worktree = fs::canonical(dir.path() / "worktree");
  dir.write("worktree/.git", "gitdir: " + (repo / ".git").string() + "\n");
  Run linked = run(worktree / "sub", "lint --format github");
  CHECK(linked.out.find("::error file=sub/apps/route.yaml,line=9,col=5,") != std::string::npos);
}

TEST_CASE("SARIF and GitHub annotations outside a git repository: paths from the root") {
  namespace fs = std::filesystem;
  pg::testing::TestFolder dir;
  for (fs::path up = dir.path(); up.has_relative_path(); up = up.parent_path()) {
    if (fs::exists(up / ".git")) {
      pg::testing::skipCheck("the temporary folder is inside a git repository (" + up.string() +
                             ")");
      return;
    }
  }
  writeNestedConfigRepo(dir, "plain");
  const fs::path plain = fs::canonical(dir.path() / "plain");
  Run sarif = run(plain, "lint sub --format sarif");
  CHECK(sarif.status == 1);
  const std::vector<std::string> uris = sarifUris(sarif.out);
  REQUIRE(uris.size() >= 3);
  CHECK(uris[0] == "file://" + (plain / "sub").string() + "/");
  CHECK(contains(uris, "apps/route.yaml"));
  CHECK(contains(uris, "infra/gateway.yaml"));
  Run github = run(plain / "sub", "lint --format github");
  CHECK(github.out.find("::error file=apps/route.yaml,line=9,col=5,") != std::string::npos);
  CHECK(github.out.find("%0Ainfra/gateway.yaml:") != std::string::npos);
}

TEST_CASE(
    "explain --format kuma-inspect: Kuma's Inspect API documents; what Kuma refuses is exit 2") {
  pg::testing::TestFolder dir;
  dir.write(
      "mesh.yaml",
      "type: Mesh\nname: m\nmeshServices:\n  mode: Exclusive\n---\n"
      "type: Dataplane\nname: dp-1\nmesh: m\nnetworking:\n  address: 1.1.1.1\n"
      "  inbound:\n    - port: 80\n      name: main\n      tags: {kuma.io/service: web}\n---\n"
      "type: Dataplane\nname: dp-2\nmesh: m\nnetworking:\n  address: 1.1.1.2\n"
      "  inbound:\n    - port: 80\n      tags: {kuma.io/service: api}\n---\n"
      "type: MeshTrace\nname: t\nmesh: m\nspec:\n  targetRef: {kind: MeshService, name: web}\n"
      "  default:\n    backends: [{type: Zipkin, zipkin: {url: 'http://z'}}]\n---\n"
      "type: MeshTimeout\nname: in\nmesh: m\nspec:\n  rules:\n"
      "    - default: {idleTimeout: 60s}\n");
  Run rules = run(dir.path(), "explain Dataplane/dp-1 --mesh m --format kuma-inspect .");
  REQUIRE(rules.status == 0);
  nlohmann::json doc = nlohmann::json::parse(rules.out);
  CHECK(doc["resource"] ==
        nlohmann::json::parse(R"({"type":"Dataplane","mesh":"m","name":"dp-1","labels":{}})"));
  REQUIRE(doc["rules"].size() == 2);
  for (const auto& entry : doc["rules"]) {
    if (entry["type"] == "MeshTrace") {
      // Kuma's defaults for a Zipkin backend.
      CHECK(entry["proxyRule"]["conf"]["backends"][0]["zipkin"]["apiVersion"] == "httpJson");
      CHECK(entry["proxyRule"]["origin"][0]["name"] == "t");
    } else {
      CHECK(entry["type"] == "MeshTimeout");
      CHECK(entry["inboundRules"][0]["rules"][0]["conf"][0]["idleTimeout"] == "1m0s");
    }
  }
  Run selected = run(dir.path(), "explain MeshTrace/t --mesh m --format kuma-inspect .");
  REQUIRE(selected.status == 0);
  CHECK(nlohmann::json::parse(selected.out)["total"] == 1);
  Run inbound = run(dir.path(),
                    "explain Dataplane/dp-1 --mesh m --format kuma-inspect --view policies "
                    "--inbound kri_dp_m___dp-1_main .");
  REQUIRE(inbound.status == 0);
  CHECK(nlohmann::json::parse(inbound.out)["policies"][0]["origins"][0]["kri"] == "kri_mt_m___in_");
  // explain's own text: the policies in Kuma's order and where each merged field came from.
  Run text = run(dir.path(), "explain Dataplane/dp-1 .");
  REQUIRE(text.status == 0);
  CHECK(text.out.find("MeshTrace/t  mesh.yaml:25") != std::string::npos);
  CHECK(text.out.find("backends[0].zipkin.url: \"http://z\"  <- MeshTrace/t mesh.yaml:31:45") !=
        std::string::npos);
  CHECK(text.out.find("backends[0].zipkin.apiVersion: \"httpJson\"  <- Kuma's default") !=
        std::string::npos);
  CHECK(run(dir.path(), "explain Dataplane/dp-9 --mesh m --format kuma-inspect .").status == 2);
  CHECK(run(dir.path(), "explain Dataplane/dp-1 --mesh other --format kuma-inspect .").status == 2);
  CHECK(run(dir.path(),
            "explain Dataplane/dp-1 --mesh m --format kuma-inspect --view policies --inbound x .")
            .status == 2);
}

TEST_CASE("explain --format yaml on a Kuma Dataplane: the JSON document, in YAML") {
  const std::filesystem::path repo =
      std::filesystem::path(PG_SOURCE_DIR) / "testdata" / "cases" / "snapshot" / "kuma-universal";
  Run json = run(repo, "explain Dataplane/web-1 --mesh default --format json manifests.yaml");
  Run yaml = run(repo, "explain Dataplane/web-1 --mesh default --format yaml manifests.yaml");
  REQUIRE(json.status == 0);
  REQUIRE(yaml.status == 0);
  CHECK(yaml.out.find("policies:\n  - kind: MeshTimeout\n    matched:\n") == 0);
  CHECK(yaml.out.find("kuma-universal/manifests.yaml\n        line: 40\n") != std::string::npos);
  CHECK(yaml.out.find("          idleTimeout: 1m0s\n") != std::string::npos);
  CHECK(yaml.out.find("target:\n  kind: Dataplane\n  mesh: default\n  name: web-1\n") !=
        std::string::npos);
  // Without --mesh too, and the same document as JSON (written here as JSON again).
  Run plain = run(repo, "explain Dataplane/web-1 --format yaml manifests.yaml");
  CHECK(plain.out == yaml.out);
  CHECK(json.out.find("\"idleTimeout\": \"1m0s\"") != std::string::npos);
}

TEST_CASE("snapshot --check: a Kuma timeout and a Linkerd authorization change are drift") {
  pg::testing::TestFolder dir;
  const std::filesystem::path cases =
      std::filesystem::path(PG_SOURCE_DIR) / "testdata" / "cases" / "snapshot";
  dir.write("repo/.policygraph.yaml", "{}\n");
  dir.write("repo/kuma.yaml", pg::testing::readAll(cases / "kuma-universal" / "manifests.yaml"));
  dir.write("repo/linkerd.yaml",
            pg::testing::readAll(cases / "linkerd-inbound" / "manifests.yaml"));
  const std::filesystem::path repo = dir.path() / "repo";
  Run update = run(repo, "snapshot --update .");
  REQUIRE(update.status == 0);
  CHECK(update.out.find("wrote .policygraph/snapshots/Dataplane/@default/web-1.yaml") !=
        std::string::npos);
  CHECK(update.out.find("wrote .policygraph/snapshots/Dataplane/@staging/web-1.yaml") !=
        std::string::npos);
  CHECK(update.out.find("wrote .policygraph/snapshots/Deployment/shop/api.yaml") !=
        std::string::npos);
  CHECK(update.out.find("legacy") == std::string::npos);
  CHECK(update.out.find("db-1") == std::string::npos);
  CHECK(run(repo, "snapshot --check .").status == 0);

  std::string kuma = pg::testing::readAll(repo / "kuma.yaml");
  kuma.replace(kuma.find("      idleTimeout: 1m\n"), 22, "      idleTimeout: 2m\n");
  dir.write("repo/kuma.yaml", kuma);
  std::string linkerd = pg::testing::readAll(repo / "linkerd.yaml");
  linkerd.replace(linkerd.find("name: frontend}]"), 16, "name: admin}]");
  dir.write("repo/linkerd.yaml", linkerd);
  Run drift = run(repo, "snapshot --check -v .");
  CHECK(drift.status == 1);
  CHECK(drift.out.find(".policygraph/snapshots/Dataplane/@default/web-1.yaml:") !=
        std::string::npos);
  CHECK(drift.out.find("1m0s → 2m0s") != std::string::npos);
  CHECK(drift.out.find(".policygraph/snapshots/Deployment/shop/api.yaml:") != std::string::npos);
  CHECK(drift.out.find("frontend.shop.serviceaccount.identity.linkerd.cluster.local → "
                       "admin.shop.serviceaccount.identity.linkerd.cluster.local") !=
        std::string::npos);
  CHECK(drift.out.find("[SN701]") != std::string::npos);

  // A proxy gone: its snapshot is orphaned, found by the mesh in its name.
  CHECK(run(repo, "snapshot --update .").status == 0);
  kuma.replace(kuma.find("name: web-1\nmesh: staging"), 11, "name: web-9");
  dir.write("repo/kuma.yaml", kuma);
  Run gone = run(repo, "snapshot --check -v .");
  CHECK(gone.status == 1);
  CHECK(gone.out.find("snapshot .policygraph/snapshots/Dataplane/@staging/web-1.yaml is orphaned "
                      "[SN702]\n  Dataplane/@staging/web-1 is no longer in the input") !=
        std::string::npos);
  CHECK(gone.out.find("Dataplane/web-9 in mesh staging has effective policies (Kuma MeshRetry) "
                      "but no snapshot") != std::string::npos);
}

TEST_CASE("files that are not manifests are skipped and counted; a run that checks none exits 2") {
  pg::testing::TestFolder dir;
  dir.write("app/kustomization.yaml", "resources: [ns.yaml]\n");
  dir.write("app/ns.yaml", kClean);
  dir.write("app/package.json", "{\"name\": \"tools\"}\n");
  Run r = run(dir.path(), "lint app");
  CHECK(r.status == 0);
  CHECK(r.out ==
        "no findings in 1 file (1 object); 2 files skipped, not manifests (1 kustomization, "
        "1 CI or tool configuration)\n");

  // Only files that are not manifests: nothing was checked, which is not a clean run.
  dir.write("chart/Chart.yaml", "apiVersion: v2\nname: c\nversion: 1.0.0\n");
  dir.write("chart/values.yaml", "replicas: 1\n");
  Run none = run(dir.path(), "lint chart");
  CHECK(none.status == 2);
  CHECK(none.err.find("no manifest to check in chart: 2 file(s) skipped, not manifests (1 Helm "
                      "chart, 1 Helm values)") != std::string::npos);

  // An include: that matches nothing says so.
  dir.write("app/.policygraph.yaml", "include: ['manifests/**']\n");
  Run unmatched = run(dir.path(), "lint app");
  CHECK(unmatched.status == 2);
  CHECK(unmatched.err.find("the include: globs of") != std::string::npos);
  // --no-config reads none of it.
  CHECK(run(dir.path(), "lint app --no-config").status == 0);
  CHECK(run(dir.path(), "lint app --no-config --config app/.policygraph.yaml").status == 2);
}

TEST_CASE("--config elsewhere: reported paths stay relative to the inputs' root") {
  pg::testing::TestFolder dir;
  dir.write("shared/policygraph.yaml", "rules:\n  IN101: warning\n");
  dir.write("repo/a.yaml", kBroken);
  Run r = run(dir.path() / "repo", "lint . --config ../shared/policygraph.yaml");
  CHECK(r.status == 0);  // IN101 lowered to a warning by the shared config
  CHECK(r.out.rfind("a.yaml:5:1: warning:", 0) == 0);
}

TEST_CASE("lint --summary: one line per rule, most findings first, then the totals") {
  pg::testing::TestFolder dir;
  // Documents with a kind and no apiVersion (a file of documents with neither would not be a
  // manifest at all, and be skipped).
  dir.write("a.yaml", "kind: Service\nreplicas: 1\n---\nkind: Service\nreplicas: 2\n");
  dir.write("b.yaml", kBroken);
  Run r = run(dir.path(), "lint a.yaml b.yaml --summary");
  CHECK(r.status == 1);
  CHECK(r.out ==
        "rule   severity count  name\n"
        "IN109  error        2  missing-field: An object lacks apiVersion, kind or metadata.name\n"
        "IN101  error        1  invalid-yaml: A file is not valid YAML or JSON\n"
        "3 errors, 0 warnings, 0 notes in 2 files (0 objects)\n");
}

TEST_CASE("graph --format mermaid folds a graph GitHub would not render, and says so") {
  pg::testing::TestFolder dir;
  std::string text =
      "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: "
      "infra}\nspec:\n  gatewayClassName: istio\n  listeners:\n  - {name: http, port: 80, "
      "protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}\n";
  for (int i = 0; i < 200; ++i) {
    std::string ns = "team" + std::to_string(i % 4);
    text += "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r" +
            std::to_string(i) + ", namespace: " + ns +
            "}\nspec:\n  parentRefs: [{name: gw, namespace: infra}]\n  rules:\n  - backendRefs: "
            "[{name: svc, port: 80}]\n";
  }
  dir.write("a.yaml", text);
  Run big = run(dir.path(), "graph a.yaml --format mermaid");
  CHECK(big.status == 0);
  CHECK(big.err.find("note: folded ") != std::string::npos);
  CHECK(std::count(big.out.begin(), big.out.end(), '\n') < 100);
  CHECK(big.out.find("namespace team3") != std::string::npos);
  // Focused, it fits: nothing folded.
  Run focused = run(dir.path(), "graph a.yaml --format mermaid --focus HTTPRoute/team1/r1");
  CHECK(focused.status == 0);
  CHECK(focused.err.empty());
  CHECK(focused.out.find("httproute_team1_r1") != std::string::npos);
}

TEST_CASE("cli: a listener's lead names it; its protocol, port and why go to the detail") {
  const std::string folder = quote((std::filesystem::path(PG_SOURCE_DIR) / "testdata" / "cases" /
                                    "gateway" / "GW210-unusable-certificates")
                                       .string());
  Run r = run(".", "lint --verbose " + folder);
  INFO(r.out);
  CHECK(r.out.find("error: listener shop of Gateway/infra/public has an unusable certificate "
                   "[GW210]\n  Secret infra/shop-tls does not exist. The listener (HTTPS, port "
                   "443, hostname shop.example.com) cannot terminate TLS") != std::string::npos);
}

TEST_CASE("hostile input: standard input, FIFOs and memory are bounded, with words and a status") {
  pg::testing::TestFolder dir;
  dir.write(".policygraph.yaml", "limits: {maxFileBytes: 1000}\n");
  // Piped input past the limit is not read to its end: it would never end for /dev/zero.
  std::string zero = "cd " + quote(dir.path().string()) + " && NO_COLOR=1 " + quote(PG_BINARY) +
                     " lint - </dev/zero >" + quote((dir.path() / "out").string());
  int zeroStatus = std::system(zero.c_str());
  REQUIRE(WIFEXITED(zeroStatus));
  CHECK(WEXITSTATUS(zeroStatus) == 1);
  CHECK(readAll(dir.path() / "out")
            .find("<stdin>:1:1: error: standard input is larger than the "
                  "limit of 1000 bytes [IN107]") != std::string::npos);
  // A FIFO named on the command line: opening it to read would wait for a writer forever.
  REQUIRE(::mkfifo((dir.path() / "pipe.yaml").c_str(), 0600) == 0);
  Run fifo = run(dir.path(), "lint pipe.yaml");
  CHECK(fifo.status == 1);
  CHECK(fifo.out.find("pipe.yaml:1:1: error: cannot read this file: not a regular file (a FIFO, "
                      "socket or device) [IN113]") != std::string::npos);
#if !defined(__SANITIZE_ADDRESS__)  // AddressSanitizer reserves more address space than this
  // Out of memory: the allocator's failure ends the run with words and status 3, not SIGABRT.
  dir.write(".policygraph.yaml", "limits: {maxFileBytes: 300000000}\n");
  {
    std::ofstream big(dir.path() / "big.yaml", std::ios::binary);
    big << "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n  a: ";
    const std::string chunk(1 << 20, 'x');
    for (int i = 0; i < 200; ++i) big << chunk;
    big << "\n";
  }
  std::string command = "cd " + quote(dir.path().string()) + " && (ulimit -v 400000; " +
                        quote(PG_BINARY) + " lint big.yaml --jobs 1) >/dev/null 2>" +
                        quote((dir.path() / "err").string());
  int raw = std::system(command.c_str());
  REQUIRE(WIFEXITED(raw));
  CHECK(WEXITSTATUS(raw) == 3);
  CHECK(readAll(dir.path() / "err") == "policygraph: internal error: out of memory\n");
#endif
}
