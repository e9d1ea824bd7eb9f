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

namespace {

void writeLaidOut(yaml::Writer& w, const Json& v, const YamlLayout& layout,
                  const std::string& field) {
  const std::string* comment = nullptr;
  YamlLayout below = layout;
  if (layout.comments) {
    if (auto it = layout.comments->find(field); it != layout.comments->end()) {
      comment = &it->second;
      below.comments = nullptr;
    }
  }
  const bool empty = v.is_structured() && v.empty();
  const bool block = v.is_structured() && !(empty && layout.inlineEmpty);
  if (comment && block) w.comment(*comment);
  switch (v.type()) {
    case Json::value_t::object:
      if (empty && layout.inlineEmpty) {
        w.emptyMap();
        break;
      }
      w.beginMap();
      for (auto it = v.begin(); it != v.end(); ++it) {
        w.key(it.key());
        // Field paths are built only where a comment may be looked up: status and explain
        // documents can be large.
        writeLaidOut(w, it.value(), below,
                     below.comments ? policy::joinField(field, it.key()) : std::string());
      }
      w.endMap();
      break;
    case Json::value_t::array:
      if (empty && layout.inlineEmpty) {
        w.emptyList();
        break;
      }
      if (!layout.listIndexes) below.comments = nullptr;  // provenance never points into a list
      w.beginList();
      for (std::size_t i = 0; i < v.size(); ++i)
        writeLaidOut(w, v[i], below,
                     below.comments ? field + "[" + std::to_string(i) + "]" : field);
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
  if (comment && !block) w.comment(*comment);
}

}  // namespace

void writeYamlValue(yaml::Writer& w, const Json& v, const YamlLayout& layout) {
  writeLaidOut(w, v, layout, {});
}

}  // namespace pg::report::detail
