#include "lib/model/secret.h"

namespace pg::model {

std::string decodeBase64(std::string_view text) {
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  for (char c : text) {
    int v;
    if (c >= 'A' && c <= 'Z')
      v = c - 'A';
    else if (c >= 'a' && c <= 'z')
      v = c - 'a' + 26;
    else if (c >= '0' && c <= '9')
      v = c - '0' + 52;
    else if (c == '+')
      v = 62;
    else if (c == '/')
      v = 63;
    else if (c == '=' || c == '\n' || c == '\r' || c == ' ')
      continue;
    else
      return {};
    buffer = (buffer << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xFF);
    }
  }
  return out;
}

std::string secretValue(const Resource& secret, std::string_view key) {
  if (yaml::NodeRef plain = secret.node.get("stringData").get(key)) return std::string(plain.str());
  return decodeBase64(secret.node.get("data").get(key).str());
}

bool secretHasKey(const Resource& secret, std::string_view key) {
  return secret.node.get("stringData").get(key) || secret.node.get("data").get(key);
}

}  // namespace pg::model
