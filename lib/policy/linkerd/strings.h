#pragma once

// Small helpers the Linkerd files share for reading manifests as Linkerd does.
#include <cstddef>
#include <string>
#include <string_view>

#include "lib/model/ascii.h"
#include "lib/yaml/tree.h"

namespace pg::policy::linkerd::detail {

// A scalar's text; empty for anything else (missing, null, a mapping).
inline std::string_view view(yaml::NodeRef n) {
  return n.isScalar() && !n.isNull() ? n.str() : std::string_view();
}
inline std::string text(yaml::NodeRef n) {
  return std::string(view(n));
}

// Kubernetes group and kind names as Linkerd compares them (`eq_ignore_ascii_case`), and the
// lower-case form keys of case-insensitive lookups are built from (`to_ascii_lowercase`).
using model::equalsIgnoringCase;
using model::lowerAscii;

}  // namespace pg::policy::linkerd::detail
