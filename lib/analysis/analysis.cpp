#include "lib/analysis/analysis.h"

#include <algorithm>
#include <map>
#include <optional>

#include "lib/load/loader.h"
#include "lib/load/repository.h"
#include "lib/load/sources.h"
#include "lib/model/placeholder.h"
#include "lib/schema/defaults.h"
#include "lib/units/infer.h"

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

// The root's path from the top of its repository ("" at the top), as Flux and Argo CD name
// paths.
std::string rootInRepository(const fs::path& root, const fs::path& repositoryRoot) {
  const fs::path rel = absoluteFolder(root).lexically_relative(repositoryRoot);
  if (rel.empty() || rel == "." || *rel.begin() == "..") return {};
  return rel.generic_string();
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
    case schema::Code::SeedField:
      return "IN126";
  }
  return "IN12x";
}

// Per object, why the API server would refuse it ("" when it would not): its first
// violation, which the rule named reports at that place. An object refused only for values on
// placeholder lines is not refused: what is applied there is unknown.
std::vector<std::string> refusalsOf(schema::Result& result, std::size_t objects,
                                    const std::vector<const model::SourceFile*>& files,
                                    const units::ResolvedLines& resolved) {
  std::vector<bool> known(objects, false);  // refused for a value that is not a placeholder
  bool anyPlaceholder = false;
  PlaceholderLines placeholders(files, resolved);
  for (const schema::Violation& v : result.violations) {
    if (v.object >= objects || !result.refused[v.object] ||
        v.code == schema::Code::DeprecatedVersion || v.code == schema::Code::SeedField ||
        known[v.object])
      continue;
    if (!placeholders.at(v.location.path, v.location.start.line).empty())
      anyPlaceholder = true;
    else
      known[v.object] = true;
  }
  if (anyPlaceholder)
    for (std::size_t i = 0; i < objects && i < result.refused.size(); ++i)
      if (result.refused[i] && !known[i]) result.refused[i] = false;
  std::vector<std::string> out(objects);
  for (const schema::Violation& v : result.violations) {
    if (v.object >= objects || !result.refused[v.object] || !out[v.object].empty() ||
        v.code == schema::Code::DeprecatedVersion || v.code == schema::Code::SeedField)
      continue;
    out[v.object] = "it fails schema validation (see " + std::string(ruleOf(v.code)) + " at " +
                    v.location.path + ":" + std::to_string(v.location.start.line) + ":" +
                    std::to_string(v.location.start.column) + ")";
  }
  return out;
}

}  // namespace

