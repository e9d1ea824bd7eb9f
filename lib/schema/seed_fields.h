// Fields the seed specifications define that the released CRDs do not serve: policygraph
// simulates them as the seed says, and the schema stage reports each once (IN126) instead of
// refusing the object over it. The one place that lists them.
#pragma once

#include <array>
#include <string_view>

namespace pg::schema {

struct SeedField {
  std::string_view group;
  std::string_view kind;
  std::string_view path;  // the field; a violation at it or below it belongs to it
  std::string_view seed;  // the specification that defines it
  // CEL rules of the released CRD (by message) that the field makes moot when it is present.
  std::array<std::string_view, 3> waives{};
  // Only a value of another type than the CRD's belongs to the seed (the CRD's own form of
  // the field is validated as usual).
  bool otherTypeOnly = false;
};

struct Violation;

// Whether a value of another type than the CRD's at `path` is a seed's own form of the field.
bool seedFormAt(std::string_view group, std::string_view kind, std::string_view path);

// The seed field a violation of an object of this kind belongs to, or null.
const SeedField* seedFieldOf(std::string_view group, std::string_view kind, const Violation& v);

}  // namespace pg::schema
