// Runs every case under testdata/cases/<family>/<case>/: the findings must be exactly those
// the case announces with `# expect: ID[, ID...]` comments (each on the line the finding points
// at) and in an optional `expect.txt` (`PATH:LINE ID` lines, for files that cannot hold a
// comment: symlinks, binary files). An ID may pin the finding's column and a text its message
// holds: `ID@COLUMN "text"` (either part alone too; `\"` in the text is a quote); every rule pins
// the message of one of its failing cases. Optional goldens in `expected/` are compared byte for
// byte; `PG_UPDATE_GOLDENS=1` rewrites the goldens that exist, for review: `expected/lint.txt` (the
// text report), `expected/status.yaml` (`policygraph status`), and
// `expected/explain/<Kind>.<namespace>.<name>[#section].json` (`policygraph explain --format
// json` of that object; `<Kind>.<name>.json` for cluster-scoped ones and Universal objects; a
// Kuma Dataplane or MeshGateway gets the Kuma explain: policies in Kuma's order, merged rules).
// `expected/snapshots/` holds the case's golden snapshots (`policygraph snapshot --update`,
// `<Kind>/<namespace>/<name>.yaml`): a file missing, extra or different is a failure, with a
// line diff. `PG_UPDATE_GOLDENS=1` writes them and deletes stale ones, only in cases that have
// the folder: to start one, create the empty folder.
// `PG_CASES=a,b` runs only the cases whose `family/case` name contains `a` or `b`; use it with
// PG_UPDATE_GOLDENS so that an update touches only the cases under review.
// A case may hold `.policygraph/snapshots/`: the loader skips hidden folders, and the case
// folder is the root, so the snapshot rules compare against it. Findings in snapshot files
// go in `expect.txt`: an `# expect:` comment would itself change the snapshot.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "lib/analysis/analysis.h"
#include "lib/config/config.h"
#include "lib/report/message.h"
#include "lib/report/report.h"
#include "lib/snapshot/snapshot.h"
#include "rules/engine.h"
#include "rules/rule.h"
#include "rules/rule_pages.h"

namespace fs = std::filesystem;

namespace {

struct Expectation {
  std::string path;
  std::uint32_t line;
  std::string rule;
  auto operator<=>(const Expectation&) const = default;
};

// What an expectation may pin beyond its place: `# expect: GW204@18 "not permitted"` wants the
// finding at column 18 whose message holds the text.
struct Pin {
  Expectation at;
  std::uint32_t column = 0;  // 0: any
  std::string text;          // empty: any
};

struct Expected {
  std::multiset<Expectation> places;
  std::vector<Pin> pins;
};

// A finding as the pins compare it.
struct Found {
  Expectation at;
  std::uint32_t column;
  std::string message;
};

std::string readAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The expectations of one `# expect:` comment: `ID[@COLUMN] ["TEXT"]`, comma-separated; the list
// ends at anything else. In TEXT, `\"` is a quote.
std::vector<Pin> parseExpect(std::string_view text, const std::string& path, std::uint32_t line) {
  std::vector<Pin> out;
  std::size_t i = 0;
  auto skipBlanks = [&] {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  };
  while (true) {
    skipBlanks();
    std::size_t start = i;
    while (i < text.size() && std::isalnum(static_cast<unsigned char>(text[i]))) ++i;
    if (i == start) break;
    Pin pin{{path, line, std::string(text.substr(start, i - start))}, 0, {}};
    if (i < text.size() && text[i] == '@') {
      ++i;
      while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
        pin.column = pin.column * 10 + static_cast<std::uint32_t>(text[i++] - '0');
    }
    skipBlanks();
    if (i < text.size() && text[i] == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\' && i + 1 < text.size()) ++i;
        pin.text += text[i];
      }
      ++i;
      skipBlanks();
    }
    out.push_back(std::move(pin));
    if (i >= text.size() || text[i] != ',') break;
    ++i;
  }
  return out;
}