namespace {

// Every stage after the units, on one unit's objects.
// The CustomResourceDefinitions of the whole input: a unit's objects are validated against
// them (and scoped by them) even where the unit does not include them, as CRDs are installed
// once per cluster, often by another unit, a chart or the repository's CRD folder.
std::vector<const model::Resource*> crdsOf(const std::vector<model::Resource>& resources) {
  std::vector<const model::Resource*> out;
  for (const model::Resource& r : resources)
    if (r.group == "apiextensions.k8s.io" && r.kind == "CustomResourceDefinition")
      out.push_back(&r);
  return out;
}

Analysis analyzeUnit(const config::Config& config, const Inputs& inputs,
                     const std::shared_ptr<const Input>& input, units::Unit& unit,
                     const fs::path& repositoryRoot,
                     const std::vector<const model::Resource*>& inputCrds,
                     const std::shared_ptr<schema::CompiledCrds>& compiled,
                     schema::SharedValidations* sharedValidations) {
  Analysis a;
  a.config = config;
  a.root = inputs.root;
  a.repositoryRoot = repositoryRoot;
  a.jobs = std::max(1u, inputs.jobs);
  a.input = input;
  a.environment = unit.name;
  a.unitKind = unit.kind;
  a.unitWhy = unit.why;
  a.resolvedLines = std::move(unit.resolvedLines);
  a.files = unit.files;
  a.problems = std::move(unit.problems);
  a.skipped = input->skipped;
  {
    schema::Registry registry(schemaChannel(config));
    registry.share(compiled);  // each CRD compiled once for all the units
    // Configured schemas replace the built-in ones; CRDs in the input replace both.
    for (const config::SchemaFile& f : config.schemas)
      for (std::size_t d = 0; d < f.tree->documents().size(); ++d)
        if (!f.tree->root(d).isNull())
          registry.add(f.tree->root(d), "schemas: " + f.path + " (" + f.where.path + ")");
    // The input's CRDs outside the unit; the unit's own replace them (validateAll adds them).
    for (const model::Resource* crd : inputCrds)
      registry.add(crd->node, "CustomResourceDefinition " + std::string(crd->name) + " (" +
                                  (crd->file ? crd->file->path : std::string()) + ")");
    // What the API server would store: the schema's defaults, found by validation's walk,
    // filled in once before any later stage reads the objects (refused objects are not
    // stored at all, and get none). A tree several units share gets them from the first
    // unit; the others find them there.
    std::vector<std::vector<schema::DefaultEntry>> defaults;
    a.schema =
        schema::validateAll(unit.resources, registry, inputs.jobs, defaults, sharedValidations);
    schema::applyAllDefaults(unit.resources, defaults, inputs.jobs);
  }
  a.store = model::Store(config.defaultNamespace);
  for (const model::Resource* crd : inputCrds)
    if (crd->spec().get("scope").str() == "Cluster")
      a.store.addClusterScopedKind(std::string(crd->spec().get("group").str()),
                                   std::string(crd->spec().get("names").get("kind").str()));
  std::vector<std::string> refusals =
      refusalsOf(a.schema, unit.resources.size(), a.files, a.resolvedLines);
  a.store.build(std::move(unit.resources), inputs.jobs, std::move(refusals));
  graph::TopologyOptions topologyOptions = inputs.topology;
  topologyOptions.jobs = inputs.jobs;
  for (const config::GatewayClass& c : config.gatewayClasses)
    topologyOptions.gatewayClasses.push_back({c.name, c.controllerName});
  topologyOptions.external = config.external;
  topologyOptions.linkerdDeclared = config.linkerd.declared;
  a.topology = graph::buildTopology(a.store, topologyOptions);
  a.kuma = graph::kuma::build(a.store, config.kumaSystemNamespace);
  policy::PolicyOptions policyOptions = inputs.policy;
  policyOptions.jobs = inputs.jobs;
  policyOptions.schemaChannel = schemaChannel(config);
  a.policies = policy::simulate(a.store, a.topology, config, policyOptions);
  a.linkerd =
      policy::linkerd::buildLinkerd(a.store, config.linkerd, a.topology.linkerd, inputs.jobs);
  return a;
}

}  // namespace

schema::Channel schemaChannel(const config::Config& config) {
  return config.gatewayApiChannel == config::GatewayApiChannel::Standard
             ? schema::Channel::Standard
             : schema::Channel::Experimental;
}

std::string Input::identityOf(std::string_view group, std::string_view kind,
                              std::string_view namespace_, std::string_view name) {
  std::string out;
  out.reserve(group.size() + kind.size() + namespace_.size() + name.size() + 3);
  out.append(group)
      .append("/")
      .append(kind)
      .append("/")
      .append(namespace_)
      .append("/")
      .append(name);
  return out;
}

std::string_view Analysis::definitionOf(const model::Missing& o) const {
  if (!input) return {};
  auto it = input->definitions.find(Input::identityOf(o.group, o.kind, o.namespace_, o.name));
  if (it == input->definitions.end()) return {};
  for (const model::SourceFile* f : files)
    if (f->path == it->second) return {};  // this unit reads that file: no help
  return it->second;
}

