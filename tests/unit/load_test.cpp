#include <doctest/doctest.h>

#include <algorithm>

#include "lib/analysis/analysis.h"
#include "lib/load/encoding.h"
#include "lib/load/loader.h"
#include "lib/load/sources.h"
#include "tests/unit/test_folder.h"

using namespace pg;
namespace fs = std::filesystem;

TEST_CASE("encoding scan: ASCII, UTF-8, binary, broken UTF-8, UTF-16") {
  using V = load::EncodingScan::Verdict;
  CHECK(load::scanEncoding("plain ascii text here\n").verdict == V::Ascii);
  CHECK(load::scanEncoding("caf\xc3\xa9\n").verdict == V::Utf8);
  auto bin = load::scanEncoding(std::string("a: 1\nb: \0\n", 10));
  CHECK(bin.verdict == V::Binary);
  CHECK(bin.offset == 8);
  auto bad = load::scanEncoding("ok\nx\xc3\x28\n");
  CHECK(bad.verdict == V::NotUtf8);
  CHECK(bad.offset == 4);
  CHECK(load::scanEncoding("\xed\xa0\x80").verdict == V::NotUtf8);      // a surrogate
  CHECK(load::scanEncoding("\xc0\xaf").verdict == V::NotUtf8);          // an overlong
  CHECK(load::scanEncoding("\xf4\x90\x80\x80").verdict == V::NotUtf8);  // past U+10FFFF
  CHECK(load::scanEncoding(std::string_view("\xff\xfe"
                                            "a\0",
                                            4))
            .verdict == V::Utf16);
  // The scan skips ASCII sixteen and eight bytes at a time: a sequence is read, and a bad one
  // found at its offset, wherever it falls in a block.
  for (std::size_t pad = 0; pad < 40; ++pad) {
    INFO("after " << pad << " bytes");
    std::string ascii(pad, 'x');
    CHECK(load::scanEncoding(ascii + "\xc3\xa9" + ascii).verdict == V::Utf8);
    auto broken = load::scanEncoding(ascii + "\xc3\x28" + ascii);
    CHECK(broken.verdict == V::NotUtf8);
    CHECK(broken.offset == pad);
    CHECK(load::scanEncoding(ascii + ascii + "\n").verdict == V::Ascii);
  }
  auto mark = load::markAt("ab\n\xc3\xa9x", 5);
  CHECK(mark.line == 2);
  CHECK(mark.column == 2);
}

TEST_CASE("documents split into objects; List items unpack; bad ones are problems") {
  load::FileResult r =
      load::loadText("f.yaml",
                     "apiVersion: v1\nkind: List\nitems:\n"
                     "- {apiVersion: v1, kind: Service, metadata: {name: a}}\n- 7\n"
                     "---\n"
                     "kind: Service\nmetadata: {name: b}\n"
                     "---\n"
                     "apiVersion: v1\nkind: Service\nmetadata: {namespace: x}\n"
                     "---\n"
                     "apiVersion: batch/v1\nkind: Job\nmetadata: {generateName: run-}\n"
                     "---\n"
                     "just a string\n",
                     {});
  REQUIRE(r.resources.size() == 1);
  CHECK(r.resources[0].name == "a");
  std::vector<std::pair<load::ProblemKind, std::uint32_t>> got;
  for (const load::Problem& p : r.problems) got.emplace_back(p.kind, p.location.start.line);
  std::vector<std::pair<load::ProblemKind, std::uint32_t>> want = {
      {load::ProblemKind::NotAnObject, 5},
      {load::ProblemKind::MissingField, 7},
      {load::ProblemKind::MissingField, 12},
      {load::ProblemKind::NotAnObject, 18},
  };
  CHECK(got == want);
}