Expected readExpectations(const fs::path& caseDir) {
  Expected out;
  for (auto it = fs::recursive_directory_iterator(caseDir);
       it != fs::recursive_directory_iterator(); ++it) {
    const fs::path rel = it->path().lexically_relative(caseDir);
    if (*rel.begin() == "expected") {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (it->is_symlink() || !it->is_regular_file()) continue;
    if (rel == "expect.txt") continue;
    std::string text = readAll(it->path());
    std::uint32_t line = 1;
    std::size_t start = 0;
    while (start <= text.size()) {
      std::size_t end = text.find('\n', start);
      std::string_view l(text.data() + start,
                         (end == std::string::npos ? text.size() : end) - start);
      if (auto at = l.find("# expect:"); at != std::string_view::npos)
        for (Pin& pin : parseExpect(l.substr(at + 9), rel.generic_string(), line)) {
          out.places.insert(pin.at);
          if (pin.column != 0 || !pin.text.empty()) out.pins.push_back(std::move(pin));
        }
      if (end == std::string::npos) break;
      start = end + 1;
      ++line;
    }
  }
  fs::path extra = caseDir / "expect.txt";
  if (fs::exists(extra)) {
    std::istringstream lines(readAll(extra));
    std::string l;
    while (std::getline(lines, l)) {
      if (l.empty() || l[0] == '#') continue;
      auto colon = l.rfind(':', l.find(' '));
      auto space = l.find(' ');
      REQUIRE_MESSAGE((colon != std::string::npos && space != std::string::npos),
                      "bad expect.txt line: " << l);
      for (Pin& pin : parseExpect(
               std::string_view(l).substr(space + 1), l.substr(0, colon),
               static_cast<std::uint32_t>(std::stoul(l.substr(colon + 1, space - colon - 1))))) {
        out.places.insert(pin.at);
        if (pin.column != 0 || !pin.text.empty()) out.pins.push_back(std::move(pin));
      }
    }
  }
  return out;
}

struct CaseResult {
  Expected expected;
  std::multiset<Expectation> actual;
  std::vector<Found> found;  // the findings with their columns and messages, for the pins
  std::vector<std::string>
      subjectOnlyLeads;  // "RULE: lead" of each finding whose lead names only its subject
  std::string text;      // the text report, for expected/lint.txt
  std::string status;    // `policygraph status` as YAML, for expected/status.yaml
  // expected/explain/<file> → the explain JSON of the object the file names.
  std::vector<std::pair<std::string, std::string>> explains;
  // expected/snapshots/: how many files it holds (after an update), and each disagreement.
  std::size_t snapshotGoldens = 0;
  std::vector<std::string> snapshotFailures;
  // The rules' findings (fingerprints) on the analysis `status` makes, when they differ from
  // those on the one `lint` makes, which leaves out the enforcement status no rule may read.
  std::optional<std::string> differentWithStatus;
};

// The object an explain golden's file name names: `Kind.namespace.name[#section].json`, or
// `Kind.name.json` when cluster-scoped (names may hold dots, kinds and namespaces do not).
std::string explainOf(const pg::analysis::Analysis& a, std::string file) {
  file.resize(file.size() - std::string_view(".json").size());
  std::string section;
  if (auto hash = file.find('#'); hash != std::string::npos) {
    section = file.substr(hash + 1);
    file.resize(hash);
  }
  auto dot = file.find('.');
  if (dot == std::string::npos) return "bad golden name: want Kind.namespace.name.json\n";
  std::string kind = file.substr(0, dot), rest = file.substr(dot + 1);
  std::vector<const pg::model::Resource*> found;
  if (auto second = rest.find('.'); second != std::string::npos)
    found = a.store.findByKind(kind, rest.substr(0, second), rest.substr(second + 1));
  if (found.empty()) found = a.store.findByKind(kind, "", rest);
  if (found.empty()) return "no object " + file + " in the case\n";
  const pg::model::Resource& target = *found.front();
  if (target.group == "kuma.io" && (kind == "Dataplane" || kind == "MeshGateway")) {
    // Kuma proxies: the policies that select them in Kuma's order and the merged rules.
    std::ostringstream out;
    pg::report::writeKumaExplain(out, a, target, true, {});
    return out.str();
  }
  std::vector<pg::policy::Effective> effective =
      pg::policy::effectiveOn(a.policies, a.topology, a.store, *found.front(), section);
  return pg::report::explainJsonText({*found.front(), section, effective,
                                      a.linkerd.inboundOf(found.front()),
                                      a.kuma.dataplaneOf(*found.front()), &a});
}

// The lines of `before` and `after` that differ, `-` and `+`, with two lines of context and
// the line numbers of each hunk, as `diff -u` shows them. Snapshots are small: a plain
// longest-common-subsequence table is enough.
std::string lineDiff(const std::string& before, const std::string& after) {
  auto split = [](const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    return lines;
  };
  const std::vector<std::string> a = split(before), b = split(after);
  std::vector<std::vector<std::size_t>> common(a.size() + 1,
                                               std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = a.size(); i-- > 0;)
    for (std::size_t j = b.size(); j-- > 0;)
      common[i][j] =
          a[i] == b[j] ? common[i + 1][j + 1] + 1 : std::max(common[i + 1][j], common[i][j + 1]);
  struct Line {
    char mark;
    std::size_t at;  // line number in `before` for ' ' and '-', in `after` for '+'
    const std::string* text;
  };
  std::vector<Line> lines;
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (i < a.size() && j < b.size() && a[i] == b[j]) {
      lines.push_back({' ', ++i, &a[i - 1]});
      ++j;
    } else if (i < a.size() && (j == b.size() || common[i + 1][j] >= common[i][j + 1])) {
      lines.push_back({'-', ++i, &a[i - 1]});
    } else {
      lines.push_back({'+', ++j, &b[j - 1]});
    }
  }
  constexpr std::size_t kContext = 2;
  std::string out;
  std::size_t shownUpTo = 0;  // lines[0, shownUpTo) are printed or skipped for good
  for (std::size_t k = 0; k < lines.size(); ++k) {
    if (lines[k].mark == ' ') continue;
    std::size_t from = std::max(shownUpTo, k >= kContext ? k - kContext : 0);
    if (from > shownUpTo || shownUpTo == 0)
      out += "@@ line " + std::to_string(lines[from].at) + " @@\n";
    std::size_t to = k;
    // The hunk goes on while the next change is close enough to share its context.
    for (std::size_t next = k; next < lines.size() && next <= to + 2 * kContext; ++next)
      if (lines[next].mark != ' ') to = next;
    to = std::min(lines.size(), to + kContext + 1);
    for (std::size_t n = from; n < to; ++n)
      out += std::string(1, lines[n].mark) + *lines[n].text + "\n";
    shownUpTo = to;
    k = to - 1;
  }
  return out;
}

