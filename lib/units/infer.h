// Deciding the units of a run: the config's environments when it declares them, else what the
// repository's own structure says (see unit.h).
#pragma once

#include <memory>
#include <vector>

#include "lib/config/config.h"
#include "lib/load/problem.h"
#include "lib/model/resource.h"
#include "lib/model/source.h"
#include "lib/units/unit.h"

namespace pg::units {

struct InferInput {
  const std::vector<std::unique_ptr<model::SourceFile>>& files;  // the loaded manifests
  const std::vector<model::Resource>& resources;                 // their objects, file order
  const std::vector<load::Problem>& problems;                    // walk and file problems
  // Explicit units, one per entry (paths relative to the root, as files are named); when
  // empty, the units are inferred.
  const std::vector<config::Environment>& environments;
};

Units inferUnits(const InferInput& input);

// Whether `path` (a reported file path) lies at or under `folder` (a path relative to the root,
// "." or "" for all of it).
bool under(std::string_view path, std::string_view folder);

}  // namespace pg::units
