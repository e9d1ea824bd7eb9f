// Structural validation of objects against their API schemas, as the API server does it on
// create and update (strict field validation), with the exact position of every field at
// fault. The schema stage of the pipeline: load ─► schema ─► Store.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "lib/model/resource.h"
#include "lib/schema/schema.h"

namespace pg::schema {

enum class Code : std::uint8_t {
  UnknownField,       // IN120
  InvalidValue,       // IN121
  Required,           // IN122
  VersionNotServed,   // IN123
  DeprecatedVersion,  // IN125
  CelRule,            // IN124: an x-kubernetes-validations rule does not hold
  SeedField,          // IN126: a field a seed defines and the released CRD does not serve
};

struct Violation {
  Code code;
  std::size_t object = 0;  // index of the object in the validated list
  model::Location location;
  std::string message;  // in the API server's words
  std::string path;     // the field path (spec.rules[0].matches), for fingerprints
  // A field close to an unknown one's name (IN120), "" when none is; for a oneOf, anyOf, allOf
  // or not constraint (IN121), what to do: the alternatives there are.
  std::string suggestion;
};

// A CEL rule met while validating that was not evaluated: it does not compile here, or its
// evaluation ran past the cost limit. `object` is the first object it applied to.
struct UnenforcedRule {
  std::string kind;
  std::string path;  // the field the rule sits on, of that first object
  std::string rule;
  std::string why;
  std::size_t object = 0;
};

struct Result {
  std::vector<Violation> violations;  // in object order, then document order
  // Per object: the API server would refuse it (a violation of a served version's schema).
  std::vector<bool> refused;
  // Each rule once, in the order first met (object order).
  std::vector<UnenforcedRule> unenforced;
};

// What validation found for objects several units share (the same node of the same tree,
// checked against the same schema): the first unit validates them and its defaults are added
// to the shared tree, the others take the findings from here. Filled between validations, read
// during one (never both at once).
class SharedValidations {
 public:
  struct Entry {
    std::vector<Violation> violations;
    std::vector<UnenforcedRule> unenforced;
  };
  const Entry* find(const yaml::Tree* tree, std::uint32_t node, const KindSchema* schema) const;
  void add(const yaml::Tree* tree, std::uint32_t node, const KindSchema* schema, Entry entry);

 private:
  std::map<std::tuple<const yaml::Tree*, std::uint32_t, const KindSchema*>, Entry> entries_;
};

// Validates one object against one version's schema; appends to `out`, and the CEL rules
// it could not evaluate to `unenforced` when given.
void validateObject(const model::Resource& object, const VersionSchema& version, std::size_t index,
                    std::vector<Violation>& out, std::vector<UnenforcedRule>* unenforced = nullptr);

// Validates every object whose group and kind have a schema, on `jobs` threads. CRDs among
// `objects` are added to `registry` first. Deterministic whatever `jobs` is. With `shared`,
// objects found there are not validated again, and the others are added to it.
Result validateAll(const std::vector<model::Resource>& objects, Registry& registry, unsigned jobs,
                   SharedValidations* shared = nullptr);

// Levenshtein distance (insertions, deletions, substitutions), byte by byte.
std::size_t editDistance(std::string_view a, std::string_view b);

// The closest name to `name` among `candidates` by edit distance, if close enough to be a
// likely typo ("hostname" → "hostnames"); "" otherwise.
std::string_view closestName(std::string_view name,
                             const std::vector<std::string_view>& candidates);

}  // namespace pg::schema
