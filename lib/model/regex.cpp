#include "lib/model/regex.h"

#include <re2/re2.h>

namespace pg::model {

std::string re2Error(std::string_view pattern) {
  // Where Go's regexp and RE2 part: Go has no `\C` (any byte), and reads `(?<name>x)` as
  // `(?P<name>x)` (Go 1.22), which older RE2 releases refuse.
  std::string translated;
  translated.reserve(pattern.size());
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      if (pattern[i + 1] == 'C') return "invalid escape sequence: `\\C`";
      translated += c;
      translated += pattern[++i];
      continue;
    }
    translated += c;
    if (c == '(' && pattern.substr(i + 1, 2) == "?<" && i + 3 < pattern.size() &&
        pattern[i + 3] != '=' && pattern[i + 3] != '!') {
      translated += "?P<";
      i += 2;
    }
  }
  RE2::Options options;
  options.set_log_errors(false);
  const RE2 regex(re2::StringPiece(translated.data(), translated.size()), options);
  return regex.ok() ? std::string() : regex.error();
}

}  // namespace pg::model
