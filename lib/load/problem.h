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
};

struct Problem {
  ProblemKind kind;
  model::Location location;
  std::string message;        // what is wrong, specifically; the rule adds what to do about it
  std::string discriminator;  // tells problems of one file apart, for fingerprints
  std::vector<model::RelatedLocation> related;
};

}  // namespace pg::load
