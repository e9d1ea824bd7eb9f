#pragma once

// Byte comparisons for the short strings the tree is made of (keys, names, scalars), where a
// call to memcmp costs more than the comparison. Internal to lib/yaml/.

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace pg::yaml::detail {

// Whether the first and the last `sizeof(Word)` of `n` bytes (n >= sizeof(Word)) at `a` and
// `b` are equal: for n up to twice the word, all of them.
template <typename Word>
inline bool sameEnds(const char* a, const char* b, std::size_t n) {
  Word x{}, y{}, u{}, v{};
  std::memcpy(&x, a, sizeof(Word));
  std::memcpy(&y, b, sizeof(Word));
  std::memcpy(&u, a + n - sizeof(Word), sizeof(Word));
  std::memcpy(&v, b + n - sizeof(Word), sizeof(Word));
  return ((x ^ y) | (u ^ v)) == 0;
}

// Whether `n` bytes at `a` and `b` are equal, in two overlapping words (which stay within the
// `n` bytes) up to 16 bytes, memcmp beyond.
inline bool sameShortBytes(const char* a, const char* b, std::size_t n) {
  if (n > 16) return std::memcmp(a, b, n) == 0;
  if (n >= 8) return sameEnds<std::uint64_t>(a, b, n);
  if (n >= 4) return sameEnds<std::uint32_t>(a, b, n);
  for (std::size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return false;
  return true;
}

}  // namespace pg::yaml::detail
