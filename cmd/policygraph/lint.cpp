#include "cmd/policygraph/lint.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <set>

#include "cmd/policygraph/cli.h"
#include "cmd/policygraph/common.h"
#include "lib/report/report.h"
#include "rules/engine.h"

namespace pg::cli {

namespace {

const std::set<std::string> kFormats = {"text", "json", "sarif", "junit", "github"};

// `--format F --output FILE` pairs, in command-line order: an --output belongs to the --format
// before it; a format without one goes to standard output.
std::vector<OutputSpec> pairOutputs(const CLI::App& cmd, const ReportOptions& o) {
  std::vector<OutputSpec> specs;
  std::size_t f = 0, out = 0;
  for (const CLI::Option* opt : cmd.parse_order()) {
    if (opt == o.formatOption) {
      specs.push_back({o.formats.at(f++), {}});
    } else if (opt == o.outputOption) {
      if (specs.empty() || !specs.back().path.empty())
        throw UsageError("--output " + o.outputs.at(out) + " must follow the --format it writes");
      specs.back().path = o.outputs.at(out++);
    }
  }
  std::size_t toStdout = 0;
  for (const OutputSpec& s : specs) {
    if (!kFormats.count(s.format))
      throw UsageError("unknown format " + s.format + " (text, json, sarif, junit, github)");
    toStdout += s.path.empty();
  }
  if (toStdout > 1)
    throw UsageError("only one --format can go to standard output; give the others an --output");
  if (toStdout == 0 && !o.quiet) specs.insert(specs.begin(), {"text", {}});
  return specs;
}

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
                 bool color) {
  if (format == "text")
    report::writeText(out, input, {color});
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

int runReport(const CLI::App& cmd, const ReportOptions& o, const analysis::Analysis& result) {
  std::vector<OutputSpec> outputs = pairOutputs(cmd, o);
  std::optional<model::Severity> failOn;
  if (o.failOn != "none") {
    failOn = model::parseSeverity(o.failOn);
    if (!failOn) throw UsageError("--fail-on takes error, warning, note or none");
  }
  std::set<std::string> baseline;
  if (!o.baselinePath.empty()) baseline = readBaselineFile(o.baselinePath);
  rules::RuleRun run = rules::runRules(result, baseline);
  std::vector<model::RuleInfo> catalogue = rules::catalogue();
  report::ReportInput input{result, run.findings, catalogue, run.suppressed, run.baselined};

  for (const OutputSpec& spec : outputs) {
    if (spec.path.empty()) {
      writeReport(std::cout, spec.format, input, spec.format == "text" && colorWanted(o.color));
      std::cout.flush();
      continue;
    }
    std::ofstream file(spec.path, std::ios::binary | std::ios::trunc);
    if (!file) throw UsageError("cannot write " + spec.path);
    writeReport(file, spec.format, input, false);
    if (!file.flush()) throw UsageError("cannot write " + spec.path);
  }
  if (!failOn) return kClean;
  bool failed = std::any_of(run.findings.begin(), run.findings.end(),
                            [&](const model::Finding& f) { return f.severity >= *failOn; });
  return failed ? kFindings : kClean;
}

void addReportOptions(CLI::App& cmd, ReportOptions& o) {
  o.formatOption =
      cmd.add_option("--format", o.formats, "text, json, sarif, junit or github; repeatable")
          ->take_all()
          ->allow_extra_args(false);
  o.outputOption =
      cmd.add_option("--output", o.outputs, "File for the --format before it; repeatable")
          ->take_all()
          ->allow_extra_args(false);
  cmd.add_option("--fail-on", o.failOn, "error, warning, note or none (default: error)");
  cmd.add_option("--baseline", o.baselinePath,
                 "A JSON report whose findings are not reported again");
  cmd.add_option("--color", o.color, "auto, always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd.add_flag("--quiet,-q", o.quiet, "No text on standard output when every format has a file");
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
      [o, cmd, &exitCode] { exitCode = runReport(*cmd, o->report, analyzeInputs(o->inputs)); });
}

}  // namespace pg::cli
