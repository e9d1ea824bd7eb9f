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

namespace pg::schema {

// Adds the defaults of `version`'s schema missing from `object`, whose tree is `tree`.
// Returns how many fields were added.
std::size_t applyDefaults(yaml::Tree& tree, const model::Resource& object,
                          const VersionSchema& version);

// Applies the defaults of every object with a schema in `registry` that `refused` does not
// mark, the files on `jobs` threads (the objects of one file on one: they share a tree).
// `objects` live in `files`' trees. Returns how many fields were added.
std::size_t applyAllDefaults(const std::vector<std::unique_ptr<model::SourceFile>>& files,
                             const std::vector<model::Resource>& objects,
                             const std::vector<bool>& refused, const Registry& registry,
                             unsigned jobs);

}  // namespace pg::schema
