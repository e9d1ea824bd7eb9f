// Flux: the Kustomizations (kustomize.toolkit.fluxcd.io) of a repository, each built from its
// `spec.path` as the kustomize-controller builds it (a kustomization there, or one generated
// from every manifest under it; `targetNamespace`, `namePrefix`/`nameSuffix` and `patches` on
// top; `postBuild.substitute` and `substituteFrom` afterwards), grouped into clusters: the
// Kustomizations one entry point reaches (the `flux-system` of `clusters/<name>`, or the
// Kustomizations of a folder that nothing else builds) are applied to one cluster.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "lib/units/kustomize.h"
#include "lib/units/unit.h"

namespace pg::units {

struct FluxClusters {
  std::vector<Unit> units;     // one per cluster
  std::set<std::string> read;  // every file their builds read (claimed from other units)
};

// `objects`: every object of the input (the Flux Kustomizations among them are where
// clusters start). `rootInRepository`: the root's path from the top of the git repository
// (Flux paths start there), "" when the root is the top.
FluxClusters fluxClusters(const std::vector<model::Resource>& objects, Kustomizer& kustomize,
                          Sources& sources, const std::string& rootInRepository);

// Flux's post-build substitution on one object: `${var}`, `${var:=default}` (and `:-`, `=`,
// `-`), `$${var}` for a literal; an undefined variable without a default becomes empty, as
// the controller does when any variable is defined. Skipped for an object labelled or
// annotated `kustomize.toolkit.fluxcd.io/substitute: disabled`. Returns whether it changed.
// `resolved`, when given, gains the file and line of each value left with no placeholder.
bool substitute(model::Resource& object,
                const std::vector<std::pair<std::string, std::string>>& vars, Arena& arena,
                yaml::NodeRef at, ResolvedLines* resolved = nullptr);

}  // namespace pg::units
