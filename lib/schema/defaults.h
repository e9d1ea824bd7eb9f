// Schema defaults, applied as the API server applies them when it stores an object: every
// field the object leaves out whose schema has a `default` is added, recursively (a defaulted
// value gets the defaults of its own fields), so that the stages after the Store read a
// defaulted field like one the user wrote. The added nodes are marked synthesized
// (yaml::NodeRef::synthesized) and placed at the mapping they were added to.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "lib/model/resource.h"
#include "lib/model/source.h"
#include "lib/schema/schema.h"
#include "lib/schema/validate.h"

namespace pg::schema {

// A default the API server would add: `property`'s default value under `name` in `map`, a
// mapping of an object's tree that has no such key.
struct DefaultEntry {
  yaml::NodeRef map;
  std::string_view name;
  const Node* property = nullptr;
};

// validateAll(), noting for each object the defaults its schema would add where the object
// leaves them out (none for a refused object, which is never stored). Validation visits every
// mapping with its schema node, so defaulting costs no walk of its own.
Result validateAll(const std::vector<model::Resource>& objects, Registry& registry, unsigned jobs,
                   std::vector<std::vector<DefaultEntry>>& defaults,
                   SharedValidations* shared = nullptr);

// The defaults `version`'s schema would add to `object`, whatever else is wrong with it.
std::vector<DefaultEntry> missingDefaults(const model::Resource& object,
                                          const VersionSchema& version);

// Adds `entries` to `tree`, each with the defaults of its own fields. Returns how many fields
// were added.
std::size_t addDefaults(yaml::Tree& tree, const std::vector<DefaultEntry>& entries);

// Adds the defaults of `version`'s schema missing from `object`, whose tree is `tree`.
// Returns how many fields were added.
std::size_t applyDefaults(yaml::Tree& tree, const model::Resource& object,
                          const VersionSchema& version);

// Adds every object's `defaults` (from validateAll), the trees on `jobs` threads (the objects
// of one tree on one). Returns how many fields were added.
std::size_t applyAllDefaults(const std::vector<model::Resource>& objects,
                             const std::vector<std::vector<DefaultEntry>>& defaults, unsigned jobs);

}  // namespace pg::schema
