#include "cmd/policygraph/common.h"

#include <algorithm>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "cmd/policygraph/cli.h"
#include "lib/config/config.h"
#include "lib/load/sources.h"

namespace pg::cli {

namespace {

config::Config readConfig(const InputOptions& o, std::string& configFile) {
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
  cmd.add_option("--config", o.configPath,
                 "Config file (default: .policygraph.yaml found upward from the first PATH)");
  cmd.add_option("--root", o.root,
                 "Repository root that reported paths are relative to (default: the config "
                 "file's folder, else the enclosing git repository)");
  cmd.add_option("--controller-name", o.controllerName,
                 "Simulate only Gateways whose GatewayClass names this controller (default: all)");
  cmd.add_option("--jobs,-j", o.jobs, "Parallel jobs (default: all cores)")
      ->check(CLI::Range(1u, 1024u));
}

const analysis::Analysis& analyzeInputs(InputOptions& o) {
  if (o.paths.empty()) o.paths.push_back(".");
  std::string configFile;
  config::Config config = readConfig(o, configFile);
  if (!o.snapshotDir.empty())
    config.snapshots.dir = std::filesystem::absolute(o.snapshotDir).lexically_normal().string();
  config.snapshots.required = config.snapshots.required || o.snapshotsRequired;
  analysis::Inputs inputs;
  inputs.paths = o.paths;
  inputs.root = o.root.empty() ? analysis::findRoot(o.paths, configFile)
                               : std::filesystem::absolute(o.root).lexically_normal();
  inputs.jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  inputs.topology.controllerName = o.controllerName;
  if (std::find(o.paths.begin(), o.paths.end(), "-") != o.paths.end())
    inputs.stdinText.assign(std::istreambuf_iterator<char>(std::cin), {});
  // Each command analyses once and exits right after writing: freeing the analysis node by
  // node would cost tens of milliseconds on a large repository for nothing. It stays
  // reachable from here, so leak checkers do not count it.
  static auto* kept = new std::vector<std::unique_ptr<analysis::Analysis>>();
  try {
    kept->push_back(
        std::make_unique<analysis::Analysis>(analysis::analyze(std::move(config), inputs)));
  } catch (const load::InputError& e) {
    throw UsageError(e.what());
  }
  return *kept->back();
}

}  // namespace pg::cli
