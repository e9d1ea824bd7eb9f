#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "lib/report/common.h"
#include "lib/report/message.h"
#include "lib/report/report.h"
#include "lib/report/unanalysed.h"

namespace pg::report {

namespace {

struct Palette {
  std::string_view bold, red, yellow, cyan, dim, reset;
};

constexpr Palette kColor{"\033[1m", "\033[1;31m", "\033[1;33m", "\033[1;36m", "\033[2m", "\033[0m"};
constexpr Palette kPlain{"", "", "", "", "", ""};

std::string_view severityColor(const Palette& p, model::Severity s) {
  switch (s) {
    case model::Severity::Error:
      return p.red;
    case model::Severity::Warning:
      return p.yellow;
    case model::Severity::Note:
      return p.cyan;
  }
  return p.reset;
}

// The finding's lead on its line, with `verbose` its detail indented below, then its related
// locations.
void writeFinding(std::ostream& out, const model::Finding& f, bool color, std::string_view indent,
                  bool verbose) {
  const Palette& p = color ? kColor : kPlain;
  const MessageParts message = splitMessage(f.message);
  // Everything but the colours is repository text: escaped, so that no file or object name
  // drives the terminal or splits a finding.
  out << indent << p.bold << detail::printable(detail::position(f.location)) << ": " << p.reset
      << severityColor(p, f.severity) << model::toString(f.severity) << ':' << p.reset << ' '
      << p.bold << (f.environment.empty() ? "" : "[" + detail::printable(f.environment) + "] ")
      << detail::printable(message.lead) << p.reset << " [" << f.ruleId << ']' << '\n';
  if (verbose && !message.detail.empty())
    out << indent << "  " << detail::printable(message.detail) << '\n';
  for (const model::RelatedLocation& r : f.related)
    out << indent << "  " << p.dim << detail::printable(detail::position(r.location))
        << ": note: " << detail::printable(r.message) << p.reset << '\n';
}

}  // namespace

namespace detail {

void writeFindingText(std::ostream& out, const model::Finding& f, bool color,
                      std::string_view indent) {
  writeFinding(out, f, color, indent, false);
}

}  // namespace detail

namespace {

// One row per rule with findings, most findings first (then by ID): ID, severity, count, name
// and summary, in aligned columns.
void writeRuleSummary(std::ostream& out, const ReportInput& input, const Palette& p) {
  struct Row {
    std::string_view id;
    model::Severity severity;
    std::size_t count = 0;
  };
  std::vector<Row> rows;
  for (const model::Finding& f : input.findings) {
    auto it =
        std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.id == f.ruleId; });
    if (it == rows.end()) it = rows.insert(rows.end(), {f.ruleId, f.severity, 0});
    it->severity = std::max(it->severity, f.severity);
    ++it->count;
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return a.count != b.count ? a.count > b.count : a.id < b.id;
  });
  std::size_t countWidth = 5;
  for (const Row& r : rows) countWidth = std::max(countWidth, std::to_string(r.count).size());
  auto pad = [](std::string text, std::size_t width) {
    if (text.size() < width) text.append(width - text.size(), ' ');
    return text;
  };
  out << p.bold << pad("rule", 7) << pad("severity", 9) << pad("count", countWidth + 2) << "name"
      << p.reset << '\n';
  for (const Row& r : rows) {
    const model::RuleInfo* info = nullptr;
    for (const model::RuleInfo& rule : input.rules)
      if (rule.id == r.id) info = &rule;
    std::string count = std::to_string(r.count);
    out << pad(std::string(r.id), 7) << severityColor(p, r.severity)
        << pad(std::string(model::toString(r.severity)), 9) << p.reset
        << std::string(countWidth - count.size(), ' ') << count << "  "
        << (info ? std::string(info->name) + ": " + std::string(info->summary) : std::string())
        << '\n';
  }
}

}  // namespace

namespace {

void writeTextReport(std::ostream& out, const ReportInput& input, const TextOptions& options,
                     bool verbose) {
  const Palette& p = options.color ? kColor : kPlain;
  std::size_t counts[3] = {0, 0, 0};
  for (const model::Finding& f : input.findings) {
    ++counts[static_cast<int>(f.severity)];
    if (!options.summary) writeFinding(out, f, options.color, {}, verbose);
  }
  if (options.summary && !input.findings.empty()) writeRuleSummary(out, input, p);
  std::size_t objects = 0;
  std::set<const model::SourceFile*> fileSet;
  std::vector<load::SkippedFile> skipped;
  std::set<std::string_view> skippedPaths;
  for (const analysis::Analysis* a : detail::analysesOf(input)) {
    // A file several units read is one file.
    for (const model::SourceFile* f : a->files) fileSet.insert(f);
    objects += a->store.size();
    // A folder shared by several environments is skipped in each: count its files once.
    for (const load::SkippedFile& f : a->skipped)
      if (skippedPaths.insert(f.path).second) skipped.push_back(f);
  }
  std::string where = "in " + detail::plural(fileSet.size(), "file") + " (" +
                      detail::plural(objects, "object") + ")";
  // Units the config declares are environments; inferred ones are units.
  if (!input.environments.empty())
    where +=
        " in " + detail::plural(input.environments.size(),
                                input.environments.front()->unitKind == units::UnitKind::Environment
                                    ? "environment"
                                    : "unit");
  if (input.findings.empty()) {
    out << "no findings " << where;
  } else {
    out << severityColor(p, model::Severity::Error) << detail::plural(counts[2], "error") << p.reset
        << ", " << severityColor(p, model::Severity::Warning)
        << detail::plural(counts[1], "warning") << p.reset << ", "
        << detail::plural(counts[0], "note") << ' ' << where;
  }
  if (!skipped.empty())
    out << "; " << detail::plural(skipped.size(), "file") << " skipped, not manifests ("
        << load::skippedSummary(skipped) << ")";
  // Objects of kinds nothing reads: "no findings" must not read as "all checked".
  if (std::vector<UnanalysedKind> unanalysed = unanalysedKinds(detail::analysesOf(input));
      !unanalysed.empty())
    out << "; not analysed: " << unanalysedSummary(unanalysed);
  if (input.suppressed) out << "; " << input.suppressed << " suppressed";
  if (input.baselined) out << "; " << input.baselined << " in the baseline";
  out << '\n';
}

}  // namespace

void writeText(std::ostream& out, const ReportInput& input, const TextOptions& options) {
  writeTextReport(out, input, options, false);
}

void writeTextVerbose(std::ostream& out, const ReportInput& input, const TextOptions& options) {
  writeTextReport(out, input, options, true);
}

std::string_view toolVersion() {
  return PG_VERSION;
}

std::string_view informationUri() {
  return PG_INFORMATION_URI;
}

std::string ruleHelpUri(const model::RuleInfo& rule) {
  std::string uri(informationUri());
  if (!rule.pagePath.empty()) uri += "/blob/main/" + std::string(rule.pagePath);
  return uri;
}

}  // namespace pg::report
