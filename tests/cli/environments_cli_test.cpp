// `environments:` in the config: each environment analysed on its own in one run, and named
// in every finding, format, status item and snapshot folder; `--environment` picks one, which
// explain, graph and access need; diff compares each environment with itself.
#include <doctest/doctest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli/run.h"
#include "tests/unit/test_folder.h"

namespace {

using pg::testing::run;
using pg::testing::Run;
using pg::testing::TestFolder;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A base shared by two clusters; each cluster defines the route to the base's Gateway, and
// staging names a listener the Gateway does not have.
void writeRepository(const TestFolder& dir) {
  dir.write(".policygraph.yaml",
            "environments:\n"
            "  - name: production\n    paths: [clusters/production]\n    shared: [base]\n"
            "  - name: staging\n    paths: clusters/staging\n    shared: [base]\n");
  dir.write("base/gateway.yaml",
            "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata:\n"
            "  name: eg\nspec:\n  controllerName: gateway.envoyproxy.io/gatewayclass-controller\n"
            "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n"
            "  name: public\n  namespace: shop\nspec:\n  gatewayClassName: eg\n  listeners:\n"
            "    - name: http\n      protocol: HTTP\n      port: 80\n");
  const std::string route =
      "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: orders\n"
      "  namespace: shop\nspec:\n  parentRefs:\n    - name: public\n      sectionName: ";
  dir.write("clusters/production/route.yaml", route + "http\n");
  dir.write("clusters/staging/route.yaml", route + "https\n");
}

}  // namespace

TEST_CASE("environments: each is analysed on its own, and named in every finding") {
  TestFolder dir;
  writeRepository(dir);
  Run text = run(dir.path(), "lint");
  INFO(text.out);
  CHECK(text.status == 1);
  // The same HTTPRoute in both clusters is no duplicate: each environment has one.
  CHECK_FALSE(has(text.out, "IN110"));
  CHECK(has(text.out,
            "clusters/staging/route.yaml:9:7: error: [staging] HTTPRoute/shop/orders "
            "is not accepted"));
  CHECK_FALSE(has(text.out, "[production]"));
  // base/gateway.yaml is read once and counted once; its object is in both environments.
  CHECK(has(text.out, "in 3 files (6 objects) in 2 environments"));

  Run json = run(dir.path(), "lint --format json");
  nlohmann::json report = nlohmann::json::parse(json.out);
  REQUIRE(report["findings"].size() == 1);
  CHECK(report["findings"][0]["environment"] == "staging");
  CHECK(report["summary"]["environments"] == nlohmann::json::array({"production", "staging"}));

  Run sarif = run(dir.path(), "lint --format sarif");
  nlohmann::json log = nlohmann::json::parse(sarif.out);
  const auto& result = log["runs"][0]["results"][0];
  CHECK(result["properties"]["environment"] == "staging");
  CHECK(result["partialFingerprints"].begin().value() == report["findings"][0]["fingerprint"]);

  Run junit = run(dir.path(), "lint --format junit");
  CHECK(has(junit.out, "<testsuite name=\"policygraph.production.gateway\""));
  CHECK(has(junit.out, "<testsuite name=\"policygraph.staging.gateway\""));

  Run github = run(dir.path(), "lint --format github");
  CHECK(has(github.out, "title=GW201 route-not-accepted (staging)::"));

  // A PATH on the command line analyses just it, as without environments.
  Run one = run(dir.path(), "lint clusters/production base");
  CHECK(one.status == 0);
  CHECK_FALSE(has(one.out, "environment"));
}

TEST_CASE("environments: the fingerprint of a finding differs between environments") {
  TestFolder dir;
  writeRepository(dir);
  dir.write("clusters/production/route.yaml",
            pg::testing::readAll(dir.path() / "clusters/staging/route.yaml"));
  nlohmann::json report = nlohmann::json::parse(run(dir.path(), "lint --format json").out);
  REQUIRE(report["findings"].size() == 2);
  CHECK(report["findings"][0]["environment"] == "production");
  CHECK(report["findings"][1]["environment"] == "staging");
  CHECK(report["findings"][0]["fingerprint"] != report["findings"][1]["fingerprint"]);
}

