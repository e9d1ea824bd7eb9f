// What every command that analyses a repository shares: the inputs, the config file, the
// repository root, the number of jobs.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "lib/analysis/analysis.h"

namespace pg::cli {

struct InputOptions {
  std::vector<std::string> paths;
  std::string configPath;
  std::string root;
  std::string controllerName;
  unsigned jobs = 0;
  // `snapshot`: the folder (--dir, relative to the current folder) and whether lint's
  // snapshot rules must run even when the folder does not exist (--check).
  std::string snapshotDir;
  bool snapshotsRequired = false;
};

void addInputOptions(CLI::App& cmd, InputOptions& options);

// Reads the config file and runs the analysis, which lives until the process exits; usage
// errors become UsageError.
const analysis::Analysis& analyzeInputs(InputOptions& options);

}  // namespace pg::cli
