// A file the analysis read, with its parsed documents. Owned by the analysis; resources and
// findings refer to it by pointer or by path.
#pragma once

#include <memory>
#include <string>

#include "lib/yaml/tree.h"

namespace pg::model {

struct SourceFile {
  std::string path;                  // as reported: relative to the repository root, '/'-separated
  std::string absolutePath;          // empty for standard input
  std::unique_ptr<yaml::Tree> tree;  // null when the file could not be parsed at all
};

// A span in a file: the field at fault, from its first to its last character.
struct Location {
  std::string path;
  yaml::Mark start;
  yaml::Mark end;

  bool operator==(const Location&) const = default;
};

struct RelatedLocation {
  Location location;
  std::string message;
};

}  // namespace pg::model
