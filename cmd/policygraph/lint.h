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
};

void addReportOptions(CLI::App& cmd, ReportOptions& options);

// Runs the rules on `analysis`, writes every requested format and returns the exit status
// --fail-on gives.
int runReport(const CLI::App& cmd, const ReportOptions& options,
              const analysis::Analysis& analysis);

// Adds `policygraph lint` to the app; its callback stores the exit status in `exitCode`.
void addLintCommand(CLI::App& app, int& exitCode);

}  // namespace pg::cli
