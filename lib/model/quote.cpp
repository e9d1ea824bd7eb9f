#include "lib/model/quote.h"

#include <cstdint>

namespace pg::model {

namespace {

constexpr char kHex[] = "0123456789abcdef";

void appendHexByte(std::string& out, unsigned char byte) {
  out += "\\x";
  out += kHex[byte >> 4];
  out += kHex[byte & 0xF];
}

// The length of the well-formed UTF-8 sequence that starts `text` at `i`, 0 when it is not one
// (overlong forms, surrogates and code points past U+10FFFF are not well formed).
std::size_t utf8Length(std::string_view text, std::size_t i, std::uint32_t& codePoint) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char lead = byte(i);
  std::size_t length = 0;
  std::uint32_t minimum = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2, codePoint = lead & 0x1F, minimum = 0x80;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3, codePoint = lead & 0x0F, minimum = 0x800;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4, codePoint = lead & 0x07, minimum = 0x10000;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    codePoint = (codePoint << 6) | (byte(i + k) & 0x3F);
  }
  if (codePoint < minimum || codePoint > 0x10FFFF || (codePoint >= 0xD800 && codePoint <= 0xDFFF))
    return 0;
  return length;
}

}  // namespace

void appendQuoted(std::string& out, std::string_view text) {
  out += '"';
  for (std::size_t i = 0; i < text.size();) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      switch (c) {
        case '"':
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '\a':
          out += "\\a";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\v':
          out += "\\v";
          break;
        default:
          if (c < 0x20 || c == 0x7F)
            appendHexByte(out, c);
          else
            out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    std::uint32_t codePoint = 0;
    std::size_t length = utf8Length(text, i, codePoint);
    if (length == 0) {
      appendHexByte(out, c);
      ++i;
    } else if (codePoint < 0xA0) {  // a C1 control character
      out += "\\u00";
      out += kHex[codePoint >> 4];
      out += kHex[codePoint & 0xF];
      i += length;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  out += '"';
}

std::string quoted(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  appendQuoted(out, text);
  return out;
}

}  // namespace pg::model
