// JUnit XML, for CI systems that show test results (GitLab, Jenkins, Azure Pipelines): every
// check a rule makes on a subject is a test case, so a clean repository still shows what was
// checked.
#include <algorithm>
#include <cstdint>
#include <map>
#include <pugixml.hpp>
#include <set>
#include <string>
#include <vector>

#include "lib/model/encoding.h"
#include "lib/report/common.h"
#include "lib/report/report.h"

namespace pg::report {

namespace {

// XML 1.0 forbids malformed UTF-8 and control characters other than tab and line breaks, even
// escaped, and a consumer rejects the whole report for one of them. They come from file names
// and quoted input; U+FFFD marks where they were.
std::string xmlText(std::string_view text) {
  static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    std::uint32_t code = 0;
    const std::size_t length = model::utf8At(text, i, &code);
    const bool valid = length != 0 && (code >= 0x20 || code == 0x9 || code == 0xA || code == 0xD) &&
                       code != 0xFFFE && code != 0xFFFF;
    if (valid) {
      out.append(text.substr(i, length));
      i += length;
    } else {
      out.append(kReplacement);
      ++i;
    }
  }
  return out;
}

void setAttribute(pugi::xml_node node, const char* name, std::string_view value) {
  node.append_attribute(name).set_value(xmlText(value).c_str());
}

struct TestCase {
  std::string name;
  std::vector<const model::Finding*> findings;
  bool failed() const {
    return std::any_of(findings.begin(), findings.end(), [](const model::Finding* f) {
      return f->severity == model::Severity::Error;
    });
  }
};

// The subjects a rule checks, as its `subjects` field names them, each once: an object that
// is defined twice is one subject (its duplicate is a finding, not a second check).
std::vector<std::string> checkedSubjects(const model::RuleInfo& rule,
                                         const analysis::Analysis& analysis) {
  std::vector<std::string> subjects;
  std::set<std::string, std::less<>> seen;
  auto add = [&](std::string subject) {
    if (seen.insert(subject).second) subjects.push_back(std::move(subject));
  };
  if (rule.subjects == "file") {
    for (const auto& file : analysis.files) add(file->path);
  } else if (rule.subjects == "*") {
    for (const model::Resource& object : analysis.store.all()) add(object.display());
  } else {
    std::string_view kinds = rule.subjects;
    while (!kinds.empty()) {
      const auto comma = kinds.find(',');
      std::string_view kind = kinds.substr(0, comma);
      kinds.remove_prefix(comma == std::string_view::npos ? kinds.size() : comma + 1);
      while (kind.starts_with(' ')) kind.remove_prefix(1);
      while (kind.ends_with(' ')) kind.remove_suffix(1);
      if (kind.empty()) continue;
      for (const model::Resource* object : analysis.store.ofKind(kind)) add(object->display());
    }
  }
  return subjects;
}

// One test case per checked subject, holding the rule's findings about it. A finding about
// something the rule did not list (a symlink that was never read, the config file) gets a
// test case named after its path, after the others, so no finding is lost.
std::vector<TestCase> testCases(const model::RuleInfo& rule, const analysis::Analysis& analysis,
                                const std::vector<const model::Finding*>& findings) {
  std::vector<TestCase> cases;
  std::map<std::string, std::size_t, std::less<>> bySubject;
  for (std::string& subject : checkedSubjects(rule, analysis)) {
    bySubject.emplace(subject, cases.size());
    cases.push_back({std::move(subject), {}});
  }
  const bool aboutFiles = rule.subjects == "file";
  std::map<std::string, std::vector<const model::Finding*>> unlisted;
  for (const model::Finding* finding : findings) {
    const std::string* subject = aboutFiles                 ? &finding->location.path
                                 : finding->objects.empty() ? nullptr
                                                            : &finding->objects.front();
    auto listed = subject ? bySubject.find(*subject) : bySubject.end();
    if (listed != bySubject.end()) {
      cases[listed->second].findings.push_back(finding);
    } else {
      unlisted[finding->location.path].push_back(finding);
    }
  }
  for (auto& [path, found] : unlisted) cases.push_back({path, std::move(found)});
  return cases;
}

// Counts go into attributes written before the children, so they are filled in afterwards.
struct Counts {
  pugi::xml_attribute tests, failures;
  unsigned long long testCount = 0, failureCount = 0;

