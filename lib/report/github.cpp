// GitHub Actions workflow commands: a job that prints them gets one annotation per finding on
// the pull request's diff. Nothing else is printed, so the step log is only annotations.
#include <map>
#include <string>

#include "lib/report/common.h"
#include "lib/report/report.h"

namespace pg::report {

namespace {

// As @actions/core's escapeData and escapeProperty: a raw line break would end the command, so
// line breaks and '%' are percent-encoded, and in a property ':' and ',' too, which would
// otherwise end it early.
std::string escape(std::string_view text, bool property) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '%':
        out += "%25";
        break;
      case '\r':
        out += "%0D";
        break;
      case '\n':
        out += "%0A";
        break;
      case ':':
        out += property ? "%3A" : ":";
        break;
      case ',':
        out += property ? "%2C" : ",";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string_view command(model::Severity severity) {
  switch (severity) {
    case model::Severity::Error:
      return "error";
    case model::Severity::Warning:
      return "warning";
    case model::Severity::Note:
      return "notice";
  }
  return "error";
}

// GitHub takes `col`/`endColumn` only on a one-line span. An end at the first column of a
// later line (libyaml's mark after a block value) ends the span on the line before it. GitHub
// reads `file` from the top of the repository.
void writePosition(std::ostream& out, const model::Location& at,
                   const detail::RepositoryPaths& paths) {
  out << "file=" << escape(paths(at.path), true);
  const detail::Span span = detail::reportSpan(at);
  if (span.start.line == 0) return;
  out << ",line=" << span.start.line;
  if (span.end.line == span.start.line) {
    out << ",col=" << span.start.column << ",endColumn=" << span.end.column;
    return;
  }
  const bool endsAtLineStart = span.end.column == 1;
  out << ",endLine=" << span.end.line - (endsAtLineStart ? 1 : 0);
}

}  // namespace

void writeGithub(std::ostream& out, const ReportInput& input) {
  const std::map<std::string_view, std::size_t> ruleIndex = detail::indexRules(input.rules);
  const detail::RepositoryPaths paths(input.analysis);
  for (const model::Finding& finding : input.findings) {
    out << "::" << command(finding.severity) << ' ';
    // An annotation on standard input could point at no file in the repository.
    if (!detail::isStandardInput(finding.location.path)) {
      writePosition(out, finding.location, paths);
      out << ',';
    }
    std::string title = finding.ruleId;
    if (auto rule = ruleIndex.find(finding.ruleId); rule != ruleIndex.end())
      title += " " + std::string(input.rules[rule->second].name);
    if (!finding.environment.empty()) title += " (" + finding.environment + ")";
    out << "title=" << escape(title, true)
        << "::" << escape(finding.message + detail::relatedLines(finding, &paths), false) << '\n';
  }
}

}  // namespace pg::report
