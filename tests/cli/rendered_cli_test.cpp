// Rendered input keeps its source: `kustomize build` and `helm template` output on standard
// input, with findings pointed at the files of testdata/rendered/ they came from.
#include <doctest/doctest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli/run.h"
#include "tests/unit/test_folder.h"

namespace {

using pg::testing::readAll;
using pg::testing::run;
using pg::testing::Run;

const std::filesystem::path kRepo = std::filesystem::path(PG_SOURCE_DIR) / "testdata/rendered";

std::string rendered(const std::string& name) {
  return readAll(kRepo / "rendered" / name);
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("kustomize build output: findings point at the base file the object came from") {
  Run r = run(kRepo, "lint --root . -", rendered("production.yaml"));
  CHECK(r.status == 1);
  INFO(r.out);
  // The route's sectionName, as written in the base (the overlay did not change it).
  CHECK(has(r.out, "kustomize/base/route.yaml:8:7: error: HTTPRoute/shop/orders is not accepted"));
  CHECK(has(r.out, "  kustomize/base/gateway.yaml:8:7: note: listener http"));
  // The port the overlay's patch set is not what the base says: the finding stays on standard
  // input and names the file, and why it cannot point there.
  CHECK(has(r.out, "<stdin>:57:13: error: HTTPRoute/shop/orders rule 0: TCP port 9090 not found"));
  CHECK(has(r.out,
            "(rendered from kustomize/base/route.yaml, where this field has another "
            "value: the build changed it (a patch or a transformer))"));
  CHECK(has(r.out, "  kustomize/base/service.yaml:8:3: note: Service/shop/orders exposes"));

  Run json = run(kRepo, "lint --root . --format json -", rendered("production.yaml"));
  nlohmann::json report = nlohmann::json::parse(json.out);
  bool found = false;
  for (const auto& f : report["findings"]) {
    if (f["ruleId"] != "GW201") continue;
    found = true;
    CHECK(f["location"]["path"] == "kustomize/base/route.yaml");
    CHECK(f["location"]["line"] == 8);
    CHECK(f["location"]["column"] == 7);
    CHECK(f["location"]["endLine"] == 8);
    CHECK(f["location"]["endColumn"] == 25);
  }
  CHECK(found);

  Run sarif = run(kRepo, "lint --root . --format sarif -", rendered("production.yaml"));
  nlohmann::json log = nlohmann::json::parse(sarif.out);
  std::string uri;
  for (const auto& result : log["runs"][0]["results"])
    if (result["ruleId"] == "GW201")
      uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"];
  CHECK(uri.ends_with("testdata/rendered/kustomize/base/route.yaml"));
}

TEST_CASE("kustomize build output: which kustomization was built is worked out from the paths") {
  // From the top of this repository, where testdata/cases holds other base/service.yaml
  // files defining a Service called orders: the overlay folder resolves every path.
  Run r = run(PG_SOURCE_DIR, "lint --root . -", rendered("production.yaml"));
  INFO(r.out);
  CHECK(has(r.out, "  testdata/rendered/kustomize/base/service.yaml:8:3: note:"));
  CHECK(has(r.out, "testdata/rendered/kustomize/base/route.yaml:8:7: error:"));
}

TEST_CASE("kustomize build output without the original files: the origin is named") {
  pg::testing::TestFolder dir;
  Run r = run(dir.path(), "lint --root . -", rendered("production.yaml"));
  INFO(r.out);
  CHECK(has(r.out, "<stdin>:53:5: error: HTTPRoute/shop/orders is not accepted"));
  CHECK(has(r.out, "(rendered from ../../base/route.yaml) [GW201]"));
  // A remote base names its repository and ref.
  std::string remote = rendered("production.yaml");
  const std::string local = "      path: ../../base/route.yaml\n";
  remote.replace(remote.find(local), local.size(),
                 "      path: examples/route.yaml\n"
                 "      repo: https://github.com/example/shop\n"
                 "      ref: v1.2.0\n");
  Run fromRemote = run(kRepo, "lint --root . -", remote);
  INFO(fromRemote.out);
  CHECK(has(fromRemote.out,
            "(rendered from examples/route.yaml in "
            "https://github.com/example/shop@v1.2.0) [GW201]"));
}

TEST_CASE("helm template output: literal template lines are pointed at, filled-in ones named") {
  Run r = run(kRepo, "lint --root . -", rendered("shop.yaml"));
  CHECK(r.status == 1);
  INFO(r.out);
  // `sectionName: https` is written as is in the template: the finding points there.
  CHECK(has(r.out,
            "charts/shop/templates/route.yaml:9:7: error: HTTPRoute/default/shop-checkout "
            "is not accepted"));
  // The port comes from a value (`{{ .Values.backend.port }}`): no template line says 8080.
  CHECK(has(r.out, "<stdin>:32:17: error: HTTPRoute/default/shop-checkout rule 0: TCP port 8080"));
  CHECK(has(r.out, "(rendered from charts/shop/templates/route.yaml) [GW203]"));
  CHECK(has(r.out, "  charts/shop/templates/service.yaml:9:3: note: Service/default/checkout"));
}

TEST_CASE("manifests on standard input without an origin keep their positions") {
  pg::testing::TestFolder dir;
  std::string plain = rendered("shop.yaml");
  for (std::size_t at; (at = plain.find("# Source:")) != std::string::npos;)
    plain.replace(at, plain.find('\n', at) - at, "# rendered");
  Run r = run(kRepo, "lint --root . -", plain);
  INFO(r.out);
  CHECK(has(r.out, "<stdin>:24:7: error: HTTPRoute/default/shop-checkout is not accepted"));
  CHECK_FALSE(has(r.out, "rendered from"));
}
