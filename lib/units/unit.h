// Units: how a repository becomes clusters (DESIGN.md "Units"). A GitOps repository holds
// several applies (one per kustomize overlay, per Flux cluster, per Argo CD Application, per
// alternative of an examples folder); each unit is the set of objects one of them puts in one
// cluster, with the transformations of the tools on the way applied, and every later stage
// runs once per unit. The stage between load and schema: load ─► units ─► schema.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "lib/load/problem.h"
#include "lib/load/skip.h"
#include "lib/model/resource.h"
#include "lib/model/source.h"
#include "lib/yaml/tree.h"

namespace pg::units {

enum class UnitKind : std::uint8_t {
  Input,        // the whole input, one cluster: nothing says otherwise
  Environment,  // an entry of the config's `environments:`
  Kustomize,    // a kustomize root: a kustomization no other one includes
  Flux,         // the Flux Kustomizations reached from one cluster's entry point
  ArgoCD,       // an Argo CD Application with a path source
  Alternative,  // one of the files or folders of a folder of alternatives
  Rest,         // the files no other unit includes, beside units that claim the others
};

// "kustomize", "flux", ...: how `policygraph units` and the reports name the kind.
std::string_view kindName(UnitKind kind);

// Source lines (file, line) whose placeholders a tool of the unit substituted: what is applied
// there is known, whatever the file says.
using ResolvedLines = std::set<std::pair<std::string, std::uint32_t>>;

// One apply into one cluster.
struct Unit {
  // Names findings, status items and the unit's snapshot folder; empty when the whole input is
  // the one unit (reports then name none). Relative paths, `/`-separated, never `..`.
  std::string name;
  UnitKind kind = UnitKind::Input;
  std::string why;        // how it was found, one sentence, for `policygraph units`
  model::Location where;  // what defines it (a kustomization, an Application); may be empty
  // The source files it reads, in path order, and its objects as applied, in file and
  // document order (transformed objects point into the Run's arena).
  std::vector<const model::SourceFile*> files;
  std::vector<model::Resource> resources;
  // Problems of its files (IN1xx), then what its own definition holds that cannot be applied.
  std::vector<load::Problem> problems;
  ResolvedLines resolvedLines;
};

// What units point into beyond the loaded files: names and trees the transformations made,
// files read only because a unit includes them. Shared by every unit of a run.
struct Arena {
  std::deque<std::string> strings;  // stable addresses: Resources hold views into them
  std::vector<std::unique_ptr<model::SourceFile>> files;
  std::vector<std::unique_ptr<yaml::Tree>> trees;  // objects as a tool changed or made them

  std::string_view keep(std::string text) { return strings.emplace_back(std::move(text)); }
};

struct Units {
  std::vector<Unit> units;
  // Files no unit includes whose documents are of something other than Kubernetes: not
  // analysed, counted with the run's skipped files.
  std::vector<load::SkippedFile> skipped;
  std::shared_ptr<Arena> arena = std::make_shared<Arena>();
};

}  // namespace pg::units
