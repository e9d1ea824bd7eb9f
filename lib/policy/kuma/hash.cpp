// The hash Kuma names a MeshHTTPRoute rule's matches by: base64 of the SHA-256 of their compact
// JSON, fields in the order of Kuma's Go types. The digest and the encoding are OpenSSL's.
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "lib/model/encoding.h"
#include "lib/policy/kuma/kuma.h"

namespace pg::policy::kuma {

namespace {

// Standard base64 (with padding) of the SHA-256 of `data`, as Go's base64.StdEncoding writes it.
std::string sha256Base64(const std::string& data) {
  return model::base64(model::sha256(data));
}

std::string jsonString(const std::string& s) {
  return model::goJsonString(s);
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
  return sha256Base64(json);
}

}  // namespace pg::policy::kuma
