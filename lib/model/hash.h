#pragma once

// One step of the multiply-xorshift hash the in-memory indexes and caches use over 64-bit
// words (a Store identity, the schema stage's passed values, the policy stage's merges).
// Good enough to spread keys over a table; not a hash for anything outside one process.

#include <cstdint>

namespace pg::model {

inline constexpr std::uint64_t kHashSeed = 0x9E3779B97F4A7C15ULL;

inline std::uint64_t mixWord(std::uint64_t h, std::uint64_t w) {
  h = (h ^ w) * 0xFF51AFD7ED558CCDULL;
  return h ^ (h >> 32);
}

}  // namespace pg::model