// Compares, or with `update` rewrites, the case's expected/snapshots/ folder.
void checkSnapshots(const pg::analysis::Analysis& a, const fs::path& folder, bool update,
                    CaseResult& r) {
  if (update) {
    pg::snapshot::update(a, folder);
  } else {
    std::map<std::string, std::string> rendered;
    for (pg::snapshot::Snapshot& s : pg::snapshot::render(a)) rendered[s.file] = std::move(s.text);
    for (const pg::snapshot::Drift& d : pg::snapshot::compare(a, folder)) {
      std::string golden = "expected/snapshots/" + d.file;
      switch (d.kind) {
        case pg::snapshot::DriftKind::Missing:
          r.snapshotFailures.push_back(golden + " is missing; the case renders:\n" +
                                       rendered[d.file]);
          break;
        case pg::snapshot::DriftKind::Orphaned:
          r.snapshotFailures.push_back(golden + " is extra: the case renders no such snapshot");
          break;
        case pg::snapshot::DriftKind::Changed:
          r.snapshotFailures.push_back(golden + " differs (- golden, + rendered):\n" +
                                       lineDiff(readAll(folder / d.file), rendered[d.file]));
          break;
      }
    }
  }
  for (auto it = fs::recursive_directory_iterator(folder); it != fs::recursive_directory_iterator();
       ++it)
    r.snapshotGoldens += it->is_regular_file() && it->path().extension() == ".yaml";
}