TEST_CASE("environments: status items and snapshot folders per environment") {
  TestFolder dir;
  writeRepository(dir);
  Run status = run(dir.path(), "status --format json");
  nlohmann::json items = nlohmann::json::parse(status.out)["items"];
  int production = 0, staging = 0;
  for (const auto& item : items) {
    REQUIRE(item.contains("environment"));
    if (item["kind"] != "HTTPRoute") continue;
    const auto& accepted = item["status"]["parents"][0]["conditions"][0];
    if (item["environment"] == "production") {
      ++production;
      CHECK(accepted["status"] == "True");
    } else {
      ++staging;
      CHECK(accepted["status"] == "False");
    }
  }
  CHECK(production == 1);
  CHECK(staging == 1);
  CHECK(status.out.find("\"environment\"") < status.out.find("\"apiVersion\""));

  dir.write("base/policy.yaml",
            "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata:\n"
            "  name: public\n  namespace: shop\nspec:\n  targetRefs:\n"
            "    - group: gateway.networking.k8s.io\n      kind: Gateway\n      name: public\n"
            "  timeout:\n    http:\n      requestReceivedTimeout: 10s\n");
  Run update = run(dir.path(), "snapshot --update");
  INFO(update.out);
  CHECK(update.status == 0);
  CHECK(has(update.out, "in .policygraph/snapshots/production"));
  CHECK(has(update.out, "in .policygraph/snapshots/staging"));
  CHECK(std::filesystem::is_directory(dir.path() / ".policygraph/snapshots/production"));
  CHECK(std::filesystem::is_directory(dir.path() / ".policygraph/snapshots/staging"));
  CHECK(run(dir.path(), "snapshot --check").status == 1);  // staging's GW201, no drift
  std::filesystem::remove_all(dir.path() / ".policygraph/snapshots/staging");
  Run drift = run(dir.path(), "snapshot --check");
  CHECK(has(drift.out, "[staging]"));
  CHECK(has(drift.out, "SN703"));
}

TEST_CASE("environments: --environment picks one for lint, status and snapshot") {
  TestFolder dir;
  writeRepository(dir);
  Run production = run(dir.path(), "lint -e production");
  CHECK(production.status == 0);
  CHECK(has(production.out, "in 1 environment"));
  Run staging = run(dir.path(), "lint --environment staging --format json");
  nlohmann::json report = nlohmann::json::parse(staging.out);
  REQUIRE(report["findings"].size() == 1);
  CHECK(report["summary"]["environments"] == nlohmann::json::array({"staging"}));
  Run status = run(dir.path(), "status -e production --format json");
  nlohmann::json items = nlohmann::json::parse(status.out)["items"];  // kept: the loop reads it
  REQUIRE_FALSE(items.empty());
  for (const auto& item : items) CHECK(item["environment"] == "production");

  Run unknown = run(dir.path(), "lint -e prod");
  CHECK(unknown.status == 2);
  CHECK(has(unknown.err,
            "no environment prod in .policygraph.yaml; its environments: "
            "production, staging"));
  Run withPath = run(dir.path(), "lint -e staging clusters/staging");
  CHECK(withPath.status == 2);
  CHECK(has(withPath.err, "give it or PATHs, not both"));
  Run none = run(dir.path(), "lint --no-config -e staging");
  CHECK(none.status == 2);
  // Without the config the two clusters are alternatives (each defines the route its way),
  // named by their folders.
  CHECK(has(none.err,
            "--environment staging names no unit of the input; its units: "
            "clusters/production, clusters/staging"));
}

