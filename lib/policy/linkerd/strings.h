#pragma once

// Small helpers the Linkerd files share for reading manifests as Linkerd does.
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

#include "lib/yaml/tree.h"

namespace pg::policy::linkerd::detail {

// A scalar's text; empty for anything else (missing, null, a mapping).
inline std::string text(yaml::NodeRef n) {
  return n.isScalar() && !n.isNull() ? std::string(n.str()) : std::string();
}

// Kubernetes group and kind names as Linkerd compares them (`eq_ignore_ascii_case`).
inline bool equalsIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace pg::policy::linkerd::detail
