#include <doctest/doctest.h>

#include <algorithm>

#include "lib/analysis/analysis.h"
#include "rules/engine.h"
#include "rules/rule.h"
#include "tests/unit/test_folder.h"

using namespace pg;

namespace {

const char* kDuplicate =
    "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: shop\n";

analysis::Analysis analyzeFolder(const testing::TestFolder& dir, config::Config config = {}) {
  return analysis::analyze(std::move(config), {{dir.path().string()}, dir.path(), 1, {}, {}, {}});
}

std::vector<std::string> ids(const rules::RuleRun& run) {
  std::vector<std::string> out;
  for (const auto& f : run.findings) out.push_back(f.ruleId);
  return out;
}

}  // namespace

TEST_CASE("the catalogue is ordered and every entry is complete") {
  auto catalogue = rules::catalogue();
  REQUIRE(catalogue.size() >= 14);
  CHECK(std::is_sorted(catalogue.begin(), catalogue.end(),
                       [](const auto& a, const auto& b) { return a.id < b.id; }));
  for (const auto& r : catalogue) {
    CAPTURE(std::string(r.id));
    CHECK(!r.name.empty());
    CHECK(!r.family.empty());
    CHECK(!r.summary.empty());
    CHECK(!r.subjects.empty());
  }
  CHECK(rules::findRule("IN101"));
  CHECK_FALSE(rules::findRule("XX999"));
}

TEST_CASE("ignore annotations list rule IDs before the reason") {
  CHECK(rules::parseIgnoreAnnotation("PA301,GW203 -- legacy") ==
        std::vector<std::string>{"PA301", "GW203"});
  CHECK(rules::parseIgnoreAnnotation(" IN110 ") == std::vector<std::string>{"IN110"});
  CHECK(rules::parseIgnoreAnnotation("-- nothing").empty());
}

TEST_CASE("findings carry stable fingerprints and point at the field") {
  testing::TestFolder dir;
  dir.write("a.yaml", kDuplicate);
  dir.write("b.yaml", std::string("# moved down\n\n") + kDuplicate);
  auto a = analyzeFolder(dir);
  auto run = rules::runRules(a);
  REQUIRE(ids(run) == std::vector<std::string>{"IN110"});
  const auto& f = run.findings[0];
  CHECK(f.location.path == "b.yaml");
  CHECK(f.location.start.line == 6);
  CHECK(f.location.start.column == 3);
  CHECK(f.objects == std::vector<std::string>{"Service/shop/web"});
  REQUIRE(f.related.size() == 1);
  CHECK(f.related[0].location.path == "a.yaml");
  // Moving the object down does not change the fingerprint.
  dir.write("b.yaml", std::string("# moved further\n\n\n\n") + kDuplicate);
  auto moved = rules::runRules(analyzeFolder(dir));
  REQUIRE(moved.findings.size() == 1);
  CHECK(moved.findings[0].fingerprint == f.fingerprint);
  CHECK(moved.findings[0].location.start.line == 8);
}

TEST_CASE("severity overrides, rules turned off, suppressions and the baseline") {
  testing::TestFolder dir;
  dir.write("a.yaml", kDuplicate);
  dir.write("b.yaml", kDuplicate);
  {
    config::Config c;
    c.rules["IN110"].severity = model::Severity::Note;
    auto run = rules::runRules(analyzeFolder(dir, c));
    REQUIRE(run.findings.size() == 1);
    CHECK((run.findings[0].severity == model::Severity::Note));
  }
  {
    config::Config c;
    c.rules["IN110"].off = true;
    CHECK(rules::runRules(analyzeFolder(dir, c)).findings.empty());
  }
  {
    config::Config c;
    c.suppressions.push_back({"IN110", "Service/shop/*", "", "known", {}});
    auto run = rules::runRules(analyzeFolder(dir, c));
    CHECK(run.findings.empty());
    CHECK(run.suppressed == 1);
  }
  {
    config::Config c;
    c.suppressions.push_back({"IN110", "Service/other/*", "", "not this one", {}});
    CHECK(rules::runRules(analyzeFolder(dir, c)).findings.size() == 1);
  }
  {
    config::Config c;
    c.suppressions.push_back({"*", "", "b.yaml", "whole file", {}});
    CHECK(rules::runRules(analyzeFolder(dir, c)).findings.empty());
  }
  {
    auto a = analyzeFolder(dir);
    auto first = rules::runRules(a);
    REQUIRE(first.findings.size() == 1);
    auto again = rules::runRules(a, {first.findings[0].fingerprint});
    CHECK(again.findings.empty());
    CHECK(again.baselined == 1);
  }
}

TEST_CASE("the ignore annotation suppresses findings on its object; unknown IDs are IN114") {
  testing::TestFolder dir;
  dir.write("a.yaml", kDuplicate);
  dir.write("b.yaml",
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: shop\n"
            "  annotations:\n    policygraph.dev/ignore: \"IN110, XX999 -- known copy\"\n");
  auto run = rules::runRules(analyzeFolder(dir));
  REQUIRE(ids(run) == std::vector<std::string>{"IN114"});
  CHECK(run.suppressed == 1);
  CHECK(run.findings[0].location.start.line == 7);
  CHECK((run.findings[0].severity == model::Severity::Warning));
}

TEST_CASE("unknown rule IDs in the config are IN114 at the config entry") {
  testing::TestFolder dir;
  dir.write("a.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n");
  config::Config c;
  c.path = ".policygraph.yaml";
  c.rules["NOPE1"] = {false, model::Severity::Note, {".policygraph.yaml", {3, 3}, {3, 10}}};
  auto run = rules::runRules(analyzeFolder(dir, c));
  REQUIRE(ids(run) == std::vector<std::string>{"IN114"});
  CHECK(run.findings[0].location.path == ".policygraph.yaml");
  CHECK(run.findings[0].location.start.line == 3);
}