CaseResult runCase(const fs::path& caseDir, bool update) {
  pg::config::Config settings;
  fs::path configFile = caseDir / ".policygraph.yaml";
  if (fs::exists(configFile)) settings = pg::config::loadConfig(configFile, ".policygraph.yaml");
  settings.exclude.push_back("expected/**");
  pg::analysis::Inputs inputs;
  inputs.paths = {caseDir.string()};
  inputs.root = caseDir;
  inputs.jobs = 2;
  // Findings as `lint` computes them; status, explain and snapshots from the whole simulation
  // as `status` runs it.
  pg::analysis::Inputs lintInputs = inputs;
  lintInputs.policy.enforcementStatus = false;
  // Every unit of the case (a case with kustomizations or alternatives has several), as lint
  // analyses them; explain and snapshots read the first.
  const pg::analysis::Run lintRun = pg::analysis::analyzeRun(settings, lintInputs);
  const pg::analysis::Run statusRun = pg::analysis::analyzeRun(std::move(settings), inputs);
  auto unitsOf = [](const pg::analysis::Run& run) {
    std::vector<const pg::analysis::Analysis*> out;
    for (const pg::analysis::Analysis& u : run.units) out.push_back(&u);
    return out;
  };
  const std::vector<const pg::analysis::Analysis*> lintUnits = unitsOf(lintRun);
  const std::vector<const pg::analysis::Analysis*> statusUnits = unitsOf(statusRun);
  const pg::analysis::Analysis& lint = *lintUnits.front();
  const pg::analysis::Analysis& a = *statusUnits.front();
  pg::rules::RuleRun run = pg::rules::runRules(lintUnits);
  CaseResult r;
  auto fingerprints = [](const pg::rules::RuleRun& rr) {
    std::string out;
    for (const pg::model::Finding& f : rr.findings) out += f.ruleId + " " + f.fingerprint + "\n";
    return out;
  };
  if (std::string withStatus = fingerprints(pg::rules::runRules(statusUnits));
      withStatus != fingerprints(run))
    r.differentWithStatus = withStatus;
  r.expected = readExpectations(caseDir);
  for (const pg::model::Finding& f : run.findings) {
    r.actual.insert({f.location.path, f.location.start.line, f.ruleId});
    r.found.push_back(
        {{f.location.path, f.location.start.line, f.ruleId}, f.location.start.column, f.message});
    // A finding's lead says what is wrong, never only what it is about.
    const std::string lead = pg::report::splitMessage(f.message).lead;
    if (pg::report::namesOnlySubject(lead)) r.subjectOnlyLeads.push_back(f.ruleId + ": " + lead);
  }
  std::vector<pg::model::RuleInfo> catalogue = pg::rules::catalogue();
  std::ostringstream text;
  pg::report::ReportInput input{lint, run.findings, catalogue, run.suppressed, run.baselined};
  if (lintUnits.size() > 1) input.environments = lintUnits;
  pg::report::writeText(text, input, {false});
  r.text = text.str();
  std::ostringstream status;
  if (statusUnits.size() > 1)
    pg::report::writeStatusYaml(status, statusUnits);
  else
    pg::report::writeStatusYaml(status, a);
  r.status = status.str();
  fs::path explainDir = caseDir / "expected" / "explain";
  if (fs::is_directory(explainDir)) {
    for (const auto& entry : fs::directory_iterator(explainDir)) {
      std::string file = entry.path().filename().string();
      if (file.size() > 5 && file.ends_with(".json"))
        r.explains.emplace_back("explain/" + file, explainOf(a, file));
    }
    std::sort(r.explains.begin(), r.explains.end());
  }
  if (fs::path snapshots = caseDir / "expected" / "snapshots"; fs::is_directory(snapshots))
    checkSnapshots(a, snapshots, update, r);
  return r;
}

