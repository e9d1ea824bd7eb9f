#include "cmd/policygraph/lint.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <set>

#include "cmd/policygraph/cli.h"
#include "cmd/policygraph/common.h"
#include "lib/report/message.h"
#include "lib/report/report.h"
#include "rules/engine.h"

namespace pg::cli {

namespace {

std::set<std::string> readBaselineFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot read baseline " + path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    return report::readBaseline(text);
  } catch (const std::exception& e) {
    throw UsageError("baseline " + path + " is not a policygraph JSON report: " + e.what());
  }
}

void writeReport(std::ostream& out, const std::string& format, const report::ReportInput& input,
                 bool color, const ReportOptions& options) {
  if (format == "text" && options.verbose)
    report::writeTextVerbose(out, input, {color, options.summary});
  else if (format == "text")
    report::writeText(out, input, {color, options.summary});
  else if (format == "json")
    report::writeJson(out, input);
  else if (format == "sarif")
    report::writeSarif(out, input);
  else if (format == "junit")
    report::writeJunit(out, input);
  else if (format == "github")
    report::writeGithub(out, input);
}

}  // namespace

int runReport(const CLI::App& cmd, const ReportOptions& o,
              const std::vector<const analysis::Analysis*>& analyses) {
  std::optional<model::Severity> failOn;
  if (o.failOn != "none") {
    failOn = model::parseSeverity(o.failOn);
    if (!failOn) throw UsageError("--fail-on takes error, warning, note or none");
  }
  std::set<std::string> baseline;
  if (!o.baselinePath.empty()) baseline = readBaselineFile(o.baselinePath);
  // Each environment's findings carry its name; together they are one report.
  rules::RuleRun run = rules::runRules(analyses, baseline);
  std::vector<model::RuleInfo> catalogue = rules::catalogue();
  report::ReportInput input{*analyses.front(), run.findings, catalogue, run.suppressed,
                            run.baselined};
  if (!analyses.front()->environment.empty()) input.environments = analyses;
  writeOutputs(cmd, o, {"text", "json", "sarif", "junit", "github"},
               [&](std::ostream& out, const std::string& format, bool color) {
                 writeReport(out, format, input, color, o);
               });
  if (!failOn) return kClean;
  bool failed = std::any_of(run.findings.begin(), run.findings.end(),
                            [&](const model::Finding& f) { return f.severity >= *failOn; });
  return failed ? kFindings : kClean;
}

void addReportOptions(CLI::App& cmd, ReportOptions& o) {
  addOutputOptions(cmd, o, "text, json, sarif, junit or github");
  cmd.add_option("--fail-on", o.failOn, "error, warning, note or none (default: error)");
  cmd.add_option("--baseline", o.baselinePath,
                 "A JSON report whose findings are not reported again");
  cmd.add_flag("--summary", o.summary,
               "Text: one line per rule (severity, count, name) instead of one per finding");
  cmd.add_flag("--verbose,-v", o.verbose,
               "Text: below each finding's one-sentence lead, why and what to do");
}

void addLintCommand(CLI::App& app, int& exitCode) {
  struct LintOptions {
    InputOptions inputs;
    ReportOptions report;
  };
  auto o = std::make_shared<LintOptions>();
  CLI::App* cmd = app.add_subcommand("lint", "Report findings; the exit status follows --fail-on");
  addInputOptions(*cmd, o->inputs);
  addReportOptions(*cmd, o->report);
  cmd->callback(
      [o, cmd, &exitCode] { exitCode = runReport(*cmd, o->report, analyzeUnits(o->inputs)); });
}

}  // namespace pg::cli
