#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "lib/analysis/analysis.h"

namespace pg::cli {

// What a command that reports findings takes: `--format F --output FILE` pairs, --fail-on,
// --baseline, --color, --quiet. `lint` and `snapshot --check` share them.
struct ReportOptions {
  std::vector<std::string> formats;
  std::vector<std::string> outputs;
  std::string failOn = "error";
  std::string baselinePath;
  std::string color = "auto";
  bool quiet = false;
  CLI::Option* formatOption = nullptr;
  CLI::Option* outputOption = nullptr;
};

void addReportOptions(CLI::App& cmd, ReportOptions& options);

// Runs the rules on `analysis`, writes every requested format and returns the exit status
// --fail-on gives.
int runReport(const CLI::App& cmd, const ReportOptions& options,
              const analysis::Analysis& analysis);

// Adds `policygraph lint` to the app; its callback stores the exit status in `exitCode`.
void addLintCommand(CLI::App& app, int& exitCode);

}  // namespace pg::cli
