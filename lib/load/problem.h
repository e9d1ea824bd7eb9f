// What can be wrong with the input itself. The input rules (IN1xx) turn these into findings.
#pragma once

#include <string>
#include <vector>

#include "lib/model/source.h"

namespace pg::load {

enum class ProblemKind {
  InvalidYaml,
  InvalidEncoding,
  BinaryFile,
  DuplicateKey,
  AliasExpansion,
  NestingTooDeep,
  FileTooLarge,
  NotAnObject,
  MissingField,
  SymlinkLoop,
  SymlinkOutside,
  Unreadable,
  // Units (lib/units): what its tool would refuse to build (IN130), and what a
  // kustomization holds that is not applied here (IN131).
  UnitBuild,
  UnitUnsupported,
};

struct Problem {
  ProblemKind kind;
  model::Location location;
  std::string message;        // what is wrong, specifically; the rule adds what to do about it
  std::string discriminator;  // tells problems of one file apart, for fingerprints
  std::vector<model::RelatedLocation> related;
  // A document with neither kind nor a string apiVersion (a mapping, a scalar, a list): a
  // document of something other than Kubernetes (a tool's config, an OpenAPI file, notes, a
  // Grafana provisioning file's `apiVersion: 1`). A file of nothing else is not a manifest
  // where no unit includes it (units/infer.cpp).
  bool notKubernetes = false;
};

}  // namespace pg::load
