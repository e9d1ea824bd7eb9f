// The hash Kuma names a MeshHTTPRoute rule's matches by: base64 of the SHA-256 of their compact
// JSON, fields in the order of Kuma's Go types.
#include <array>
#include <cstdint>
#include <string>

#include "lib/policy/kuma/kuma.h"

namespace pg::policy::kuma {

namespace {

std::array<std::uint8_t, 32> sha256(const std::string& data) {
  static constexpr std::array<std::uint32_t, 64> k{
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
      0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
      0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
      0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
      0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
      0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
      0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
      0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
      0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
      0xc67178f2};
  std::array<std::uint32_t, 8> h{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::string msg = data;
  const std::uint64_t bits = static_cast<std::uint64_t>(data.size()) * 8;
  msg.push_back(static_cast<char>(0x80));
  while (msg.size() % 64 != 56) msg.push_back('\0');
  for (int i = 7; i >= 0; --i) msg.push_back(static_cast<char>((bits >> (i * 8)) & 0xff));
  auto rotr = [](std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); };
  for (std::size_t chunk = 0; chunk < msg.size(); chunk += 64) {
    std::array<std::uint32_t, 64> w{};
    for (std::size_t i = 0; i < 16; ++i)
      for (std::size_t b = 0; b < 4; ++b)
        w[i] = (w[i] << 8) | static_cast<std::uint8_t>(msg[chunk + i * 4 + b]);
    for (std::size_t i = 16; i < 64; ++i) {
      std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    std::array<std::uint32_t, 8> v = h;
    for (std::size_t i = 0; i < 64; ++i) {
      std::uint32_t s1 = rotr(v[4], 6) ^ rotr(v[4], 11) ^ rotr(v[4], 25);
      std::uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
      std::uint32_t t1 = v[7] + s1 + ch + k[i] + w[i];
      std::uint32_t s0 = rotr(v[0], 2) ^ rotr(v[0], 13) ^ rotr(v[0], 22);
      std::uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
      std::uint32_t t2 = s0 + maj;
      v = {t1 + t2, v[0], v[1], v[2], v[3] + t1, v[4], v[5], v[6]};
    }
    for (std::size_t i = 0; i < 8; ++i) h[i] += v[i];
  }
  std::array<std::uint8_t, 32> out{};
  for (std::size_t i = 0; i < 8; ++i)
    for (std::size_t b = 0; b < 4; ++b)
      out[i * 4 + b] = static_cast<std::uint8_t>(h[i] >> (24 - 8 * b));
  return out;
}

std::string base64(const std::array<std::uint8_t, 32>& bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    std::uint32_t n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    for (int s = 18; s >= 0; s -= 6) out.push_back(kAlphabet[(n >> s) & 63]);
  }
  std::uint32_t n = bytes[i] << 16;
  if (i + 1 < bytes.size()) n |= bytes[i + 1] << 8;
  out.push_back(kAlphabet[(n >> 18) & 63]);
  out.push_back(kAlphabet[(n >> 12) & 63]);
  out.push_back(i + 1 < bytes.size() ? kAlphabet[(n >> 6) & 63] : '=');
  out.push_back('=');
  return out;
}

std::string jsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '<' || c == '>' || c == '&' || u < 0x20) {  // Go's encoding/json escapes
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\u00";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// A conf as Go's encoding/json writes a struct: the fields in `order` that are set, in that
// order; nested values through `nested`.
std::string goObject(const Conf& c, std::initializer_list<std::string_view> order,
                     std::string (*nested)(std::string_view, const Conf&)) {
  std::string out = "{";
  bool first = true;
  for (std::string_view key : order) {
    const Conf* v = c.find(key);
    if (!v || v->type == Conf::Type::Null) continue;
    out += first ? "" : ",";
    first = false;
    out += jsonString(std::string(key)) + ":" + nested(key, *v);
  }
  return out + "}";
}

std::string goValue(const Conf& c) {
  switch (c.type) {
    case Conf::Type::String:
      return jsonString(c.scalar);
    case Conf::Type::Null:
      return "null";
    case Conf::Type::Array: {
      std::string out = "[";
      for (std::size_t i = 0; i < c.items.size(); ++i) out += (i ? "," : "") + goValue(c.items[i]);
      return out + "]";
    }
    default:
      return c.scalar;
  }
}

std::string matchField(std::string_view key, const Conf& v) {
  if (key == "path")
    return goObject(v, {"value", "type"},
                    [](std::string_view, const Conf& x) { return goValue(x); });
  if (key == "queryParams" || key == "headers") {
    std::string out = "[";
    for (std::size_t i = 0; i < v.items.size(); ++i)
      out += (i ? "," : "") + goObject(v.items[i], {"type", "name", "value"},
                                       [](std::string_view, const Conf& x) { return goValue(x); });
    return out + "]";
  }
  return goValue(v);
}

}  // namespace

std::string matchesHash(const Conf& matches) {
  std::string json = "[";
  for (std::size_t i = 0; i < matches.items.size(); ++i)
    json += (i ? "," : "") +
            goObject(matches.items[i], {"path", "method", "queryParams", "headers"}, matchField);
  json += "]";
  return base64(sha256(json));
}

}  // namespace pg::policy::kuma
