// Deciding the units of a run: the config's environments when it declares them, else what the
// repository's own structure says (see unit.h).
#pragma once

#include <memory>
#include <vector>

#include "lib/config/config.h"
#include "lib/load/problem.h"
#include "lib/load/repository.h"
#include "lib/load/skip.h"
#include "lib/model/resource.h"
#include "lib/model/source.h"
#include "lib/units/sources.h"
#include "lib/units/unit.h"

namespace pg::units {

struct InferInput {
  const std::vector<std::unique_ptr<model::SourceFile>>& files;  // the loaded manifests
  const std::vector<model::Resource>& resources;                 // their objects, file order
  const std::vector<load::Problem>& problems;                    // walk and file problems
  // Explicit units, one per entry (paths relative to the root, as files are named); when
  // empty, the units are inferred.
  const std::vector<config::Environment>& environments;
  // Files recognised as not manifests (the kustomizations among them are where units start).
  const std::vector<load::SkippedFile>& skipped;
  // The repository the files are read from, for what units include beyond the inputs; null
  // when there is none to read: nothing is inferred.
  const load::Repository* repository;
  const config::Limits& limits;
  std::string_view defaultNamespace;  // the config's, for objects that name none
  // The root's path from the top of the git repository ("" at the top): Flux and Argo CD
  // name paths from there.
  std::string rootInRepository = {};
};

// Decides the units and fills Units::arena with what their transformations made.
Units inferUnits(const InferInput& input);

}  // namespace pg::units
