#include "cmd/policygraph/common.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "cmd/policygraph/cli.h"
#include "lib/config/config.h"
#include "lib/load/skip.h"
#include "lib/load/sources.h"
#include "lib/model/file.h"

namespace pg::cli {

namespace {

config::Config readConfig(const InputOptions& o, std::string& configFile) {
  if (o.noConfig) return {};
  std::optional<std::filesystem::path> file;
  if (!o.configPath.empty()) {
    if (!std::filesystem::is_regular_file(o.configPath))
      throw UsageError("no config file " + o.configPath);
    file = o.configPath;
  } else {
    std::string first = o.paths.empty() || o.paths.front() == "-" ? "." : o.paths.front();
    file = config::findConfig(first);
  }
  if (!file) return {};
  configFile = file->string();
  try {
    std::filesystem::path root = o.root.empty() ? std::filesystem::absolute(*file).parent_path()
                                                : std::filesystem::absolute(o.root);
    return config::loadConfig(*file, load::displayPath(*file, root.lexically_normal()));
  } catch (const config::ConfigError& e) {
    throw UsageError(e.what());
  }
}

}  // namespace

void addInputOptions(CLI::App& cmd, InputOptions& o) {
  cmd.add_option("PATH", o.paths, "Files, folders or - for standard input (default: .)");
  CLI::Option* config =
      cmd.add_option("--config", o.configPath,
                     "Config file (default: .policygraph.yaml found upward from the first PATH)");
  cmd.add_flag("--no-config", o.noConfig,
               "Read no config file, not even one found upward: the built-in defaults")
      ->excludes(config);
  cmd.add_option("--root", o.root,
                 "Folder that reported paths, the config's globs and the snapshot folder are "
                 "relative to (default: the config file's folder, else the enclosing git "
                 "repository). SARIF and GitHub annotations name files from the top of the git "
                 "repository holding it, as code scanning and pull requests read them");
  cmd.add_option("--controller-name", o.controllerName,
                 "Simulate only Gateways whose GatewayClass names this controller (default: all)");
  cmd.add_option("--jobs,-j", o.jobs, "Parallel jobs (default: all cores)")
      ->check(CLI::Range(1u, 1024u));
  cmd.add_option("--environment,-e", o.environment,
                 "The one entry of the config's environments: to analyse, or without them the "
                 "one unit of that name (policygraph units); default: each in turn (explain, "
                 "graph and access: the unit holding their object)");
}

namespace {

std::string joinPaths(const std::vector<std::string>& paths) {
  std::string out;
  for (const std::string& p : paths) out += (out.empty() ? "" : ", ") + p;
  return out;
}

}  // namespace

std::string environmentNames(const std::vector<config::Environment>& environments) {
  std::string out;
  for (const config::Environment& e : environments) out += (out.empty() ? "" : ", ") + e.name;
  return out;
}

namespace {

// The environments to analyse: none when PATHs are given or the config declares none (the
// units are then inferred, and --environment names one of them), else the one --environment
// picks, else all of them.
std::vector<config::Environment> chosenEnvironments(const InputOptions& o,
                                                    const config::Config& config) {
  if (config.environments.empty()) return {};
  if (!o.paths.empty()) {
    if (!o.environment.empty())
      throw UsageError("--environment " + o.environment +
                       " analyses the folders the config names: give it or PATHs, not both");
    return {};
  }
  if (o.environment.empty()) return config.environments;
  for (const config::Environment& e : config.environments)
    if (e.name == o.environment) return {e};
  throw UsageError("no environment " + o.environment + " in " + config.path +
                   "; its environments: " + environmentNames(config.environments));
}

std::string unitNames(const analysis::Run& run) {
  std::string out;
  for (const analysis::Analysis& a : run.units) out += (out.empty() ? "" : ", ") + a.environment;
  return out;
}

// The one inferred unit --environment names, alone in the run.
analysis::Run pickUnit(analysis::Run run, const std::string& name) {
  for (analysis::Analysis& a : run.units) {
    if (a.environment != name) continue;
    analysis::Run picked;
    picked.input = run.input;
    picked.units.push_back(std::move(a));
    return picked;
  }
  if (run.units.size() == 1 && run.units.front().environment.empty())
    throw UsageError("--environment " + name +
                     ": the input is one unit, nothing in it says it is applied as several "
                     "(see policygraph units), and no environments: are configured");
  throw UsageError("--environment " + name + " names no unit of the input; its units: " +
                   unitNames(run) + " (see policygraph units)");
}

}  // namespace

std::vector<const analysis::Analysis*> analyzeUnits(InputOptions& o) {
  std::string configFile;
  config::Config config = readConfig(o, configFile);
  const std::vector<config::Environment> environments = chosenEnvironments(o, config);
  if (o.paths.empty()) o.paths.push_back(".");
  if (!o.snapshotDir.empty()) {
    config.snapshots.dir = std::filesystem::absolute(o.snapshotDir).lexically_normal().string();
    config.snapshots.fromCommandLine = true;
  }
  config.snapshots.required = config.snapshots.required || o.snapshotsRequired;
  analysis::Inputs inputs;
  inputs.paths = o.paths;
  // A config file named with --config may live anywhere (a shared one): the root is then
  // found from the paths, as without a config file, so that paths stay relative.
  inputs.root = !o.root.empty()        ? std::filesystem::absolute(o.root).lexically_normal()
                : o.configPath.empty() ? analysis::findRoot(o.paths, configFile)
                                       : analysis::findRoot(o.paths, "");
  inputs.jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  inputs.topology.controllerName = o.controllerName;
  inputs.policy.enforcementStatus = o.enforcementStatus;
  if (std::find(o.paths.begin(), o.paths.end(), "-") != o.paths.end()) {
    // Bounded: past the size limit the rest is not read (IN107), whatever is piped in.
    model::ReadResult read = model::readStream(STDIN_FILENO, config.limits.maxFileBytes);
    if (read.status == model::ReadResult::Status::TooLarge)
      inputs.stdinTooLarge = true;
    else if (!read.ok())
      throw UsageError("cannot read standard input: " + read.error);
    inputs.stdinText = std::move(read.text);
  }
  const bool includes = !config.include.empty();
  analysis::Run run;
  try {
    run = analysis::analyzeRun(std::move(config), inputs,
                               {environments.empty() ? analysis::UnitChoice::Mode::Infer
                                                     : analysis::UnitChoice::Mode::Environments,
                                environments});
  } catch (const load::InputError& e) {
    throw UsageError(e.what());
  } catch (const config::ConfigError& e) {
    throw UsageError(e.what());
  }
  // Nothing read and nothing wrong with reading it: a run that checked nothing must not look
  // like a clean one. (An environment may be empty; the run as a whole may not.)
  if (run.input->files.empty() && run.input->problems.empty()) {
    const std::vector<load::SkippedFile>& skipped = run.input->skipped;
    std::string why = "no manifest to check in " + joinPaths(o.paths);
    if (!skipped.empty())
      why += ": " + std::to_string(skipped.size()) + " file(s) skipped, not manifests (" +
             load::skippedSummary(skipped) + ")";
    if (includes) why += "; the include: globs of " + configFile + " match no manifest";
    throw UsageError(why);
  }
  if (environments.empty() && !o.environment.empty()) run = pickUnit(std::move(run), o.environment);
  return keepUntilExit(std::move(run));
}

const analysis::Analysis& analyzeOneUnit(InputOptions& o, std::string_view command,
                                         const UnitHolds& holds) {
  if (o.paths.empty() && o.environment.empty()) {
    std::string configFile;
    config::Config config = readConfig(o, configFile);
    if (config.environments.size() > 1)
      throw UsageError(std::string(command) + " shows one environment: pick one with " +
                       "--environment NAME (" + environmentNames(config.environments) + " in " +
                       config.path + "), or give its folders as PATHs");
  }
  const std::vector<const analysis::Analysis*> units = analyzeUnits(o);
  if (units.size() == 1) return *units.front();
  // Inferred units, none picked: the one that holds what the command is about.
  std::vector<const analysis::Analysis*> holding;
  if (holds)
    for (const analysis::Analysis* a : units)
      if (holds(*a)) holding.push_back(a);
  std::string names;
  for (const analysis::Analysis* a : holding.empty() ? units : holding)
    names += (names.empty() ? "" : ", ") + a->environment;
  if (holding.empty())
    throw UsageError(std::string(command) + " shows one unit and the input has " +
                     std::to_string(units.size()) + (holds ? ", none of which holds it" : "") +
                     ": pick one with --environment NAME (" + names + "; see policygraph units)");
  if (holding.size() > 1)
    std::cerr << "policygraph: note: " << holding.size() << " units hold it (" << names
              << "); showing " << holding.front()->environment
              << ": pick another with --environment NAME\n";
  return *holding.front();
}

std::vector<const analysis::Analysis*> keepUntilExit(analysis::Run run) {
  // Each command analyses once (diff: twice) and exits right after writing: freeing the
  // analysis node by node would cost tens of milliseconds on a large repository for nothing.
  // It stays reachable from here, so leak checkers do not count it.
  static auto* kept = new std::vector<std::unique_ptr<analysis::Run>>();
  kept->push_back(std::make_unique<analysis::Run>(std::move(run)));
  std::vector<const analysis::Analysis*> out;
  for (const analysis::Analysis& a : kept->back()->units) out.push_back(&a);
  return out;
}

const analysis::Analysis& keepUntilExit(analysis::Analysis analysis) {
  analysis::Run run;
  run.input = analysis.input;
  run.units.push_back(std::move(analysis));
  return *keepUntilExit(std::move(run)).front();
}

void addOutputOptions(CLI::App& cmd, OutputOptions& o, const std::string& formatHelp) {
  o.formatOption = cmd.add_option("--format", o.formats, formatHelp + "; repeatable")
                       ->take_all()
                       ->allow_extra_args(false);
  o.outputOption =
      cmd.add_option("--output", o.outputs, "File for the --format before it; repeatable")
          ->take_all()
          ->allow_extra_args(false);
  cmd.add_option("--color", o.color, "auto, always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd.add_flag("--quiet,-q", o.quiet, "No text on standard output when every format has a file");
}

void writeOutputs(const CLI::App& cmd, const OutputOptions& o,
                  const std::vector<std::string>& formats,
                  const std::function<void(std::ostream&, const std::string&, bool)>& write) {
  // The pairs in command-line order.
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
    if (std::find(formats.begin(), formats.end(), s.format) == formats.end()) {
      std::string known;
      for (const std::string& k : formats) known += (known.empty() ? "" : ", ") + k;
      throw UsageError("unknown format " + s.format + " (" + known + ")");
    }
    toStdout += s.path.empty();
  }
  if (toStdout > 1)
    throw UsageError("only one --format can go to standard output; give the others an --output");
  if (toStdout == 0 && !o.quiet) specs.insert(specs.begin(), {"text", {}});

  for (const OutputSpec& spec : specs) {
    if (spec.path.empty()) {
      write(std::cout, spec.format, spec.format == "text" && colorWanted(o.color));
      std::cout.flush();
      continue;
    }
    std::ofstream file(spec.path, std::ios::binary | std::ios::trunc);
    if (!file) throw UsageError("cannot write " + spec.path);
    write(file, spec.format, false);
    if (!file.flush()) throw UsageError("cannot write " + spec.path);
  }
}

}  // namespace pg::cli
