// The accept/refuse corpus (testdata/schema/README.md), and the Gateway API conformance
// inputs when ../shared/oracles is beside the repository: no schema finding on what the API
// server accepts, the API server's finding on what it refuses.

#include <doctest/doctest.h>

#include <algorithm>
#include <charconv>
#include <deque>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "lib/load/loader.h"
#include "lib/schema/validate.h"
#include "tests/unit/skip.h"

namespace pg::schema {
namespace {

namespace fs = std::filesystem;

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<fs::path> yamlFiles(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (!e.is_symlink() && e.is_regular_file() && e.path().extension() == ".yaml")
      out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

struct Checked {
  load::FileResult file;  // the tree the result points into
  Result result;
};

Checked validateFile(const fs::path& path) {
  Checked c;
  c.file = load::loadText(path.string(), readFile(path), {});
  Registry registry;
  c.result = validateAll(c.file.resources, registry, 1);
  return c;
}

const fs::path kCorpus = fs::path(PG_SOURCE_DIR) / "testdata" / "schema";

TEST_CASE("schema corpus: what the API server accepts passes with no schema finding") {
  std::size_t objects = 0;
  for (const fs::path& path : yamlFiles(kCorpus / "accept")) {
    Checked c = validateFile(path);
    REQUIRE_MESSAGE(c.file.problems.empty(), path.string());
    objects += c.file.resources.size();
    for (const Violation& v : c.result.violations) FAIL_CHECK(path.string() << ": " << v.message);
    CHECK(std::none_of(c.result.refused.begin(), c.result.refused.end(), [](bool r) { return r; }));
  }
  CHECK(objects >= 20);
}

TEST_CASE("schema corpus: what the API server refuses is refused, in its words") {
  std::size_t files = 0;
  for (const fs::path& path : yamlFiles(kCorpus / "refuse")) {
    ++files;
    std::string text = readFile(path);
    const std::string marker = "# refused: ";
    REQUIRE_MESSAGE(text.starts_with(marker), path.string() << " has no '# refused:' line");
    std::string expected = text.substr(marker.size(), text.find('\n') - marker.size());
    Checked c = validateFile(path);
    REQUIRE_MESSAGE(c.file.resources.size() == 1, path.string());
    INFO(path.string(), ": expected a finding with ", expected);
    bool found = std::any_of(
        c.result.violations.begin(), c.result.violations.end(),
        [&](const Violation& v) { return v.message.find(expected) != std::string::npos; });
    if (!found)
      for (const Violation& v : c.result.violations) MESSAGE("got: ", v.message);
    CHECK(found);
    CHECK(c.result.refused == std::vector<bool>{true});
  }
  CHECK(files >= 15);
}

// Whether `v` is about a Gateway address whose value the conformance suite replaces.
bool placeholderAddress(const Checked& c, const Violation& v) {
  constexpr std::string_view kPrefix = "spec.addresses[";
  if (!v.path.starts_with(kPrefix) || v.object >= c.file.resources.size()) return false;
  std::size_t index = 0;
  std::string_view rest = std::string_view(v.path).substr(kPrefix.size());
  auto [p, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), index);
  if (ec != std::errc() || p == rest.data() + rest.size() || *p != ']') return false;
  yaml::NodeRef address = c.file.resources[v.object].node.get("spec").get("addresses").at(index);
  return address.get("value").str().starts_with("PLACEHOLDER_");
}

TEST_CASE("schema corpus: every Gateway API conformance input passes") {
  fs::path dir = fs::path(PG_SOURCE_DIR) / ".." / "shared" / "oracles" / "gateway-api-conformance";
  if (!fs::exists(dir)) {
    pg::testing::skipCheck(dir.string() + " is not beside the repository");
    return;
  }
  std::size_t objects = 0, deprecated = 0;
  for (const fs::path& path : yamlFiles(dir)) {
    Checked c = validateFile(path);
    objects += c.file.resources.size();
    for (const Violation& v : c.result.violations) {
      // The suite still writes TCPRoute and UDPRoute at v1alpha2, which the same commit's
      // experimental CRDs serve deprecated: the API server accepts them with a warning, and so
      // does IN125. Nothing else may be reported, and such an object is never refused.
      if (v.code == Code::DeprecatedVersion && v.path == "apiVersion") {
        ++deprecated;
        CHECK(!c.result.refused[v.object]);
        continue;
      }
      // The suite substitutes its controller's name for this placeholder before applying.
      if (v.message.find("{GATEWAY_CONTROLLER_NAME}") != std::string::npos) continue;
      // And its users' addresses for these (gateway-static-addresses.yaml): as written, an
      // address without a type is an IPAddress one, which "PLACEHOLDER_USABLE_ADDRS" is not.
      if (placeholderAddress(c, v)) continue;
      FAIL_CHECK(path.string() << ": " << v.message);
    }
  }
  CHECK(objects > 400);
  MESSAGE(deprecated << " objects at a deprecated version (IN125)");
}

// The passed-value cache (a value known by what its rules read) must never change a result:
// every object validated in one run, after every other, gets exactly the findings it gets
// validated alone. The corpus holds near-twins (accepted objects and refused variants of them,
// every test case's objects), so a read the cache missed would show as a lost finding.
TEST_CASE("schema corpus: validating objects together finds what validating each alone finds") {
  std::vector<fs::path> paths = yamlFiles(kCorpus / "accept");
  for (const fs::path& p : yamlFiles(kCorpus / "refuse")) paths.push_back(p);
  for (const fs::path& p : yamlFiles(fs::path(PG_SOURCE_DIR) / "testdata" / "cases"))
    paths.push_back(p);
  fs::path conformance =
      fs::path(PG_SOURCE_DIR) / ".." / "shared" / "oracles" / "gateway-api-conformance";
  if (fs::exists(conformance))
    for (const fs::path& p : yamlFiles(conformance)) paths.push_back(p);
  else
    pg::testing::skipCheck(conformance.string() +
                           " is not beside the repository: its inputs "
                           "are left out of the comparison");
  // Objects of the built-in kinds only: a case's own CustomResourceDefinitions would define
  // its kinds for every other case's objects too.
  Registry builtIn;
  std::deque<load::FileResult> files;
  std::vector<model::Resource> all;
  for (const fs::path& path : paths) {
    files.push_back(load::loadText(path.string(), readFile(path), {}));
    for (const model::Resource& r : files.back().resources)
      if (r.kind != "CustomResourceDefinition" && builtIn.find(r.group, r.kind)) all.push_back(r);
  }
  auto text = [](const Violation& v) {
    return v.location.path + ":" + std::to_string(v.location.start.line) + ":" +
           std::to_string(v.location.start.column) + ": " + v.message;
  };
  // Twice over, so that every object also meets the values of the objects after it.
  std::vector<model::Resource> twice = all;
  twice.insert(twice.end(), all.begin(), all.end());
  Registry registry;
  Result together = validateAll(twice, registry, 1);
  std::vector<std::vector<std::string>> found(twice.size());
  for (const Violation& v : together.violations) found[v.object].push_back(text(v));
  std::size_t violations = 0;
  for (std::size_t i = 0; i < twice.size(); ++i) {
    Registry alone;
    Result one = validateAll({twice[i]}, alone, 1);
    std::vector<std::string> expected;
    for (const Violation& v : one.violations) expected.push_back(text(v));
    violations += expected.size();
    INFO(twice[i].display());
    CHECK(found[i] == expected);
    CHECK(one.refused[0] == together.refused[i]);
  }
  CHECK(all.size() > 500);
  CHECK(violations > 50);
}

}  // namespace
}  // namespace pg::schema
