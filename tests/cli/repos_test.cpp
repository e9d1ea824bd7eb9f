// testdata/repos/: small repositories in the shapes users commit (kustomize overlays, a Helm
// chart beside its rendered output, Flux and Argo CD layouts, Istio, Kuadrant and Envoy
// Gateway with classes the controller installs). `lint` on each must report exactly the
// findings its `expected.txt` lists, each a mistake put there on purpose: a finding not
// listed is a false positive, a listed one not reported a regression.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli/run.h"

namespace {

namespace fs = std::filesystem;

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

struct Expectations {
  std::multiset<std::string> findings;  // "ID path:line", or "ID path:line [environment]"
  std::string args;                     // `args:` line: more arguments for lint
};

// One finding per line, `ID path:line` with ` [environment]` when the repository declares
// environments; `#` starts a comment (why the finding is a true one). `args: ...` adds
// command-line arguments.
Expectations readExpectations(const fs::path& file) {
  Expectations out;
  std::istringstream in(pg::testing::readAll(file));
  std::string line;
  while (std::getline(in, line)) {
    line = trimmed(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    if (line.starts_with("args:")) {
      out.args = trimmed(line.substr(5));
      continue;
    }
    out.findings.insert(line);
  }
  return out;
}

std::string describe(const nlohmann::json& finding) {
  std::string out = finding["ruleId"].get<std::string>() + " " +
                    finding["location"]["path"].get<std::string>() + ":" +
                    std::to_string(finding["location"]["line"].get<int>());
  if (finding.contains("environment"))
    out += " [" + finding["environment"].get<std::string>() + "]";
  return out;
}

std::string listed(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += "\n  " + l;
  return out;
}

}  // namespace

TEST_CASE("testdata/repos: each repository gives exactly the findings its expected.txt lists") {
  const fs::path repos = fs::path(PG_SOURCE_DIR) / "testdata" / "repos";
  std::vector<fs::path> dirs;
  for (const fs::directory_entry& e : fs::directory_iterator(repos))
    if (e.is_directory()) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  REQUIRE(dirs.size() >= 7);
  for (const fs::path& dir : dirs) {
    CAPTURE(dir.filename().string());
    REQUIRE_MESSAGE(fs::is_regular_file(dir / "expected.txt"), "no expected.txt");
    const Expectations expected = readExpectations(dir / "expected.txt");
    // Every repository holds at least one planted mistake: a harness that reads no finding
    // cannot pass.
    CHECK_FALSE(expected.findings.empty());
    // Its own config, or none at all: never one found above the repository.
    std::string args = "lint --format json --fail-on none --root .";
    if (!fs::exists(dir / ".policygraph.yaml")) args += " --no-config";
    if (!expected.args.empty()) args += " " + expected.args;
    const pg::testing::Run run = pg::testing::run(dir, args);
    INFO(run.err);
    REQUIRE(run.status == 0);
    const nlohmann::json report = nlohmann::json::parse(run.out);
    REQUIRE(report["findings"].is_array());
    std::multiset<std::string> actual;
    for (const nlohmann::json& f : report["findings"]) actual.insert(describe(f));
    std::vector<std::string> missing, unexpected;
    std::set_difference(expected.findings.begin(), expected.findings.end(), actual.begin(),
                        actual.end(), std::back_inserter(missing));
    std::set_difference(actual.begin(), actual.end(), expected.findings.begin(),
                        expected.findings.end(), std::back_inserter(unexpected));
    CHECK_MESSAGE(missing.empty(), "expected, not reported:" << listed(missing));
    CHECK_MESSAGE(unexpected.empty(), "reported, not expected:" << listed(unexpected));
  }
}