// Without environments: in the config, the units are inferred, and --environment names one.
TEST_CASE("inferred units: --environment picks one, explain and access the one holding REF") {
  TestFolder dir;
  writeRepository(dir);
  std::filesystem::remove(dir.path() / ".policygraph.yaml");
  // Each cluster a kustomize root over the base.
  dir.write("clusters/production/kustomization.yaml", "resources: [../../base, route.yaml]\n");
  dir.write("clusters/staging/kustomization.yaml", "resources: [../../base, route.yaml]\n");
  dir.write("base/kustomization.yaml", "resources: [gateway.yaml]\n");
  dir.write("clusters/staging/extra.yaml",
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: preview\n  namespace: shop\n"
            "spec:\n  ports: [{port: 80}]\n");
  dir.write("clusters/staging/kustomization.yaml",
            "resources: [../../base, route.yaml, extra.yaml]\n");

  Run all = run(dir.path(), "lint --no-config");
  INFO(all.out << all.err);
  CHECK(has(all.out, "[clusters/staging] HTTPRoute/shop/orders is not accepted"));
  CHECK(has(all.out, "in 2 units"));
  Run one = run(dir.path(), "lint --no-config -e clusters/production");
  CHECK(one.status == 0);
  CHECK(has(one.out, "in 1 unit"));
  Run unknown = run(dir.path(), "lint --no-config -e clusters/prod");
  CHECK(unknown.status == 2);
  CHECK(has(unknown.err,
            "--environment clusters/prod names no unit of the input; its units: "
            "clusters/production, clusters/staging"));
  // The Service only staging holds: explain finds it there without being told.
  Run explain = run(dir.path(), "explain --no-config Service/shop/preview");
  CHECK(explain.status == 0);
  CHECK(has(explain.out, "Service/shop/preview"));
  // The route both hold: the first, and a note naming the other.
  Run both = run(dir.path(), "explain --no-config HTTPRoute/shop/orders");
  CHECK(both.status == 0);
  CHECK(has(both.err,
            "2 units hold it (clusters/production, clusters/staging); showing "
            "clusters/production"));
  Run graph = run(dir.path(), "graph --no-config");
  CHECK(graph.status == 2);
  CHECK(has(graph.err, "graph shows one unit and the input has 2: pick one with --environment"));
  CHECK(run(dir.path(), "graph --no-config -e clusters/staging").status == 0);
  // `policygraph units` shows the two roots and why, and what was skipped.
  dir.write("docker-compose.yaml", "services:\n  web: {image: nginx}\n");
  Run units = run(dir.path(), "units --no-config --files");
  CHECK(units.status == 0);
  CHECK(has(units.out,
            "clusters/production  [kustomize] 2 file(s), 3 object(s)\n"
            "  kustomization clusters/production/kustomization.yaml, which no other "
            "kustomization includes\n    base/gateway.yaml\n"
            "    clusters/production/route.yaml\n"));
  CHECK(has(units.out, "skipped, not manifests: 3 kustomization, 1 no apiVersion or kind\n"));
  CHECK(has(units.out, "    docker-compose.yaml (no apiVersion or kind)\n"));
  nlohmann::json unitsJson =
      nlohmann::json::parse(run(dir.path(), "units --no-config --format json").out);
  REQUIRE(unitsJson["units"].size() == 2);
  CHECK(unitsJson["units"][1]["name"] == "clusters/staging");
  CHECK(unitsJson["units"][1]["kind"] == "kustomize");
  CHECK(unitsJson["units"][1]["objects"] == 4);
  CHECK(unitsJson["skipped"].size() == 4);
  Run nowhere = run(dir.path(), "explain --no-config Service/shop/none");
  CHECK(nowhere.status == 2);
  CHECK(has(nowhere.err, "none of which holds it"));
}

TEST_CASE("environments: explain, graph and access need one environment") {
  TestFolder dir;
  writeRepository(dir);
  for (const std::string& command :
       {std::string("explain HTTPRoute/shop/orders"), std::string("graph"),
        std::string("access --from ip:10.0.0.1 --to Deployment/shop/web:80")}) {
    Run bare = run(dir.path(), command);
    INFO(command, bare.err);
    CHECK(bare.status == 2);
    CHECK(has(bare.err,
              " shows one environment: pick one with --environment NAME (production, "
              "staging in .policygraph.yaml), or give its folders as PATHs"));
  }
  // Each environment has its own topology: the route attaches in production only.
  Run production = run(dir.path(), "graph -e production --format json");
  Run staging = run(dir.path(), "graph --environment staging --format json");
  CHECK(production.status == 0);
  CHECK(staging.status == 0);
  CHECK(has(production.out, "attachedRoutes: 1"));
  CHECK(has(staging.out, "attachedRoutes: 0"));
  CHECK(production.out != staging.out);
  Run explain = run(dir.path(), "explain HTTPRoute/shop/orders -e staging --format json");
  CHECK(explain.status == 0);
  CHECK(has(explain.out, "HTTPRoute"));
  // The environment is read, so the error is about the workload, not the environment.
  Run access = run(dir.path(), "access --from ip:10.0.0.1 --to Deployment/shop/web:80 -e staging");
  CHECK(access.status == 2);
  CHECK_FALSE(has(access.err, "environment"));
  // PATHs keep today's behaviour: that folder alone.
  CHECK(run(dir.path(), "graph clusters/production base").status == 0);
}

