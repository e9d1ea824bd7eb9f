// What every command that analyses a repository shares: the inputs, the config file, the
// root, the number of jobs.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "lib/analysis/analysis.h"

namespace pg::cli {

struct InputOptions {
  std::vector<std::string> paths;
  std::string configPath;
  bool noConfig = false;  // --no-config: no config file, even one found upward
  std::string root;
  std::string controllerName;
  unsigned jobs = 0;
  // --environment: the one entry of the config's `environments:` to analyse, or without
  // them the one inferred unit of that name; empty: all of them (lint, status, snapshot), or
  // for a command that shows one graph the unit that holds its object.
  std::string environment;
  // `snapshot`: the folder (--dir, relative to the current folder) and whether lint's
  // snapshot rules must run even when the folder does not exist (--check).
  std::string snapshotDir;
  bool snapshotsRequired = false;
  // Whether the command shows the status conditions only an enforcement simulation over
  // every route gives (policy::PolicyOptions::enforcementStatus): `status` does; the rules,
  // snapshots, explain and graph read none of them. (`diff` analyses its sides itself, with
  // them.)
  bool enforcementStatus = false;
};

void addInputOptions(CLI::App& cmd, InputOptions& options);

// `--format F --output FILE` pairs (repeatable; an --output belongs to the --format before
// it, a format without one goes to standard output), --color and --quiet.
struct OutputOptions {
  std::vector<std::string> formats;
  std::vector<std::string> outputs;
  std::string color = "auto";
  bool quiet = false;
  CLI::Option* formatOption = nullptr;
  CLI::Option* outputOption = nullptr;
};

void addOutputOptions(CLI::App& cmd, OutputOptions& options, const std::string& formatHelp);

// Writes the output of every pair: `write(stream, format, color)` renders one format. Text
// goes to standard output when every format has a file, unless --quiet. Throws UsageError
// for an unknown format, two formats on standard output, or a file that cannot be written.
void writeOutputs(const CLI::App& cmd, const OutputOptions& options,
                  const std::vector<std::string>& formats,
                  const std::function<void(std::ostream&, const std::string&, bool)>& write);

// The run's units, each analysed (analysis::analyzeRun): with `environments:` in the config
// and no PATH on the command line, one per environment (its paths and the shared ones, in
// config order), or the one --environment picks; else the units of the input. --environment
// with PATHs, without `environments:`, or naming none of them is a UsageError, as is a run
// that read nothing.
std::vector<const analysis::Analysis*> analyzeUnits(InputOptions& options);

// Whether a unit holds what a command is about (explain's REF, access's destination).
using UnitHolds = std::function<bool(const analysis::Analysis&)>;

// For a command that shows one graph (explain, graph, access): analyzeUnits, except that with
// `environments:` in the config, no PATH and no --environment it is a UsageError that lists the
// environments' names (`command` names the command in it). With several inferred units and none
// picked, the first unit that `holds` what the command is about (a note on standard error
// names the others that do), else a UsageError listing the units.
const analysis::Analysis& analyzeOneUnit(InputOptions& options, std::string_view command,
                                         const UnitHolds& holds = {});

// The names of `environments`, comma-separated, for messages.
std::string environmentNames(const std::vector<config::Environment>& environments);

// Keeps a run (or one analysis) alive until the process exits.
std::vector<const analysis::Analysis*> keepUntilExit(analysis::Run run);
const analysis::Analysis& keepUntilExit(analysis::Analysis analysis);

}  // namespace pg::cli
