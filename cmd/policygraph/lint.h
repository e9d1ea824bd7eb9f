#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cmd/policygraph/common.h"
#include "lib/analysis/analysis.h"

namespace pg::cli {

// What a command that reports findings takes: lint's outputs (`--format F --output FILE`
// pairs, --color, --quiet), --fail-on and --baseline. `lint` and `snapshot --check` share them.
struct ReportOptions : OutputOptions {
  std::string failOn = "error";
  std::string baselinePath;
  bool summary = false;  // --summary: the text report as a table per rule
  bool verbose = false;  // --verbose: each finding's detail below its lead
};

void addReportOptions(CLI::App& cmd, ReportOptions& options);

// Runs the rules on each analysis (one per environment, or one), writes every requested
// format over all their findings and returns the exit status --fail-on gives.
int runReport(const CLI::App& cmd, const ReportOptions& options,
              const std::vector<const analysis::Analysis*>& analyses);

// Adds `policygraph lint` to the app; its callback stores the exit status in `exitCode`.
void addLintCommand(CLI::App& app, int& exitCode);

}  // namespace pg::cli
