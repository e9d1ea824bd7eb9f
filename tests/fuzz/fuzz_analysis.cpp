// fuzz_analysis: bytes → a repository of one file → the whole analysis, every rule and every
// report writer, as `policygraph lint` runs them. An input may start with a config file for
// the run: "#config\n" CONFIG "\n#end\n" MANIFEST; a config that does not parse is a usage
// error in the CLI (exit 2), so here it is simply not used.
//
// Besides the sanitizers, it checks that no exception escapes (the CLI would exit 3, "internal
// error"), that the machine-readable reports are well-formed (JSON and SARIF parse, JUnit is
// XML, and a JSON report read back as a baseline names exactly the findings), and that the
// plain text report and the GitHub annotations hold no control character they did not write.
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "lib/analysis/analysis.h"
#include "lib/config/config.h"
#include "lib/report/report.h"
#include "rules/engine.h"
#include "tests/fuzz/report_checks.h"

namespace {

namespace fs = std::filesystem;

void require(bool condition) {
  if (!condition) std::abort();
}

// The folder the input is written to, made once and removed at exit. Never destroyed: the
// exit handler that removes it may run after static destructors.
const fs::path& workFolder() {
  static const fs::path* folder = [] {
    std::string pattern = (fs::temp_directory_path() / "pg-fuzz-analysis-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) std::abort();
    auto* path = new fs::path(pattern);
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(workFolder(), ec);
    });
    return path;
  }();
  return *folder;
}

void writeFile(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  require(static_cast<bool>(out.flush()));
}

// Whether a report meant for a terminal or a CI log carries no control character but the
// line ends it writes itself: a file or object name must never clear the reader's screen,
// move the cursor or start a line of its own.
bool printable(const std::string& text) {
  return std::none_of(text.begin(), text.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\n') || u == 0x7f;
  });
}

pg::config::Config configFor(std::string_view& input) {
  pg::config::Config config;
  constexpr std::string_view kStart = "#config\n";
  constexpr std::string_view kEnd = "\n#end\n";
  if (input.starts_with(kStart)) {
    std::size_t end = input.find(kEnd, kStart.size());
    if (end != std::string_view::npos) {
      std::string text(input.substr(kStart.size(), end - kStart.size()));
      input.remove_prefix(end + kEnd.size());
      try {
        config = pg::config::parseConfig(std::move(text), ".policygraph.yaml");
      } catch (const pg::config::ConfigError&) {
        config = {};
      }
    }
  }
  // Whatever the config says, keep the limits small enough that no input can time out by
  // design (an alias bomb under a huge configured limit is the user's choice, not a bug).
  config.limits.maxFileBytes = std::min<std::uint64_t>(config.limits.maxFileBytes, 1 << 20);
  config.limits.maxDepth = std::min<std::uint32_t>(config.limits.maxDepth, 64);
  config.limits.maxAliasExpansion = std::min<std::uint64_t>(config.limits.maxAliasExpansion, 10000);
  return config;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  pg::config::Config config = configFor(input);
  const fs::path& folder = workFolder();
  writeFile(folder / "input.yaml", input);

  pg::analysis::Inputs inputs;
  inputs.paths = {folder.string()};
  inputs.root = folder;
  inputs.jobs = 1;
  pg::analysis::Analysis analysis = pg::analysis::analyze(std::move(config), inputs);
  pg::rules::RuleRun run = pg::rules::runRules(analysis);
  std::vector<pg::model::RuleInfo> catalogue = pg::rules::catalogue();
  pg::report::ReportInput report{analysis, run.findings, catalogue, run.suppressed, run.baselined};

  std::ostringstream text, colored, json, sarif, junit, github;
  pg::report::writeText(text, report, {false});
  pg::report::writeText(colored, report, {true});
  pg::report::writeJson(json, report);
  // Every rule's metadata and help make a SARIF log of about 300 KB whatever the input, and
  // writing and parsing it back took most of each run (10 runs a second). The catalogue is
  // the same every time: SARIF gets the rules the findings name, in catalogue order, so the
  // descriptors and ruleIndex are still written for every finding.
  std::vector<pg::model::RuleInfo> named;
  for (const pg::model::RuleInfo& rule : catalogue)
    if (std::any_of(run.findings.begin(), run.findings.end(),
                    [&](const pg::model::Finding& f) { return f.ruleId == rule.id; }))
      named.push_back(rule);
  pg::report::writeSarif(sarif, {analysis, run.findings, named, run.suppressed, run.baselined});
  pg::report::writeJunit(junit, report);
  pg::report::writeGithub(github, report);

  require(printable(text.str()));
  require(printable(github.str()));
  require(pg::fuzz::isJson(json.str()));
  require(pg::fuzz::isJson(sarif.str()));
  require(pg::fuzz::isXml(junit.str()));

  std::set<std::string> fingerprints;
  for (const pg::model::Finding& f : run.findings) fingerprints.insert(f.fingerprint);
  require(pg::report::readBaseline(json.str()) == fingerprints);
  return 0;
}