TEST_CASE("walking folders: order, hidden entries, extensions, excludes, symlinks") {
  testing::TestFolder dir;
  const fs::path& d = dir.path();
  dir.write("b.yaml", "a: 1\n");
  dir.write("a/z.yml", "a: 1\n");
  dir.write("a/y.json", "{}\n");
  dir.write("a/readme.md", "not read\n");
  dir.write(".hidden/x.yaml", "a: 1\n");
  dir.write("vendor/v.yaml", "a: 1\n");
  fs::create_directory_symlink(d, d / "loop");
  fs::create_directory_symlink("/", d / "outside");
  fs::create_symlink("missing.yaml", d / "dangling.yaml");
  fs::create_symlink("b.yaml", d / "c.yaml");  // the same file again: read once
  config::Config config;
  config.exclude = {"vendor/**"};
  std::vector<load::Problem> problems;
  auto sources = load::collectSources({d.string()}, d, config, problems);
  std::vector<std::string> paths;
  for (const auto& s : sources) paths.push_back(s.path);
  CHECK(paths == std::vector<std::string>{"a/y.json", "a/z.yml", "b.yaml"});
  std::vector<std::pair<load::ProblemKind, std::string>> got;
  for (const auto& p : problems) got.emplace_back(p.kind, p.location.path);
  std::vector<std::pair<load::ProblemKind, std::string>> want = {
      {load::ProblemKind::Unreadable, "dangling.yaml"},
      {load::ProblemKind::SymlinkLoop, "loop"},
      {load::ProblemKind::SymlinkOutside, "outside"},
  };
  CHECK(got == want);
  CHECK_THROWS_AS(load::collectSources({(d / "nothing").string()}, d, config, problems),
                  load::InputError);
}

TEST_CASE("include globs select files; explicit files are always read") {
  testing::TestFolder dir;
  dir.write("keep/a.yaml", "a: 1\n");
  dir.write("skip/b.yaml", "a: 1\n");
  config::Config config;
  config.include = {"keep/**"};
  std::vector<load::Problem> problems;
  auto sources = load::collectSources({dir.path().string()}, dir.path(), config, problems);
  REQUIRE(sources.size() == 1);
  CHECK(sources[0].path == "keep/a.yaml");
  sources =
      load::collectSources({(dir.path() / "skip/b.yaml").string()}, dir.path(), config, problems);
  REQUIRE(sources.size() == 1);
  CHECK(sources[0].path == "skip/b.yaml");
}

TEST_CASE("file limits: size") {
  testing::TestFolder dir;
  dir.write("big.yaml", std::string(2000, '#') + "\n");
  config::Config config;
  config.limits.maxFileBytes = 1000;
  analysis::Analysis a = analysis::analyze(config, {{dir.path().string()}, dir.path(), 1, {}, {}, {}});
  REQUIRE(a.problems.size() == 1);
  CHECK(a.problems[0].kind == load::ProblemKind::FileTooLarge);
}

TEST_CASE("the analysis is the same whatever the number of jobs") {
  testing::TestFolder dir;
  for (int i = 0; i < 40; ++i) {
    std::string text;
    for (int j = 0; j < 5; ++j)
      text += "apiVersion: v1\nkind: Service\nmetadata: {name: s" + std::to_string(j) +
              ", namespace: n" + std::to_string(i % 7) + "}\n---\n";
    if (i % 9 == 0) text += "broken: [\n";
    dir.write("f" + std::to_string(i) + ".yaml", text);
  }
  auto run = [&](unsigned jobs) {
    analysis::Analysis a = analysis::analyze({}, {{dir.path().string()}, dir.path(), jobs, {}, {}, {}});
    std::string out;
    for (const auto& r : a.store.all()) out += std::string(r.file->path) + " " + r.display() + "\n";
    for (const auto& p : a.problems)
      out += p.location.path + ":" + std::to_string(p.location.start.line) + " " + p.message + "\n";
    for (const auto& d : a.store.duplicates()) out += "dup " + d.second->display() + "\n";
    return out;
  };
  std::string one = run(1);
  CHECK(one.find("dup Service/n0/s0") != std::string::npos);
  CHECK(run(2) == one);
  CHECK(run(8) == one);
}

TEST_CASE("standard input is read as one file") {
  analysis::Inputs inputs{
      {"-"}, fs::current_path(), 1, "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n", {},
      {}};
  analysis::Analysis a = analysis::analyze({}, inputs);
  REQUIRE(a.files.size() == 1);
  CHECK(a.files[0]->path == "<stdin>");
  CHECK(a.store.size() == 1);
}

// One file with many documents, each with a problem to name: naming them once scanned the
// file from the top for every object, quadratic in the file's length (a 12.5 MB file took
// 73 s). The unit test's ctest TIMEOUT turns a regression into a failure.
TEST_CASE("many documents in one file load in linear time") {
  std::string text;
  for (int i = 0; i < 20000; ++i)
    text += "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  namespace: n\ndata: {k: v" +
            std::to_string(i) + "}\n---\n";
  load::FileResult r = load::loadText("big.yaml", text, {});
  CHECK(r.resources.empty());
  CHECK(r.problems.size() == 20000);
}
