#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <set>
#include <thread>
#include <vector>

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

// One kustomization applies a.yaml and b.yaml: two definitions of one object in one build. (In
// files no unit claims, two that disagree would be alternatives, not duplicates.)
void applyTogether(const testing::TestFolder& dir) {
  dir.write("kustomization.yaml", "resources: [a.yaml, b.yaml]\n");
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

TEST_CASE("IN110: a copy with the same content is a note, any difference the rule's severity") {
  testing::TestFolder dir;
  dir.write("a.yaml", kDuplicate);
  dir.write("b.yaml",
            "# a copy, reformatted\napiVersion: \"v1\"\nkind: Service\n"
            "metadata: {namespace: shop, name: web}\n");
  auto same = rules::runRules(analyzeFolder(dir));
  REQUIRE(ids(same) == std::vector<std::string>{"IN110"});
  CHECK((same.findings[0].severity == model::Severity::Note));
  CHECK(same.findings[0].message.find("with the same content") != std::string::npos);
  dir.write("b.yaml", std::string(kDuplicate) + "  labels: {tier: web}\n");
  applyTogether(dir);
  auto different = rules::runRules(analyzeFolder(dir));
  REQUIRE(ids(different) == std::vector<std::string>{"IN110"});
  CHECK((different.findings[0].severity == model::Severity::Error));
  CHECK(different.findings[0].location.path == "b.yaml");
  CHECK(different.findings[0].message.find("is what the cluster keeps and what is analysed") !=
        std::string::npos);
}

TEST_CASE("severity overrides, rules turned off, suppressions and the baseline") {
  testing::TestFolder dir;
  dir.write("a.yaml", kDuplicate);
  dir.write("b.yaml", std::string(kDuplicate) + "  labels: {tier: web}\n");
  applyTogether(dir);
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
  applyTogether(dir);
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

TEST_CASE("a shared view is built once when rules on several threads ask at the same time") {
  rules::SharedViews shared;
  static const char key = 0, other = 0;
  std::atomic<int> built{0};
  std::vector<const std::vector<int>*> got(8);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < got.size(); ++t)
    threads.emplace_back([&, t] {
      got[t] = &shared.get<std::vector<int>>(&key, [&] {
        ++built;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return std::vector<int>{1, 2, 3};
      });
    });
  for (std::thread& t : threads) t.join();
  CHECK(built == 1);
  for (const auto* v : got) CHECK(v == got[0]);
  CHECK(*got[0] == std::vector<int>{1, 2, 3});
  CHECK(shared.get<int>(&other, [] { return 7; }) == 7);
  CHECK(&shared.get<std::vector<int>>(&key, [] { return std::vector<int>{}; }) == got[0]);
}

TEST_CASE("findings are the same whatever the number of threads the rules run on") {
  testing::TestFolder dir;
  dir.write("a.yaml", kDuplicate);
  dir.write("b.yaml", kDuplicate);
  dir.write("broken.yaml", "apiVersion: v1\nkind: [\n");
  for (int i = 0; i < 12; ++i) {
    std::string n = std::to_string(i);
    dir.write("route" + n + ".yaml",
              "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n"
              "  name: r" +
                  n +
                  "\n  namespace: shop\n"
                  "  annotations: {policygraph.dev/ignore: XX" +
                  n +
                  "}\n"
                  "spec:\n  parentRefs: [{name: missing" +
                  n +
                  "}]\n"
                  "  rules: [{backendRefs: [{name: nowhere, port: 80}]}]\n"
                  "---\napiVersion: gateway.networking.k8s.io/v1alpha3\nkind: BackendTLSPolicy\n"
                  "metadata: {name: p" +
                  n +
                  ", namespace: shop}\n"
                  "spec:\n  targetRefs: [{group: '', kind: Service, name: absent" +
                  n + "}]\n");
  }
  analysis::Analysis a = analyzeFolder(dir);
  auto describe = [](const rules::RuleRun& run) {
    std::string out;
    for (const auto& f : run.findings)
      out += f.ruleId + " " + f.location.path + ":" + std::to_string(f.location.start.line) + " " +
             f.fingerprint + " " + f.message + "\n";
    return out + std::to_string(run.suppressed) + " suppressed\n";
  };
  a.jobs = 1;
  rules::RuleRun one = rules::runRules(a);
  std::set<std::string> distinct;
  for (const auto& f : one.findings) distinct.insert(f.ruleId);
  CAPTURE(describe(one));
  CHECK(distinct.size() >= 4);
  for (unsigned jobs : {2u, 3u, 8u}) {
    a.jobs = jobs;
    CHECK(describe(rules::runRules(a)) == describe(one));
  }
}
