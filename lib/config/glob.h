// Glob patterns for paths and object refs: `*` and `?` stay within one `/`-separated segment,
// `**` spans segments (`vendor/**`, `**/kustomization.yaml`, `HTTPRoute/legacy/*`).
#pragma once

#include <string_view>

namespace pg::config {

bool globMatch(std::string_view pattern, std::string_view text);

}  // namespace pg::config
