// ASCII case folding, the one helper every stage uses: Kubernetes names, header names, enum
// values and protocols compare without regard to case in ASCII only (Go's strings.EqualFold
// on ASCII text, Rust's eq_ignore_ascii_case), never by the locale, which std::tolower asks.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pg::model {

constexpr char lowerAscii(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

constexpr bool equalsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lowerAscii(a[i]) != lowerAscii(b[i])) return false;
  return true;
}

// `text` in ASCII lower case.
inline std::string lowerAscii(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = lowerAscii(c);
  return out;
}

}  // namespace pg::model
