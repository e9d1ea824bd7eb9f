#pragma once

// Small helpers the Linkerd files share for reading manifests as Linkerd does.
#include <cstddef>
#include <string>
#include <string_view>

#include "lib/yaml/tree.h"

namespace pg::policy::linkerd::detail {

// A scalar's text; empty for anything else (missing, null, a mapping).
inline std::string_view view(yaml::NodeRef n) {
  return n.isScalar() && !n.isNull() ? n.str() : std::string_view();
}
inline std::string text(yaml::NodeRef n) { return std::string(view(n)); }

// ASCII lower case, as Rust's `to_ascii_lowercase`: no locale, no call per character.
constexpr char lowerAscii(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// Kubernetes group and kind names as Linkerd compares them (`eq_ignore_ascii_case`).
constexpr bool equalsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lowerAscii(a[i]) != lowerAscii(b[i])) return false;
  return true;
}

// `text` in ASCII lower case: the form keys of case-insensitive lookups are built from.
inline std::string lowerAscii(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = lowerAscii(c);
  return out;
}

}  // namespace pg::policy::linkerd::detail