TEST_CASE("environments: diff compares each environment with itself and names it") {
  TestFolder dir;
  writeRepository(dir);
  pg::testing::git(dir.path(), "init");
  pg::testing::git(dir.path(), "add -A");
  pg::testing::git(dir.path(), "commit -m base");
  // An unchanged tree: nothing, though each environment alone has the same HTTPRoute.
  Run same = run(dir.path(), "diff HEAD");
  INFO(same.out, same.err);
  CHECK(same.status == 0);
  CHECK(has(same.out, "no change to policies, route attachments, effective policy or findings"));

  dir.write("clusters/staging/route.yaml",
            pg::testing::readAll(dir.path() / "clusters/production/route.yaml"));
  Run text = run(dir.path(), "diff HEAD");
  INFO(text.out, text.err);
  CHECK(text.status == 0);
  CHECK(has(text.out, "attached  [staging] HTTPRoute/shop/orders -> Gateway/shop/public#http"));
  CHECK_FALSE(has(text.out, "[production]"));
  CHECK(has(text.out, "error: [staging] HTTPRoute/shop/orders is not accepted"));

  nlohmann::json json = nlohmann::json::parse(run(dir.path(), "diff HEAD --format json").out);
  REQUIRE(json["attachments"].size() == 1);
  CHECK(json["attachments"][0]["environment"] == "staging");
  REQUIRE(json["findings"]["fixed"].size() == 1);
  CHECK(json["findings"]["fixed"][0]["environment"] == "staging");

  Run production = run(dir.path(), "diff HEAD -e production");
  CHECK(has(production.out, "no change to policies"));
  Run unknown = run(dir.path(), "diff HEAD -e prod");
  CHECK(unknown.status == 2);
  CHECK(has(unknown.err, "no environment prod on either side; theirs: production, staging"));
  // PATHs keep today's behaviour: the two folders as one input.
  Run paths = run(dir.path(), "diff HEAD -- clusters/staging base");
  CHECK(has(paths.out, "attached  HTTPRoute/shop/orders"));
}

TEST_CASE("environments: diff when the change declares them, or adds one") {
  TestFolder dir;
  writeRepository(dir);
  const std::string config = pg::testing::readAll(dir.path() / ".policygraph.yaml");
  std::filesystem::remove(dir.path() / ".policygraph.yaml");
  pg::testing::git(dir.path(), "init");
  pg::testing::git(dir.path(), "add -A");
  pg::testing::git(dir.path(), "commit -m base");
  // The base declares none: it is read with the head's environments, so declaring them
  // changes nothing by itself.
  dir.write(".policygraph.yaml", config);
  Run declared = run(dir.path(), "diff HEAD");
  INFO(declared.out, declared.err);
  CHECK(declared.status == 0);
  CHECK(
      has(declared.out, "no change to policies, route attachments, effective policy or findings"));

  // An environment whose folder the base does not have: all of it is new.
  dir.write(".policygraph.yaml",
            config + "  - name: qa\n    paths: [clusters/qa]\n    shared: [base]\n");
  dir.write("clusters/qa/route.yaml",
            pg::testing::readAll(dir.path() / "clusters/staging/route.yaml"));
  Run added = run(dir.path(), "diff HEAD");
  INFO(added.out, added.err);
  CHECK(added.status == 0);
  CHECK(has(added.out, "error: [qa] HTTPRoute/shop/orders is not accepted"));
  CHECK_FALSE(has(added.out, "[staging]"));
}