  explicit Counts(pugi::xml_node node)
      : tests(node.append_attribute("tests")), failures(node.append_attribute("failures")) {
    node.append_attribute("errors").set_value(0);
  }
  // A test case fails once however many errors it has, so failures never exceed tests.
  void add(const TestCase& testCase) {
    ++testCount;
    failureCount += testCase.failed();
  }
  void write() {
    tests.set_value(testCount);
    failures.set_value(failureCount);
  }
};

}  // namespace

void writeJunit(std::ostream& out, const ReportInput& input) {
  std::map<std::string_view, std::vector<const model::RuleInfo*>> rulesByFamily;
  for (const model::RuleInfo& rule : input.rules) rulesByFamily[rule.family].push_back(&rule);
  const auto& settings = input.analysis.config.rules;

  pugi::xml_document document;
  pugi::xml_node declaration = document.append_child(pugi::node_declaration);
  declaration.append_attribute("version").set_value("1.0");
  declaration.append_attribute("encoding").set_value("UTF-8");
  pugi::xml_node suites = document.append_child("testsuites");
  suites.append_attribute("name").set_value("policygraph");
  Counts total(suites);

  // With environments, each has its suites (`policygraph.<environment>.<family>`), checked
  // against its own objects and holding its own findings.
  for (const analysis::Analysis* analysis : detail::analysesOf(input)) {
    const std::string prefix =
        "policygraph." + (analysis->environment.empty() ? "" : analysis->environment + ".");
    std::map<std::string_view, std::vector<const model::Finding*>> findingsByRule;
    for (const model::Finding& finding : input.findings)
      if (finding.environment == analysis->environment)
        findingsByRule[finding.ruleId].push_back(&finding);
    for (const auto& [family, rules] : rulesByFamily) {
      pugi::xml_node suite = suites.append_child("testsuite");
      setAttribute(suite, "name", prefix + std::string(family));
      Counts counts(suite);
      for (const model::RuleInfo* rule : rules) {
        if (auto setting = settings.find(rule->id);
            setting != settings.end() && setting->second.off)
          continue;
        const std::string className = prefix + std::string(family) + "." + std::string(rule->id);
        static const std::vector<const model::Finding*> kNone;
        auto found = findingsByRule.find(rule->id);
        const auto& findings = found == findingsByRule.end() ? kNone : found->second;
        for (const TestCase& testCase : testCases(*rule, *analysis, findings)) {
          pugi::xml_node node = suite.append_child("testcase");
          setAttribute(node, "classname", className);
          setAttribute(node, "name", testCase.name);
          // Errors fail the check, as DESIGN.md says; warnings and notes are reported beside it
          // in <system-out>, so a JUnit viewer does not turn a passing run red.
          std::string advisories;
          for (const model::Finding* finding : testCase.findings) {
            std::string text = detail::position(finding->location) + ": " + finding->message +
                               detail::relatedLines(*finding);
            if (finding->severity != model::Severity::Error) {
              advisories += std::string(model::toString(finding->severity)) + ": " + text + "\n";
              continue;
            }
            pugi::xml_node failure = node.append_child("failure");
            setAttribute(failure, "message", finding->message);
            setAttribute(failure, "type", model::toString(finding->severity));
            failure.text().set(xmlText(text).c_str());
          }
          if (!advisories.empty())
            node.append_child("system-out").text().set(xmlText(advisories).c_str());
          counts.add(testCase);
          total.add(testCase);
        }
      }
      counts.write();
    }
  }
  total.write();
  document.save(out, "  ", pugi::format_indent, pugi::encoding_utf8);
}

}  // namespace pg::report
