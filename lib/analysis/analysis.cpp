#include "lib/analysis/analysis.h"

#include <algorithm>
#include <optional>

#include "lib/load/loader.h"
#include "lib/load/sources.h"

namespace pg::analysis {

namespace fs = std::filesystem;

namespace {

// The nearest folder at or above `start` (absolute) holding `.git`, a folder or a file.
std::optional<fs::path> gitTop(const fs::path& start) {
  std::error_code ec;
  for (fs::path dir = start;; dir = dir.parent_path()) {
    if (fs::exists(dir / ".git", ec)) return dir;
    if (!dir.has_parent_path() || dir.parent_path() == dir) return std::nullopt;
  }
}

// `folder` absolute and lexically normal, without the trailing separator lexically_normal
// leaves on "/repo/.", so that paths compare element by element.
fs::path absoluteFolder(const fs::path& folder) {
  std::error_code ec;
  fs::path normal = fs::absolute(folder, ec).lexically_normal();
  return normal.has_filename() ? normal : normal.parent_path();
}

}  // namespace

Analysis analyze(config::Config config, const Inputs& inputs, const RevisionInputs* revision) {
  Analysis a;
  a.root = inputs.root;
  a.repositoryRoot = inputs.repositoryRoot.empty() ? findRepositoryRoot(inputs.root)
                                                   : absoluteFolder(inputs.repositoryRoot);
  a.jobs = std::max(1u, inputs.jobs);
  a.environment = inputs.environment;
  std::vector<load::SourceEntry> sources =
      revision ? revision->revision.collect(inputs.paths, revision->root, config, a.problems)
               : load::collectSources(inputs.paths, inputs.root, config, a.problems);
  a.skipped = load::skipNonManifests(sources);
  load::LoadResult loaded =
      load::loadSources(sources, config.limits, {inputs.jobs, inputs.stdinText});
  a.files = std::move(loaded.files);
  if (!revision && !inputs.stdinText.empty())
    a.rendered = load::RenderedSources::read(a.files, inputs.root, config.limits);
  for (load::SkippedFile& s : loaded.skipped) a.skipped.push_back(std::move(s));
  // Walk problems come first in discovery order; file problems in file order.
  for (load::Problem& p : loaded.problems) a.problems.push_back(std::move(p));
  {
    schema::Registry registry;
    a.schema = schema::validateAll(loaded.resources, registry, inputs.jobs);
  }
  a.store = model::Store(config.defaultNamespace);
  a.store.build(std::move(loaded.resources), inputs.jobs);
  graph::TopologyOptions topologyOptions = inputs.topology;
  topologyOptions.jobs = inputs.jobs;
  for (const config::GatewayClass& c : config.gatewayClasses)
    topologyOptions.gatewayClasses.push_back({c.name, c.controllerName});
  topologyOptions.external = config.external;
  a.topology = graph::buildTopology(a.store, topologyOptions);
  a.kuma = graph::kuma::build(a.store, config.kumaSystemNamespace);
  policy::PolicyOptions policyOptions = inputs.policy;
  policyOptions.jobs = inputs.jobs;
  a.policies = policy::simulate(a.store, a.topology, config, policyOptions);
  a.linkerd = policy::linkerd::buildLinkerd(a.store, config.linkerd, inputs.jobs);
  a.config = std::move(config);
  return a;
}

fs::path findRoot(const std::vector<std::string>& paths, const std::string& configPath) {
  std::error_code ec;
  if (!configPath.empty()) return fs::absolute(configPath, ec).parent_path().lexically_normal();
  fs::path start = fs::current_path(ec);
  for (const std::string& p : paths) {
    if (p == "-") continue;
    start = fs::absolute(p, ec).lexically_normal();
    if (!fs::is_directory(start, ec)) start = start.parent_path();
    break;
  }
  if (std::optional<fs::path> top = gitTop(start)) return *top;
  // No repository: the current folder if the input is inside it (paths stay clickable),
  // else the input's own folder.
  fs::path cwd = fs::current_path(ec);
  fs::path rel = start.lexically_relative(cwd);
  return !rel.empty() && *rel.begin() != ".." ? cwd : start;
}

fs::path findRepositoryRoot(const fs::path& root) {
  const fs::path start = absoluteFolder(root);
  return gitTop(start).value_or(start);
}

}  // namespace pg::analysis
