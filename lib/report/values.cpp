#include "lib/report/values.h"

#include <charconv>

namespace pg::report::detail {

Json nodeToJson(yaml::NodeRef node) {
  if (node.isMapping()) {
    Json out = Json::object();
    for (auto [k, v] : node.entries())
      if (node.keyNode(k.str()) == k) out[std::string(k.str())] = nodeToJson(v);  // first wins
    return out;
  }
  if (node.isSequence()) {
    Json out = Json::array();
    for (yaml::NodeRef item : node.items()) out.push_back(nodeToJson(item));
    return out;
  }
  if (!node || node.isNull()) return nullptr;
  if (node.isString()) return std::string(node.str());
  if (auto b = node.asBool()) return *b;
  if (auto i = node.asInt()) return *i;
  std::string_view text = node.str();
  double d = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
  if (ec == std::errc() && ptr == text.data() + text.size()) return d;
  return std::string(text);  // .inf and .nan have no JSON form
}

Json valueToJson(const policy::Value& value) {
  if (value.isNode()) return nodeToJson(value.node);
  Json out = Json::object();
  for (const auto& [k, v] : value.entries) out[k] = valueToJson(v);
  return out;
}

void writeYamlValue(yaml::Writer& w, const Json& v) {
  switch (v.type()) {
    case Json::value_t::object:
      w.beginMap();
      for (auto it = v.begin(); it != v.end(); ++it) {
        w.key(it.key());
        writeYamlValue(w, it.value());
      }
      w.endMap();
      break;
    case Json::value_t::array:
      w.beginList();
      for (const Json& e : v) writeYamlValue(w, e);
      w.endList();
      break;
    case Json::value_t::string:
      w.string(v.get<std::string>());
      break;
    case Json::value_t::boolean:
      w.boolean(v.get<bool>());
      break;
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      w.integer(v.get<std::int64_t>());
      break;
    case Json::value_t::number_float:
      w.number(v.get<double>());
      break;
    default:
      w.null();
  }
}

}  // namespace pg::report::detail
