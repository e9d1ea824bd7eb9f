#include "lib/units/generators.h"

#include <algorithm>
#include <map>
#include <vector>

#include "lib/model/encoding.h"

namespace pg::units {

namespace {

using yaml::EditNode;
using yaml::NodeRef;

// Secret values as kustomize stores them: base64, broken into lines of 70 characters when
// longer (each line ending in a newline).
std::string secretValue(std::string_view bytes) {
  std::string encoded = model::base64(bytes);
  if (encoded.size() < 70) return encoded;
  std::string out;
  for (std::size_t i = 0; i < encoded.size(); i += 70) out += encoded.substr(i, 70) + "\n";
  return out;
}

struct Pair {
  std::string key;
  std::string value;
  NodeRef at;  // the literal, or the files/envs entry it came from
};

}  // namespace

Generated generate(NodeRef entry, bool secret, NodeRef options, const ReadInput& read) {
  Generated out;
  out.name = std::string(entry.get("name").str());
  out.namespace_ = std::string(entry.get("namespace").str());
  out.behavior = entry.get("behavior") ? std::string(entry.get("behavior").str()) : "create";
  if (out.name.empty()) out.error = "a generator entry needs a name";
  std::vector<Pair> pairs;
  // kustomize reads env files, then literals, then files (api/kv).
  std::vector<NodeRef> envs;
  for (NodeRef e : entry.get("envs").items()) envs.push_back(e);
  if (NodeRef env = entry.get("env"); env.isScalar() && !env.isNull()) envs.push_back(env);
  for (NodeRef e : envs) {
    std::string error;
    std::optional<std::string> text = read(std::string(e.str()), error);
    if (!text) {
      out.error = "env file " + std::string(e.str()) + ": " + error;
      continue;
    }
    std::string_view rest = *text;
    if (rest.starts_with("\xEF\xBB\xBF")) rest.remove_prefix(3);
    while (!rest.empty()) {
      std::size_t nl = rest.find('\n');
      std::string_view line = rest.substr(0, nl);
      rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
      while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
      if (line.ends_with('\r')) line.remove_suffix(1);
      if (line.empty() || line.front() == '#') continue;
      std::size_t eq = line.find('=');
      pairs.push_back(
          {std::string(line.substr(0, eq)),
           eq == std::string_view::npos ? std::string() : std::string(line.substr(eq + 1)), e});
    }
  }
  for (NodeRef literal : entry.get("literals").items()) {
    std::string_view text = literal.str();
    std::size_t eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      out.error = "literal " + std::string(text) + " is not KEY=VALUE";
      continue;
    }
    std::string_view value = text.substr(eq + 1);
    if (value.size() >= 2 && value.front() == value.back() &&
        (value.front() == '"' || value.front() == '\''))
      value = value.substr(1, value.size() - 2);
    pairs.push_back({std::string(text.substr(0, eq)), std::string(value), literal});
  }
  for (NodeRef file : entry.get("files").items()) {
    std::string_view spec = file.str();
    std::size_t eq = spec.find('=');
    std::string key, path;
    if (eq == std::string_view::npos) {
      path = std::string(spec);
      key = path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1);
    } else {
      key = std::string(spec.substr(0, eq));
      path = std::string(spec.substr(eq + 1));
    }
    if (key.empty() || path.empty()) {
      out.error = "file source " + std::string(spec) + " needs a key and a path";
      continue;
    }
    std::string error;
    std::optional<std::string> text = read(path, error);
    if (!text) {
      out.error = "file " + path + ": " + error;
      continue;
    }
    pairs.push_back({key, std::move(*text), file});
  }
  std::map<std::string, const Pair*> sorted;
  for (const Pair& p : pairs)
    if (!sorted.emplace(p.key, &p).second && out.error.empty())
      out.error = "the key " + p.key + " is repeated";

  // Options: the entry's, over generatorOptions (whose disableNameSuffixHash and immutable
  // cannot be turned off locally).
  auto option = [&](std::string_view key) {
    NodeRef local = entry.get("options").get(key);
    return local ? local : options.get(key);
  };
  out.hashed = !(options.get("disableNameSuffixHash").asBool().value_or(false) ||
                 entry.get("options").get("disableNameSuffixHash").asBool().value_or(false));

  EditNode obj = EditNode::mapping(entry);
  obj.set("apiVersion", EditNode::scalar("v1", entry));
  obj.set("kind", EditNode::scalar(secret ? "Secret" : "ConfigMap", entry));
  EditNode& meta = obj.child("metadata", entry);
  meta.set("name", EditNode::scalar(out.name, entry.get("name") ? entry.get("name") : entry));
  if (!out.namespace_.empty())
    meta.set("namespace", EditNode::scalar(out.namespace_, entry.get("namespace")));
  for (std::string_view which : {"labels", "annotations"}) {
    std::map<std::string, NodeRef> merged;
    for (auto [k, v] : options.get(which).entries()) merged[std::string(k.str())] = v;
    for (auto [k, v] : entry.get("options").get(which).entries()) merged[std::string(k.str())] = v;
    if (merged.empty()) continue;
    EditNode& map = meta.child(which, entry);
    for (const auto& [k, v] : merged) map.set(k, EditNode::copy(v));
  }
  if (secret)
    obj.set("type", EditNode::scalar(entry.get("type") ? std::string(entry.get("type").str())
                                                       : std::string("Opaque"),
                                     entry));
  EditNode data = EditNode::mapping(entry);
  EditNode binary = EditNode::mapping(entry);
  for (const auto& [key, pair] : sorted) {
    if (secret) {
      data.set(key,
               EditNode::scalar(secretValue(pair->value), pair->at, yaml::ScalarStyle::Quoted));
    } else if (model::validUtf8(pair->value)) {
      data.set(key, EditNode::scalar(pair->value, pair->at, yaml::ScalarStyle::Quoted));
    } else {
      binary.set(key,
                 EditNode::scalar(model::base64(pair->value), pair->at, yaml::ScalarStyle::Quoted));
    }
  }
  if (data.size() > 0) obj.set("data", std::move(data));
  if (binary.size() > 0) obj.set("binaryData", std::move(binary));
  if (option("immutable").asBool().value_or(false))
    obj.set("immutable", EditNode::scalar("true", entry));
  out.object = std::move(obj);
  return out;
}

