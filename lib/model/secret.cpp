#include "lib/model/secret.h"

#include "lib/model/encoding.h"

namespace pg::model {

std::string secretValue(const Resource& secret, std::string_view key) {
  if (yaml::NodeRef plain = secret.node.get("stringData").get(key)) return std::string(plain.str());
  return decodeBase64(secret.node.get("data").get(key).str());
}

bool secretHasKey(const Resource& secret, std::string_view key) {
  return secret.node.get("stringData").get(key) || secret.node.get("data").get(key);
}

}  // namespace pg::model
