// The encodings several stages reproduce byte for byte from Go programs: a string as Go's
// encoding/json writes it, SHA-256 digests, and standard base64 (OpenSSL's), so that the names
// and hashes computed offline (kustomize's generator suffixes, Kuma's match hashes) are the
// controllers' own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace pg::model {

// `s` quoted as Go's encoding/json.Marshal writes a string: `"`, `\` and `\n`, `\r`, `\t`,
// `\b`, `\f` escaped short, other control characters as \u00XX, `<`, `>`, `&` and U+2028/2029
// HTML-safe, invalid UTF-8 as U+FFFD.
std::string goJsonString(std::string_view s);

// The SHA-256 of `data`, as raw bytes and as lowercase hex.
std::string sha256(std::string_view data);
std::string sha256Hex(std::string_view data);

// Standard base64 with padding (Go's base64.StdEncoding).
std::string base64(std::string_view data);
// The bytes standard base64 text encodes, as Go's base64.StdEncoding decodes a Secret's `data`
// (line breaks ignored, padding required); empty when the text is not base64.
std::string decodeBase64(std::string_view text);

// The length (1 to 4) of the well-formed UTF-8 sequence at `s[i]`, and its code point in
// `codePoint` when given; 0 when there is none (a stray byte, a truncated sequence, an
// overlong form, a surrogate, past U+10FFFF).
std::size_t utf8At(std::string_view s, std::size_t i, std::uint32_t* codePoint = nullptr);

// Whether `s` is valid UTF-8.
bool validUtf8(std::string_view s);

}  // namespace pg::model