std::string describe(const std::multiset<Expectation>& set) {
  std::string out;
  for (const Expectation& e : set)
    out += "  " + e.path + ":" + std::to_string(e.line) + " " + e.rule + "\n";
  return out.empty() ? "  (none)\n" : out;
}

std::vector<fs::path> allCases() {
  std::vector<fs::path> cases;
  fs::path root = fs::path(PG_SOURCE_DIR) / "testdata" / "cases";
  for (const auto& family : fs::directory_iterator(root)) {
    if (!family.is_directory()) continue;
    for (const auto& c : fs::directory_iterator(family.path()))
      if (c.is_directory()) cases.push_back(c.path());
  }
  std::sort(cases.begin(), cases.end());
  return cases;
}

}  // namespace

// Whether PG_CASES (a comma-separated list) names the case `family/case`; unset: every case.
bool selected(const fs::path& caseDir) {
  const char* only = std::getenv("PG_CASES");
  if (!only) return true;
  const std::string name =
      caseDir.parent_path().filename().string() + "/" + caseDir.filename().string();
  std::istringstream list(only);
  for (std::string part; std::getline(list, part, ',');)
    if (!part.empty() && name.find(part) != std::string::npos) return true;
  return false;
}

TEST_CASE("every case yields exactly the findings it expects") {
  const bool update = std::getenv("PG_UPDATE_GOLDENS") != nullptr;
  std::vector<fs::path> cases = allCases();
  REQUIRE(!cases.empty());
  std::erase_if(cases, [](const fs::path& c) { return !selected(c); });
  REQUIRE_MESSAGE(!cases.empty(), "PG_CASES names no case");
  std::size_t goldens = 0;
  for (const fs::path& caseDir : cases) {
    const std::string name = caseDir.lexically_relative(PG_SOURCE_DIR).generic_string();
    CAPTURE(name);
    CaseResult r = runCase(caseDir, update);
    goldens += r.snapshotGoldens;
    for (const std::string& failure : r.snapshotFailures) FAIL_CHECK(name << ": " << failure);
    CHECK_MESSAGE(!r.differentWithStatus, name << ": the rules find otherwise when the analysis "
                                                  "has the enforcement status lint leaves out:\n"
                                               << r.differentWithStatus.value_or(""));
    std::multiset<Expectation> missing, unexpected;
    const std::multiset<Expectation>& expected = r.expected.places;
    std::set_difference(expected.begin(), expected.end(), r.actual.begin(), r.actual.end(),
                        std::inserter(missing, missing.end()));
    std::set_difference(r.actual.begin(), r.actual.end(), expected.begin(), expected.end(),
                        std::inserter(unexpected, unexpected.end()));
    for (const Pin& pin : r.expected.pins) {
      std::string there;  // what the findings at the pin's place say
      bool met = false;
      for (const Found& f : r.found) {
        if (f.at != pin.at) continue;
        met = met || ((pin.column == 0 || f.column == pin.column) &&
                      f.message.find(pin.text) != std::string::npos);
        there += "  column " + std::to_string(f.column) + ": " + f.message + "\n";
      }
      CHECK_MESSAGE(met, name << ": " << pin.at.path << ":" << pin.at.line << " " << pin.at.rule
                              << " pins column " << pin.column << " and \"" << pin.text
                              << "\"; the findings there:\n"
                              << (there.empty() ? "  (none)\n" : there));
    }
    for (const std::string& lead : r.subjectOnlyLeads)
      FAIL_CHECK(name << ": a finding's lead names only its subject: " << lead);
    const bool exact = missing.empty() && unexpected.empty();
    CHECK_MESSAGE(exact, name << ":\nexpected but not found:\n"
                              << describe(missing) << "found but not expected:\n"
                              << describe(unexpected) << "report:\n"
                              << r.text);
    std::vector<std::pair<std::string, const std::string*>> outputs = {{"lint.txt", &r.text},
                                                                       {"status.yaml", &r.status}};
    for (const auto& [file, text] : r.explains) outputs.emplace_back(file, &text);
    for (const auto& [file, actual] : outputs) {
      fs::path golden = caseDir / "expected" / file;
      if (!fs::exists(golden)) continue;
      ++goldens;
      if (update) {
        std::ofstream(golden, std::ios::binary) << *actual;
      } else {
        const bool same = readAll(golden) == *actual;
        CHECK_MESSAGE(same, name << ": output differs from expected/" << file << ":\n" << *actual);
      }
    }
  }
  MESSAGE("ran " << cases.size() << " cases, " << goldens << " goldens");
}

