// Byte-level checks before a file reaches the YAML parser.
#pragma once

#include <cstddef>
#include <string_view>

#include "lib/yaml/tree.h"

namespace pg::load {

struct EncodingScan {
  enum class Verdict { Ascii, Utf8, Binary, NotUtf8, Utf16 } verdict = Verdict::Ascii;
  std::size_t offset = 0;  // first offending byte (Binary, NotUtf8)
};

// One pass: a NUL byte makes a file binary; otherwise it must be well-formed UTF-8 (a UTF-8
// byte order mark is fine, a UTF-16 one is reported as such).
EncodingScan scanEncoding(std::string_view bytes);

// Line and column (1-based, in code points) of a byte offset.
yaml::Mark markAt(std::string_view text, std::size_t offset);

}  // namespace pg::load
