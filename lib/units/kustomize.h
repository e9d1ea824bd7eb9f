// kustomize, built in: a kustomization's objects as `kustomize build` makes them (resources,
// bases and components; generators with their hash suffix; strategic-merge and JSON 6902
// patches; namespace, namePrefix and nameSuffix with the name references they rewrite;
// labels and annotations; replicas; images), every value keeping the position of the source
// line it came from. What is not applied (helmCharts, replacements, plugins) is named in one
// note. Flux and Argo CD build through it too, with their own fields on the top level.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lib/load/problem.h"
#include "lib/load/repository.h"
#include "lib/model/resource.h"
#include "lib/units/sources.h"
#include "lib/yaml/tree.h"

namespace pg::units {

// What a tool that runs kustomize sets on the top kustomization (Flux's targetNamespace and
// patches, Argo CD's kustomize block).
struct Overrides {
  std::string namespace_;  // empty: the kustomization's own
  std::string namePrefix;
  std::string nameSuffix;
  std::vector<yaml::NodeRef> patches;       // {patch, target} entries of a Flux Kustomization
  yaml::NodeRef at;                         // the field findings about these point at
  const model::SourceFile* file = nullptr;  // the file `at` is in
};

struct Build {
  std::vector<model::Resource> objects;         // as applied, in build order
  std::vector<const model::SourceFile*> files;  // the manifests it read, in order
  std::set<std::string> read;  // every file it read: manifests, kustomizations, patches, inputs
  std::vector<load::Problem> problems;
  std::vector<std::string> unsupported;  // kustomization fields not applied, `path: field`
};

class Kustomizer {
 public:
  explicit Kustomizer(Sources& sources);

  // The kustomization file of a folder ("" for the root), if it has one.
  std::optional<std::string> kustomizationIn(const std::string& folder) const;

  // `kustomize build folder` (a folder with a kustomization); without one, what Flux's
  // kustomize-controller generates: every .yaml and .yml file under it, a sub-folder with a
  // kustomization as one resource.
  Build build(const std::string& folder, const Overrides& overrides = {});

  // The folders a kustomization names under resources, bases and components (for which
  // kustomizations are roots: none other includes them).
  std::vector<std::string> includedFolders(const std::string& kustomization);
  // The files it names as patches and generator inputs: not manifests of their own.
  std::vector<std::string> consumedFiles(const std::string& kustomization);

 private:
  struct State;
  Sources& sources_;
};

}  // namespace pg::units