// Each rule has a failing case (a case folder named after the rule that expects it) and a
// passing one (a case folder named after the rule that does not), and one of its failing cases
// pins the text of its message.
TEST_CASE("every rule has a failing and a passing case, and pins a message") {
  std::vector<fs::path> cases = allCases();
  for (const pg::rules::Rule& rule : pg::rules::registry()) {
    const std::string id(rule.info.id);
    CAPTURE(id);
    bool failing = false, passing = false, pinned = false;
    for (const fs::path& caseDir : cases) {
      if (!caseDir.filename().string().starts_with(id + "-")) continue;
      Expected expected = readExpectations(caseDir);
      bool expects = std::any_of(expected.places.begin(), expected.places.end(),
                                 [&](const Expectation& e) { return e.rule == id; });
      (expects ? failing : passing) = true;
      pinned = pinned || std::any_of(expected.pins.begin(), expected.pins.end(), [&](const Pin& p) {
                 return p.at.rule == id && !p.text.empty();
               });
    }
    CHECK_MESSAGE(failing, id << " has no failing case (testdata/cases/*/" << id << "-*/)");
    CHECK_MESSAGE(passing, id << " has no passing case (testdata/cases/*/" << id << "-*/)");
    CHECK_MESSAGE(pinned,
                  id << ": no failing case pins a message (# expect: " << id << " \"text\")");
  }
}

// Every rule has its page, and every page its rule, named `<ID>-<name>.md`.
TEST_CASE("rule pages and rules pair up") {
  std::size_t count = 0;
  for (const pg::rules::Rule& rule : pg::rules::registry()) {
    CAPTURE(std::string(rule.info.id));
    CHECK_MESSAGE(!rule.info.markdown.empty(), "missing page rules/" << rule.info.family << "/"
                                                                     << rule.info.id << "-"
                                                                     << rule.info.name << ".md");
    if (!rule.info.markdown.empty())
      CHECK(rule.info.pagePath == "rules/" + std::string(rule.info.family) + "/" +
                                      std::string(rule.info.id) + "-" +
                                      std::string(rule.info.name) + ".md");
    ++count;
  }
  CHECK(count > 0);
  std::size_t pageCount = 0;
  const pg::rules::RulePage* pages = pg::rules::rulePages(pageCount);
  for (std::size_t i = 0; i < pageCount; ++i) {
    std::string_view path = pages[i].path;
    bool owned = std::any_of(pg::rules::registry().begin(), pg::rules::registry().end(),
                             [&](const pg::rules::Rule& r) { return r.info.pagePath == path; });
    CHECK_MESSAGE(owned, path << " belongs to no rule");
  }
}
