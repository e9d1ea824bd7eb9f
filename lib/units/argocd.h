// Argo CD: each Application with a path source in this repository is a unit, built as Argo
// CD's repo server builds it (a kustomization there, with the Application's kustomize block on
// top; else the folder's manifests, its sub-folders when `directory.recurse`), its objects
// without a namespace placed in `destination.namespace`. A Helm source is a producer whose
// objects are not rendered here (one note). An ApplicationSet's git directories generator
// makes one Application per folder its patterns match.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "lib/units/kustomize.h"
#include "lib/units/unit.h"

namespace pg::units {

struct ArgoApplications {
  std::vector<Unit> units;     // one per Application
  std::set<std::string> read;  // every file their builds read
  // Applications whose source is another repository's: notes for the unit of their file.
  std::vector<load::Problem> notes;
};

ArgoApplications argoApplications(const std::vector<model::Resource>& objects,
                                  Kustomizer& kustomize, Sources& sources,
                                  const std::string& rootInRepository);

}  // namespace pg::units
