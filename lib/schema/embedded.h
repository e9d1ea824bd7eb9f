// The built-in schema files (lib/schema/data/**.yaml), embedded at build time by
// cmake/EmbedSchemas.cmake, so that no file is read at run time.
#pragma once

#include <cstddef>
#include <string_view>

namespace pg::schema {

struct EmbeddedSchema {
  std::string_view path;  // lib/schema/data/<group or "core">/<Kind>.yaml
  std::string_view text;  // one CustomResourceDefinition
};

const EmbeddedSchema* embeddedSchemas(std::size_t& count);

}  // namespace pg::schema
