// Runs the stages on one input and owns everything they produced. The whole analysis is a
// value: `diff` builds two and compares them.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "lib/config/config.h"
#include "lib/graph/kuma.h"
#include "lib/graph/topology.h"
#include "lib/load/git.h"
#include "lib/load/problem.h"
#include "lib/load/rendered.h"
#include "lib/load/skip.h"
#include "lib/model/source.h"
#include "lib/model/store.h"
#include "lib/policy/engine.h"
#include "lib/policy/linkerd/inbound.h"
#include "lib/schema/validate.h"
#include "lib/units/unit.h"

namespace pg::analysis {

struct Inputs {
  std::vector<std::string> paths;  // files, folders, "-"
  // Findings name files relative to it; the config's globs and the snapshot folder are too.
  std::filesystem::path root;
  unsigned jobs = 1;
  std::string stdinText;
  graph::TopologyOptions topology;
  policy::PolicyOptions policy;
  // The top of the repository `root` lies in; empty: findRepositoryRoot(root). Last, and with
  // an initializer, so that brace-initialized Inputs may leave it out.
  std::filesystem::path repositoryRoot = {};
  // The environment (config `environments:`) these paths are; empty when there are none.
  std::string environment = {};
  // Standard input gave more than the size limit and was not read further (IN107).
  bool stdinTooLarge = false;
};

// A commit to read the inputs from instead of the disk: `Inputs::paths` and `root`, the
// folder reports name files relative to, are then paths from the top of the repository.
struct RevisionInputs {
  const load::GitRevision& revision;
  std::string root;
};

// What a run read, once, whatever number of units it is cut into: the files, the problems
// found reading them, the origins of rendered input, the files that are not manifests, and the
// units with what their transformations made.
struct Input {
  std::vector<std::unique_ptr<model::SourceFile>> files;
  std::vector<load::Problem> problems;  // walk problems in discovery order, then file order
  // Where the documents of standard input were rendered from (kustomize, Helm), for findings.
  load::RenderedSources rendered;
  // Files among the inputs that are not manifests (kustomize's and Helm's own files, CI and
  // tool configuration, dashboards): recognised, not analysed, counted in the summary.
  std::vector<load::SkippedFile> skipped;
  units::Units units;
  // Where each object of the input is first defined (`group/kind/namespace/name`, the
  // namespace as written or the default one) → its file: what a unit that lacks an object is
  // told about it.
  std::unordered_map<std::string, std::string_view> definitions;  // → Input::files' paths
  static std::string identityOf(std::string_view group, std::string_view kind,
                                std::string_view namespace_, std::string_view name);
};

// The lines of a unit's files that hold a placeholder (`${VAR}`, `{NAME}`, ...) its tools did
// not substitute: values unknown before apply, on which no finding rests (IN132) and for which
// no object is refused. Each file's lines are indexed once, on first use.
class PlaceholderLines {
 public:
  PlaceholderLines(const std::vector<const model::SourceFile*>& files,
                   const units::ResolvedLines& resolved)
      : files_(files), resolved_(resolved) {}
  // Line `line` (from 1) of `path` when it holds such a placeholder; empty otherwise.
  std::string_view at(const std::string& path, std::uint32_t line);