Analysis::Absence Analysis::absenceOf(const model::Missing& o) const {
  if (config::findExternal(config.external, o.group, o.kind, o.namespace_, o.name))
    return Absence::Produced;
  // What the unit's own objects make in a cluster.
  if (o.group.empty() && o.kind == "Secret")
    for (const model::Resource* c : store.ofKind("cert-manager.io", "Certificate"))
      if (c->namespace_ == o.namespace_ && c->spec().get("secretName").str() == o.name)
        return Absence::Produced;
  if (o.kind == "ServiceImport" && !store.findByKind("ServiceExport", o.namespace_, o.name).empty())
    return Absence::Produced;
  // Linkerd's control plane and its extensions' charts install their own policy objects
  // (linkerd-viz's Servers for Prometheus and the admin ports, multicluster's gateway ones).
  if (o.group == "policy.linkerd.io" &&
      (o.namespace_ == config.linkerd.controlPlaneNamespace || o.namespace_ == "linkerd-viz" ||
       o.namespace_ == "linkerd-multicluster" || o.namespace_ == "linkerd-jaeger"))
    return Absence::Produced;
  // Objects a selector finds, in a namespace where the unit runs nothing the selector could
  // find (the rule gives no Missing otherwise): deployed by another repository or a chart.
  if (o.bySelector()) return Absence::Elsewhere;
  if (unitKind == units::UnitKind::Input || unitKind == units::UnitKind::Environment)
    return Absence::Missing;
  // Another unit's: defined in a file of the input this unit does not apply.
  if (!definitionOf(o).empty()) return Absence::Elsewhere;
  // A namespace a Helm release installs into holds objects the chart makes.
  for (const model::Resource* h : store.ofKind("helm.toolkit.fluxcd.io", "HelmRelease")) {
    std::string_view target = h->spec().get("targetNamespace").str();
    if ((target.empty() ? h->namespace_ : target) == o.namespace_) return Absence::Elsewhere;
  }
  // The input creates the namespace (in this unit or another), and the unit makes objects of
  // the kind, but not this one: the input is evidently its home, and the object missing.
  // (Namespaces every cluster has are no evidence: writing one down says nothing. A unit that
  // makes no object of the kind at all, a docs example that shows routes and never their
  // backends, leaves them to whoever does.)
  const bool everyCluster = o.namespace_ == "default" || o.namespace_ == "kube-system" ||
                            o.namespace_ == "kube-public" || o.namespace_ == "kube-node-lease";
  if (!o.namespace_.empty() && !everyCluster && !store.ofKind(o.group, o.kind).empty() &&
      (store.find("", "Namespace", "", o.namespace_) ||
       (input && input->definitions.count(Input::identityOf("", "Namespace", "", o.namespace_)))))
    return Absence::Missing;
  return Absence::Elsewhere;
}

void addFile(Analysis& analysis, std::unique_ptr<model::SourceFile> file) {
  if (!analysis.input) analysis.input = std::make_shared<Input>();
  analysis.files.push_back(file.get());
  // The analysis is still being put together: nothing reads its input yet.
  std::const_pointer_cast<Input>(analysis.input)->files.push_back(std::move(file));
}

const load::RenderedSources& Analysis::rendered() const {
  static const load::RenderedSources none;
  return input ? input->rendered : none;
}