std::string contentHash(const EditNode& object, std::string_view name) {
  // {"binaryData":..,"data":..,"kind":..,"name":..,"stringData":..,"type":..}: Go's
  // encoding/json sorts map keys; an absent field is "".
  auto map = [](const EditNode* m) {
    if (!m || !m->isMapping()) return std::string("\"\"");
    std::map<std::string, std::string> sorted;
    for (std::size_t i = 0; i + 1 < m->children.size(); i += 2)
      sorted[m->children[i].text] = m->children[i + 1].text;
    std::string out = "{";
    for (const auto& [k, v] : sorted)
      out += (out.size() > 1 ? "," : "") + model::goJsonString(k) + ":" + model::goJsonString(v);
    return out + "}";
  };
  const EditNode* kind = object.get("kind");
  const bool secret = kind && kind->text == "Secret";
  std::string json = "{";
  if (!secret && object.get("binaryData"))
    json += "\"binaryData\":" + map(object.get("binaryData")) + ",";
  json += "\"data\":" + map(object.get("data")) + ",";
  json += "\"kind\":" + model::goJsonString(kind ? kind->text : std::string()) + ",";
  json += "\"name\":" + model::goJsonString(name);
  if (secret) {
    if (object.get("stringData")) json += ",\"stringData\":" + map(object.get("stringData"));
    const EditNode* type = object.get("type");
    json += ",\"type\":" + model::goJsonString(type ? type->text : std::string());
  }
  json += "}";
  std::string hex = model::sha256Hex(json).substr(0, 10);
  for (char& c : hex) {
    switch (c) {
      case '0':
        c = 'g';
        break;
      case '1':
        c = 'h';
        break;
      case '3':
        c = 'k';
        break;
      case 'a':
        c = 'm';
        break;
      case 'e':
        c = 't';
        break;
      default:
        break;
    }
  }
  return hex;
}

}  // namespace pg::units