 private:
  const std::vector<std::string_view>* linesOf(const std::string& path);
  const std::vector<const model::SourceFile*>& files_;
  const units::ResolvedLines& resolved_;
  std::map<std::string, std::vector<std::string_view>, std::less<>> lines_;
};

// The analysis of one unit (units/unit.h): every stage after load, run on its objects.
struct Analysis {
  config::Config config;
  // What findings' paths are relative to (`Inputs::root`: `--root`, else findRoot()).
  std::filesystem::path root;
  // `root` or a folder above it: the top of the repository, which code hosts resolve paths
  // from (SARIF, GitHub annotations). Empty in an Analysis put together by hand: `root`.
  std::filesystem::path repositoryRoot;
  // What the run read, shared by its units; `files` and `problems` are this unit's part.
  std::shared_ptr<const Input> input;
  std::vector<const model::SourceFile*> files;
  std::vector<load::Problem> problems;
  // What the API server would say of each object (IN12x); `schema.violations[i].object` and
  // `schema.refused` index `store.all()`, which keeps the unit's order.
  schema::Result schema;
  std::vector<load::SkippedFile> skipped;  // the run's (Input::skipped)
  model::Store store;
  graph::Topology topology;
  graph::kuma::Topology kuma;  // meshes, dataplanes, gateways and services of Kuma
  policy::PolicyModel policies;
  policy::linkerd::LinkerdModel linkerd;  // inbound servers per workload, Server route status
  // The unit's name (`Unit::name`: an environment, an overlay, a cluster); empty when the whole
  // input is one unit.
  std::string environment;
  units::UnitKind unitKind = units::UnitKind::Input;
  std::string unitWhy;  // how the unit was found (`policygraph units` prints it)
  // Source lines whose placeholders the unit's tools substituted (Flux's postBuild): a finding
  // there rests on a known value.
  units::ResolvedLines resolvedLines;
  // The threads the stages ran on (`Inputs::jobs`); later stages (the rule engine) use as
  // many. Results never depend on it.
  unsigned jobs = 1;

  const load::RenderedSources& rendered() const;

  // What to make of an object the unit names but does not hold.
  enum class Absence : std::uint8_t {
    Missing,    // the unit is evidently its home (the whole input, an environment, a unit that
                // defines its Namespace): an error
    Elsewhere,  // made outside the unit: a note that it is assumed (IN133)
    Produced,   // declared under external:, or made by something in the unit (a Certificate's
                // Secret, a ServiceExport's ServiceImport): nothing to say
  };
  Absence absenceOf(const model::Missing& object) const;
  // The file of the input that defines an object this unit lacks; empty when none does.
  std::string_view definitionOf(const model::Missing& object) const;
};

// The built-in schemas' Gateway API channel the config chooses.
schema::Channel schemaChannel(const config::Config& config);

// For an analysis put together by hand (tests, benchmarks): `file` becomes one of its files,
// owned by its input (made when it has none).
void addFile(Analysis& analysis, std::unique_ptr<model::SourceFile> file);

// Every unit of one run, analysed. `units` is never empty after analyzeRun.
struct Run {
  std::shared_ptr<const Input> input;
  std::vector<Analysis> units;
};

// How a run is cut into units.
struct UnitChoice {
  enum class Mode : std::uint8_t {
    Infer,         // from the repository's structure (units/infer.h)
    Whole,         // the whole input, one unit named by Inputs::environment
    Environments,  // one per entry of `environments`, their folders read once
  };
  Mode mode = Mode::Infer;
  std::vector<config::Environment> environments = {};
};

// Reads the inputs once, cuts them into units as `units` says and analyses each. Throws
// load::InputError when a path names nothing.
Run analyzeRun(config::Config config, const Inputs& inputs, const UnitChoice& units = {},
               const RevisionInputs* revision = nullptr);

// The whole input as one unit (UnitChoice::Mode::Whole): its analysis.
Analysis analyze(config::Config config, const Inputs& inputs,
                 const RevisionInputs* revision = nullptr);

// The root findings' paths are relative to: the folder of the config file when there is one,
// else the nearest folder above the first input holding `.git`, else the current folder.
std::filesystem::path findRoot(const std::vector<std::string>& paths,
                               const std::string& configPath);

// The top of the git work tree that holds `root`: the nearest folder at or above it with a
// `.git` folder or file (a linked worktree or a submodule has a file), else `root` itself.
// Absolute and lexically normal.
std::filesystem::path findRepositoryRoot(const std::filesystem::path& root);

}  // namespace pg::analysis
