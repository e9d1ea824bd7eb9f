// Object names as the API server accepts them (ObjectMeta validation: metadata.name per kind,
// metadata.namespace), and as Kuma accepts a Universal object's name and mesh. A name the
// cluster would refuse is a refused object, like any other invalid value (IN121); it never
// reaches a later stage, where names become file names (snapshots) and references.
#pragma once

#include <cstddef>
#include <vector>

#include "lib/model/resource.h"
#include "lib/schema/validate.h"

namespace pg::schema {

// Appends a violation (InvalidValue) for each name of `object` that the API server, or Kuma
// for a Universal object, would refuse. A name that holds a placeholder is unknown, not
// checked.
void validateNames(const model::Resource& object, std::size_t index, std::vector<Violation>& out);

}  // namespace pg::schema
