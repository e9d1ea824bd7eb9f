#include "lib/load/encoding.h"

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace pg::load {

namespace {

// Length of the well-formed UTF-8 sequence at `p` (RFC 3629: no overlongs, no surrogates,
// nothing past U+10FFFF), or 0.
std::size_t utf8Sequence(const unsigned char* p, std::size_t left) {
  unsigned char c = p[0];
  auto cont = [&](std::size_t i) { return i < left && (p[i] & 0xC0) == 0x80; };
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if (c == 0xE0 && p[1] < 0xA0) return 0;
    if (c == 0xED && p[1] > 0x9F) return 0;
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xF0 && p[1] < 0x90) return 0;
    if (c == 0xF4 && p[1] > 0x8F) return 0;
    return 4;
  }
  return 0;
}

}  // namespace

EncodingScan scanEncoding(std::string_view bytes) {
  EncodingScan scan;
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t n = bytes.size();
  if (n >= 2 && ((p[0] == 0xFF && p[1] == 0xFE) || (p[0] == 0xFE && p[1] == 0xFF))) {
    scan.verdict = EncodingScan::Verdict::Utf16;
    return scan;
  }
  // NUL first: a binary file is reported as binary even if it is also not UTF-8.
  if (const void* nul = std::memchr(p, 0, n)) {
    scan.verdict = EncodingScan::Verdict::Binary;
    scan.offset = static_cast<std::size_t>(static_cast<const unsigned char*>(nul) - p);
    return scan;
  }
  std::size_t i = 0;
  while (i < n) {
    // Sixteen, then eight ASCII bytes at a time: the common case for manifests.
#if defined(__SSE2__)
    if (i + 16 <= n &&
        _mm_movemask_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i))) == 0) {
      i += 16;
      continue;
    }
#endif
    if (i + 8 <= n) {
      std::uint64_t word;
      std::memcpy(&word, p + i, 8);
      if ((word & 0x8080808080808080ULL) == 0) {
        i += 8;
        continue;
      }
    }
    if (p[i] < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = utf8Sequence(p + i, n - i);
    if (len == 0) {
      scan.verdict = EncodingScan::Verdict::NotUtf8;
      scan.offset = i;
      return scan;
    }
    scan.verdict = EncodingScan::Verdict::Utf8;
    i += len;
  }
  return scan;
}

yaml::Mark markAt(std::string_view text, std::size_t offset) {
  yaml::Mark mark{1, 1};
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      ++mark.line;
      mark.column = 1;
    } else if ((c & 0xC0) != 0x80) {
      ++mark.column;
    }
  }
  return mark;
}

}  // namespace pg::load
