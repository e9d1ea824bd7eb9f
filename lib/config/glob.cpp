#include "lib/config/glob.h"

#include <vector>

namespace pg::config {

// Iterative matcher with backtracking points for `*` and `**`: linear in practice, and never
// recursive, so a hostile pattern in a config file cannot exhaust the stack.
bool globMatch(std::string_view pattern, std::string_view text) {
  std::size_t p = 0, t = 0;
  std::size_t starP = std::string_view::npos, starT = 0;  // last `*`
  std::size_t deepP = std::string_view::npos, deepT = 0;  // last `**`
  bool deepSlash = false;  // `**/`: the rest must start at a segment boundary
  while (t < text.size()) {
    if (p + 1 < pattern.size() && pattern[p] == '*' && pattern[p + 1] == '*') {
      p += 2;
      deepSlash = p < pattern.size() && pattern[p] == '/';
      if (deepSlash) ++p;  // `**/` also matches no segment at all
      deepP = p;
      deepT = t;
      starP = std::string_view::npos;
      continue;
    }
    if (p < pattern.size() && pattern[p] == '*') {
      starP = ++p;
      starT = t;
      continue;
    }
    if (p < pattern.size() && (pattern[p] == text[t] || (pattern[p] == '?' && text[t] != '/'))) {
      ++p;
      ++t;
      continue;
    }
    if (starP != std::string_view::npos && text[starT] != '/') {
      p = starP;
      t = ++starT;
      continue;
    }
    if (deepP != std::string_view::npos) {
      if (deepSlash) {
        std::size_t slash = text.find('/', deepT);
        if (slash == std::string_view::npos) return false;
        deepT = slash + 1;
      } else {
        ++deepT;
      }
      p = deepP;
      t = deepT;
      starP = std::string_view::npos;
      continue;
    }
    return false;
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace pg::config
