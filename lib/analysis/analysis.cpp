#include "lib/analysis/analysis.h"

#include <algorithm>
#include <optional>

#include "lib/load/loader.h"
#include "lib/load/sources.h"
#include "lib/schema/defaults.h"

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

// The rule that reports a violation of this kind (rules/input/IN12x-*.md).
std::string_view ruleOf(schema::Code code) {
  switch (code) {
    case schema::Code::UnknownField:
      return "IN120";
    case schema::Code::InvalidValue:
      return "IN121";
    case schema::Code::Required:
      return "IN122";
    case schema::Code::VersionNotServed:
      return "IN123";
    case schema::Code::CelRule:
      return "IN124";
    case schema::Code::DeprecatedVersion:
      return "IN125";
  }
  return "IN12x";
}

// Per object, why the API server would refuse it ("" when it would not): its first
// violation, which the rule named reports at that place.
std::vector<std::string> refusalsOf(const schema::Result& result, std::size_t objects) {
  std::vector<std::string> out(objects);
  for (const schema::Violation& v : result.violations) {
    if (v.object >= objects || !result.refused[v.object] || !out[v.object].empty() ||
        v.code == schema::Code::DeprecatedVersion)
      continue;
    out[v.object] = "it fails schema validation (see " + std::string(ruleOf(v.code)) + " at " +
                    v.location.path + ":" + std::to_string(v.location.start.line) + ":" +
                    std::to_string(v.location.start.column) + ")";
  }
  return out;
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
  load::LoadResult loaded = load::loadSources(
      sources, config.limits, {inputs.jobs, inputs.stdinText, inputs.stdinTooLarge});
  a.files = std::move(loaded.files);
  if (!revision && !inputs.stdinText.empty())
    a.rendered = load::RenderedSources::read(a.files, inputs.root, config.limits);
  for (load::SkippedFile& s : loaded.skipped) a.skipped.push_back(std::move(s));
  // Walk problems come first in discovery order; file problems in file order.
  for (load::Problem& p : loaded.problems) a.problems.push_back(std::move(p));
  {
    schema::Registry registry;
    // Configured schemas replace the built-in ones; CRDs in the input replace both.
    for (const config::SchemaFile& f : config.schemas)
      for (std::size_t d = 0; d < f.tree->documents().size(); ++d)
        if (!f.tree->root(d).isNull())
          registry.add(f.tree->root(d), "schemas: " + f.path + " (" + f.where.path + ")");
    // What the API server would store: the schema's defaults, found by validation's walk,
    // filled in once before any later stage reads the objects (refused objects are not
    // stored at all, and get none).
    std::vector<std::vector<schema::DefaultEntry>> defaults;
    a.schema = schema::validateAll(loaded.resources, registry, inputs.jobs, defaults);
    schema::applyAllDefaults(a.files, loaded.resources, defaults, inputs.jobs);
  }
  a.store = model::Store(config.defaultNamespace);
  std::vector<std::string> refusals = refusalsOf(a.schema, loaded.resources.size());
  a.store.build(std::move(loaded.resources), inputs.jobs, std::move(refusals));
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
