// kustomize's configMapGenerator and secretGenerator: the ConfigMaps and Secrets a
// kustomization makes from literals, files and env files, and the hash suffix of their names.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "lib/yaml/edit.h"
#include "lib/yaml/tree.h"

namespace pg::units {

// Reads a generator's input file, relative to the kustomization's folder; nothing (with `error`
// set) when it cannot be read.
using ReadInput =
    std::function<std::optional<std::string>(const std::string& path, std::string& error)>;

struct Generated {
  yaml::EditNode object;  // positions: the generator's entry, each value its source
  std::string name;
  std::string namespace_;
  std::string behavior;  // create | merge | replace
  bool hashed = true;    // the name gets the content hash (disableNameSuffixHash unset)
  std::string error;     // why kustomize would refuse the entry ("" when it would not)
};

// One entry of `configMapGenerator` (`secret` false) or `secretGenerator`; `options` is the
// kustomization's generatorOptions (null when absent).
Generated generate(yaml::NodeRef entry, bool secret, yaml::NodeRef options, const ReadInput& read);

// The suffix kustomize gives a generated ConfigMap or Secret (api/hasher): the first ten hex
// digits of the SHA-256 of its kind, name, data (and type), in the alphabet [2456789bcdfghkmt].
std::string contentHash(const yaml::EditNode& object, std::string_view name);

}  // namespace pg::units