Run analyzeRun(config::Config config, const Inputs& given, const UnitChoice& choice,
               const RevisionInputs* revision) {
  Inputs inputs = given;
  const std::vector<config::Environment>& environments = choice.environments;
  if (choice.mode == UnitChoice::Mode::Environments && !revision) {
    // The environments' folders, read once: each unit takes its own from them.
    inputs.paths.clear();
    for (const config::Environment& e : environments)
      for (std::string& folder : e.folders(inputs.root))
        if (std::find(inputs.paths.begin(), inputs.paths.end(), folder) == inputs.paths.end())
          inputs.paths.push_back(std::move(folder));
  }
  const fs::path repositoryRoot = inputs.repositoryRoot.empty()
                                      ? findRepositoryRoot(inputs.root)
                                      : absoluteFolder(inputs.repositoryRoot);
  auto input = std::make_shared<Input>();
  std::vector<load::SourceEntry> sources =
      revision ? revision->revision.collect(inputs.paths, revision->root, config, input->problems)
               : load::collectSources(inputs.paths, inputs.root, config, input->problems);
  input->skipped = load::skipNonManifests(sources);
  load::LoadResult loaded = load::loadSources(
      sources, config.limits, {inputs.jobs, inputs.stdinText, inputs.stdinTooLarge});
  input->files = std::move(loaded.files);
  if (!revision && !inputs.stdinText.empty())
    input->rendered = load::RenderedSources::read(input->files, inputs.root, config.limits);
  for (load::SkippedFile& s : loaded.skipped) input->skipped.push_back(std::move(s));
  // Walk problems come first in discovery order; file problems in file order.
  for (load::Problem& p : loaded.problems) input->problems.push_back(std::move(p));
  std::unique_ptr<load::Repository> repository =
      revision ? load::revisionRepository(revision->revision, revision->root)
               : load::diskRepository(inputs.root);
  units::InferInput infer{
      input->files,  loaded.resources,        input->problems,
      environments,  input->skipped,          repository.get(),
      config.limits, config.defaultNamespace, rootInRepository(inputs.root, repositoryRoot)};
  if (choice.mode == UnitChoice::Mode::Whole) {
    units::Unit whole;
    whole.name = inputs.environment;
    whole.why = "the whole input";
    for (const std::unique_ptr<model::SourceFile>& f : input->files) whole.files.push_back(f.get());
    whole.resources = std::move(loaded.resources);
    whole.problems = input->problems;
    input->units.units.push_back(std::move(whole));
  } else {
    input->units = units::inferUnits(infer);
  }
  // Where each object is defined, for a unit that lacks one (Analysis::definitionOf): only a
  // run of several units has one unit lack what another holds.
  if (input->units.units.size() > 1)
    for (const model::Resource& r : loaded.resources) {
      if (!r.file || r.name.empty()) continue;
      const std::string_view space = r.universal || model::isBuiltinClusterScoped(r.group, r.kind)
                                         ? std::string_view()
                                         : (r.namespaceWritten && !r.namespace_.empty()
                                                ? r.namespace_
                                                : std::string_view(config.defaultNamespace));
      input->definitions.try_emplace(Input::identityOf(r.group, r.kind, space, r.name),
                                     std::string_view(r.file->path));
    }

  for (load::SkippedFile& s : input->units.skipped) input->skipped.push_back(std::move(s));
  Run run;
  run.input = input;
  // One unit holds every CRD it validates against already; several share the input's.
  const std::vector<const model::Resource*> inputCrds = input->units.units.size() > 1
                                                            ? crdsOf(loaded.resources)
                                                            : std::vector<const model::Resource*>();
  const auto compiled = std::make_shared<schema::CompiledCrds>();
  // A file several units apply as it is is validated once, by the first.
  schema::SharedValidations sharedValidations;
  schema::SharedValidations* shared = input->units.units.size() > 1 ? &sharedValidations : nullptr;
  for (units::Unit& unit : input->units.units)
    run.units.push_back(
        analyzeUnit(config, inputs, run.input, unit, repositoryRoot, inputCrds, compiled, shared));
  return run;
}

Analysis analyze(config::Config config, const Inputs& inputs, const RevisionInputs* revision) {
  Run run = analyzeRun(std::move(config), inputs, {UnitChoice::Mode::Whole}, revision);
  return std::move(run.units.front());
}

std::string_view PlaceholderLines::at(const std::string& path, std::uint32_t line) {
  if (line == 0 || resolved_.count({path, line})) return {};
  const std::vector<std::string_view>* lines = linesOf(path);
  if (!lines || line > lines->size() || !model::holdsPlaceholder((*lines)[line - 1])) return {};
  return (*lines)[line - 1];
}

const std::vector<std::string_view>* PlaceholderLines::linesOf(const std::string& path) {
  if (auto it = lines_.find(path); it != lines_.end()) return &it->second;
  for (const model::SourceFile* f : files_) {
    if (f->path != path || !f->tree) continue;
    std::vector<std::string_view>& out = lines_[path];
    for (std::string_view text = f->tree->text(); !text.empty();) {
      const std::size_t nl = text.find('\n');
      out.push_back(text.substr(0, nl));
      text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    }
    return &out;
  }
  return nullptr;
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
