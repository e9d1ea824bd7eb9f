// Folders of alternatives: in files no kustomization, Flux Kustomization or Application claims,
// two files that define the same object differently are not one cluster's objects but
// alternatives (an examples folder, the steps of a guide, the tests of a conformance suite,
// rendered copies beside their sources). The folder the two have in common holds one
// alternative per entry (a file, or a sub-folder whose files go together). Folders of
// alternatives nest (examples/ holds standard/ and experimental/, each a folder of alternatives
// of its own): a file belongs to one entry of every folder of alternatives it lies in, and an
// alternative is applied with every file whose entries are all its own (the files in no such
// folder, and those of the enclosing entries that lie in no deeper one: a conformance test
// with the suite's base manifests).
#pragma once

#include <string>
#include <vector>

#include "lib/model/resource.h"

namespace pg::units {

struct Alternative {
  std::string folder;  // the innermost folder of alternatives ("" for the root)
  std::string entry;   // the file or sub-folder of it: the alternative (a path from the root)
  std::vector<std::string> files;  // every file applied with it, its own and shared, path order
  // The files of `files` from another tree of the repository that it applies because they
  // define what it names: they are applied with their own tree too.
  std::vector<std::string> borrowed;
  std::string because;             // "a.yaml and b.yaml both define HTTPRoute/shop/x, differently"
};

struct Alternatives {
  std::vector<Alternative> alternatives;  // in path order; empty when there is no such folder
};

// Whether two files are steps of one sequence (a guide's `00.yaml`, `01-gateway.yaml`): in one
// folder, both named from a number. Applied in order, the later one's definitions update the
// earlier one's: neither alternatives nor duplicates.
bool steps(std::string_view a, std::string_view b);

// `files` are the reported paths to consider, in path order; `objects` their objects (in file
// order). `defaultNamespace` places objects that name none.
Alternatives findAlternatives(const std::vector<std::string>& files,
                              const std::vector<model::Resource>& objects,
                              std::string_view defaultNamespace);

}  // namespace pg::units
