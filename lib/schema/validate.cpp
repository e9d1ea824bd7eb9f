#include "lib/schema/validate.h"

#include <re2/re2.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <memory>

#include "lib/model/parallel.h"
#include "lib/model/quote.h"
#include "lib/yaml/parser.h"

namespace pg::schema {

namespace {

// ObjectMeta as a client may write it; the API server validates it for every kind, whatever
// the CRD's schema says of `metadata`.
constexpr std::string_view kObjectMeta = R"(kind: CustomResourceDefinition
spec:
  group: meta
  names: {kind: ObjectMeta}
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        type: object
        properties:
          name: {type: string}
          generateName: {type: string}
          namespace: {type: string}
          labels: {type: object, additionalProperties: {type: string}}
          annotations: {type: object, additionalProperties: {type: string}}
          finalizers: {type: array, items: {type: string}}
          ownerReferences:
            type: array
            items:
              type: object
              required: [apiVersion, kind, name, uid]
              properties:
                apiVersion: {type: string}
                kind: {type: string}
                name: {type: string}
                uid: {type: string}
                controller: {type: boolean}
                blockOwnerDeletion: {type: boolean}
          uid: {type: string}
          resourceVersion: {type: string}
          generation: {type: integer, format: int64}
          creationTimestamp: {type: string, nullable: true}
          deletionTimestamp: {type: string, nullable: true}
          deletionGracePeriodSeconds: {type: integer, format: int64}
          selfLink: {type: string}
          managedFields: {type: array, items: {type: object, x-kubernetes-preserve-unknown-fields: true}}
)";

const Node& objectMeta() {
  struct Compiled {
    std::unique_ptr<yaml::Tree> tree;  // the schema's nodes point into it
    std::unique_ptr<KindSchema> schema;
  };
  // Compiled once, kept for the program's life and freed at exit (so a leak checker sees none).
  static const Compiled compiled = [] {
    Compiled c;
    c.tree = yaml::parse(std::string(kObjectMeta), yaml::ParseLimits{}, true).tree;
    c.schema = compileCrd(c.tree->root(0), "built in");
    return c;
  }();
  return *compiled.schema->versions.front().root;
}

bool isNumber(yaml::NodeRef n) {
  if (!n.isScalar() || n.isString() || n.isNull() || n.asBool()) return false;
  return true;  // YAML typed it as an integer or a float
}

// A value as the API server quotes it: strings in quotes, numbers and booleans as they are.
std::string quoted(yaml::NodeRef n) {
  if (n.isMapping()) return "\"object\"";
  if (n.isSequence()) return "\"array\"";
  if (!n.isString()) return std::string(n.str());
  return model::quoted(n.str());
}

std::size_t characters(std::string_view s) {
  std::size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

bool validIpv4(std::string_view s) {
  int parts = 0;
  while (true) {
    std::size_t dot = s.find('.');
    std::string_view part = s.substr(0, dot);
    if (part.empty() || part.size() > 3 || (part.size() > 1 && part[0] == '0')) return false;
    int v = 0;
    auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (ec != std::errc() || p != part.data() + part.size() || v > 255) return false;
    ++parts;
    if (dot == std::string_view::npos) break;
    s.remove_prefix(dot + 1);
  }
  return parts == 4;
}

bool validIpv6(std::string_view s) {
  if (s.size() < 2 || s.find(":::") != std::string_view::npos) return false;
  std::size_t doubleColon = s.find("::");
  if (doubleColon != std::string_view::npos && s.find("::", doubleColon + 1) != s.npos)
    return false;
  int groups = 0;
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t colon = s.find(':', i);
    std::string_view part = s.substr(i, colon == s.npos ? s.npos : colon - i);
    if (!part.empty()) {
      if (colon == s.npos && part.find('.') != part.npos) {
        if (!validIpv4(part)) return false;
        groups += 2;
        break;
      }
      if (part.size() > 4) return false;
      for (char c : part)
        if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
      ++groups;
    }
    if (colon == s.npos) break;
    i = colon + 1;
  }
  return doubleColon != s.npos ? groups < 8 : groups == 8;
}

// The formats the API server checks (kube-openapi's registry); others are not checked.
bool formatOk(std::string_view format, yaml::NodeRef value) {
  std::string_view s = value.str();
  if (format == "int32") {
    std::optional<std::int64_t> v = value.asInt();
    return !v || (*v >= INT32_MIN && *v <= INT32_MAX);
  }
  if (format == "ipv4") return validIpv4(s);
  if (format == "ipv6") return validIpv6(s);
  if (format == "byte") {
    if (s.size() % 4 != 0) return false;
    for (std::size_t i = 0; i < s.size(); ++i) {
      char c = s[i];
      bool pad = c == '=' && i + 2 >= s.size();
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '/' && !pad)
        return false;
    }
    return true;
  }
  if (format == "uuid") {
    if (s.size() != 36) return false;
    for (std::size_t i = 0; i < s.size(); ++i) {
      bool dash = i == 8 || i == 13 || i == 18 || i == 23;
      if (dash ? s[i] != '-' : !std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
    }
    return true;
  }
  return true;
}

struct Segment {
  std::string_view key;
  std::size_t index = 0;
  bool isIndex = false;
};

class Walker {
 public:
  Walker(const model::Resource& object, std::size_t index, std::vector<Violation>& out)
      : object_(object), index_(index), out_(out) {
    path_.reserve(32);
  }

  void object(const Node& root) {
    yaml::NodeRef obj = object_.node;
    for (auto [key, value] : obj.entries()) {
      std::string_view k = key.str();
      if (k == "apiVersion" || k == "kind") continue;
      path_.push_back({k});
      if (k == "metadata") {
        walk(value, objectMeta());
      } else if (k == "status") {
        // A subresource: the API server discards it on create and update.
      } else if (const Node* p = root.property(k)) {
        walk(value, *p);
      } else if (!root.preserveUnknown) {
        unknown(key, root);
      }
      path_.pop_back();
    }
    required(obj, root);
  }

 private:
  std::string pathText() const {
    std::string out;
    for (const Segment& s : path_) {
      if (s.isIndex) {
        out += '[';
        out += std::to_string(s.index);
        out += ']';
      } else {
        if (!out.empty()) out += '.';
        out += s.key;
      }
    }
    return out;
  }

  void report(Code code, yaml::NodeRef at, std::string message, std::string suggestion = {}) {
    Violation v;
    v.code = code;
    v.object = index_;
    v.location = object_.locate(at);
    v.path = pathText();
    v.message = v.path + ": " + message;
    v.suggestion = std::move(suggestion);
    out_.push_back(std::move(v));
  }

  void invalid(yaml::NodeRef value, const std::string& why) {
    report(Code::InvalidValue, value, "Invalid value: " + quoted(value) + ": " + why);
  }

  void unknown(yaml::NodeRef key, const Node& parent) {
    std::vector<std::string_view> names;
    names.reserve(parent.properties.size());
    for (const auto& p : parent.properties) names.push_back(p.first);
    std::string_view close = closestName(key.str(), names);
    std::string path = pathText();
    Violation v;
    v.code = Code::UnknownField;
    v.object = index_;
    v.location = object_.locate(key);
    v.path = path;
    v.message = "unknown field \"" + path + "\"";
    v.suggestion = std::string(close);
    out_.push_back(std::move(v));
  }

  void required(yaml::NodeRef map, const Node& s) {
    for (std::string_view r : s.required) {
      yaml::NodeRef v = map.get(r);
      if (v && !(v.isNull() && v.style() == yaml::ScalarStyle::Plain)) continue;
      path_.push_back({r});
      report(Code::Required, v ? map.keyNode(r) : map, "Required value");
      path_.pop_back();
    }
  }

  void typeError(yaml::NodeRef value, const char* expected) {
    invalid(value, pathText() + " in body must be of type " + expected + ": " + quoted(value));
  }

  void walk(yaml::NodeRef value, const Node& s) {
    if (value.isScalar() && value.isNull() && value.style() == yaml::ScalarStyle::Plain) {
      // Null in a field that is not nullable is pruned before validation; nothing to check.
      return;
    }
    if (s.intOrString) {
      if (!value.isScalar() || !(value.isString() || value.asInt())) {
        typeError(value, "integer,string");
        return;
      }
      scalarChecks(value, s, value.isString());
      return;
    }
    switch (s.type) {
      case Type::Object:
        if (!value.isMapping()) return typeError(value, "object");
        return mapping(value, s);
      case Type::Array:
        if (!value.isSequence()) return typeError(value, "array");
        return sequence(value, s);
      case Type::String:
        if (!value.isScalar() || !value.isString()) return typeError(value, "string");
        return scalarChecks(value, s, true);
      case Type::Integer:
        if (!value.isScalar() || !value.asInt() || value.isString())
          return typeError(value, "integer");
        return scalarChecks(value, s, false);
      case Type::Number:
        if (!isNumber(value)) return typeError(value, "number");
        return scalarChecks(value, s, false);
      case Type::Boolean:
        if (!value.isScalar() || !value.asBool() || value.isString())
          return typeError(value, "boolean");
        return;
      case Type::Any:
        if (value.isMapping()) return mapping(value, s);
        if (value.isSequence() && s.items) return sequence(value, s);
        if (value.isScalar()) return scalarChecks(value, s, value.isString());
        return;
    }
  }

  void mapping(yaml::NodeRef map, const Node& s) {
    bool open = s.preserveUnknown || (s.type == Type::Any && s.properties.empty() &&
                                      !s.additionalProperties);
    for (auto [key, value] : map.entries()) {
      std::string_view k = key.str();
      path_.push_back({k});
      if (const Node* p = s.property(k)) {
        walk(value, *p);
      } else if (s.additionalProperties) {
        walk(value, *s.additionalProperties);
      } else if (s.embeddedResource && (k == "apiVersion" || k == "kind")) {
      } else if (s.embeddedResource && k == "metadata") {
        walk(value, objectMeta());
      } else if (!open) {
        unknown(key, s);
      }
      path_.pop_back();
    }
    required(map, s);
    std::int64_t n = static_cast<std::int64_t>(map.size());
    if (s.maxProperties && n > *s.maxProperties)
      report(Code::InvalidValue, map,
             "Too many: " + std::to_string(n) + ": must have at most " +
                 std::to_string(*s.maxProperties) + " items");
    if (s.minProperties && n < *s.minProperties)
      invalid(map, pathText() + " in body should have at least " +
                       std::to_string(*s.minProperties) + " properties");
  }

  // The text of a list item's map keys, for duplicates: {"name":"a","port":80}.
  static std::string keyText(yaml::NodeRef item, const std::vector<std::string_view>& keys) {
    std::string out = "{";
    for (std::string_view k : keys) {
      yaml::NodeRef v = item.get(k);
      if (!v) continue;
      if (out.size() > 1) out += ',';
      out += '"';
      out += k;
      out += "\":";
      out += quoted(v);
    }
    return out + "}";
  }

  void sequence(yaml::NodeRef seq, const Node& s) {
    std::size_t i = 0;
    for (yaml::NodeRef item : seq.items()) {
      path_.push_back({{}, i, true});
      if (s.items) walk(item, *s.items);
      if (s.listType == ListType::Set && item.isScalar()) {
        for (std::size_t j = 0; j < i; ++j) {
          yaml::NodeRef earlier = seq.at(j);
          if (earlier.isScalar() && earlier.str() == item.str() &&
              earlier.isString() == item.isString()) {
            report(Code::InvalidValue, item, "Duplicate value: " + quoted(item));
            break;
          }
        }
      } else if (s.listType == ListType::Map && item.isMapping() && !s.mapKeys.empty()) {
        for (std::size_t j = 0; j < i; ++j) {
          yaml::NodeRef earlier = seq.at(j);
          bool same = earlier.isMapping();
          for (std::string_view k : s.mapKeys) {
            if (!same) break;
            // An absent key compares as its default (a Service port without protocol is TCP).
            const Node* key = s.items ? s.items->property(k) : nullptr;
            yaml::NodeRef fallback = key ? key->defaultValue : yaml::NodeRef();
            yaml::NodeRef a = earlier.get(k);
            yaml::NodeRef b = item.get(k);
            if (!a) a = fallback;
            if (!b) b = fallback;
            same = (!a && !b) || (a && b && a.str() == b.str());
          }
          if (same) {
            report(Code::InvalidValue, item, "Duplicate value: " + keyText(item, s.mapKeys));
            break;
          }
        }
      }
      path_.pop_back();
      ++i;
    }
    std::int64_t n = static_cast<std::int64_t>(seq.size());
    if (s.maxItems && n > *s.maxItems)
      report(Code::InvalidValue, seq,
             "Too many: " + std::to_string(n) + ": must have at most " +
                 std::to_string(*s.maxItems) + " items");
    if (s.minItems && n < *s.minItems)
      invalid(seq, pathText() + " in body should have at least " + std::to_string(*s.minItems) +
                       " items");
  }

  // `isString`: the value is a string (the caller knows already; asking again parses it).
  void scalarChecks(yaml::NodeRef value, const Node& s, bool isString) {
    if (!s.enumValues.empty()) {
      bool found = false;
      for (yaml::NodeRef e : s.enumValues)
        if (e.str() == value.str() && e.isString() == isString) found = true;
      if (!found) {
        std::string supported;
        for (yaml::NodeRef e : s.enumValues) {
          if (!supported.empty()) supported += ", ";
          supported += quoted(e);
        }
        report(Code::InvalidValue, value,
               "Unsupported value: " + quoted(value) + ": supported values: " + supported);
        return;
      }
    }
    if (isString) {
      std::string_view text = value.str();
      std::size_t length = 0;
      if (s.maxLength || s.minLength) length = characters(text);
      if (s.maxLength && static_cast<std::int64_t>(length) > *s.maxLength)
        report(Code::InvalidValue, value,
               "Too long: may not be more than " + std::to_string(*s.maxLength) + " bytes");
      if (s.minLength && static_cast<std::int64_t>(length) < *s.minLength)
        invalid(value, pathText() + " in body should be at least " +
                           std::to_string(*s.minLength) + " chars long");
      if (s.regex && !RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *s.regex))
        invalid(value, pathText() + " in body should match '" + std::string(s.pattern) + "'");
      if (!s.format.empty() && !formatOk(s.format, value))
        invalid(value, pathText() + " in body must be of type " + std::string(s.format) + ": " +
                           quoted(value));
    } else if (!value.isNull() && !value.asBool()) {
      double v = 0;
      std::string_view text = value.str();
      if (std::optional<std::int64_t> i = value.asInt()) {
        v = static_cast<double>(*i);
      } else {
        auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc()) return;
      }
      auto bound = [](double b) {
        if (b == std::floor(b) && std::fabs(b) < 1e15)
          return std::to_string(static_cast<std::int64_t>(b));
        return std::to_string(b);
      };
      if (s.minimum && (s.exclusiveMinimum ? v <= *s.minimum : v < *s.minimum))
        invalid(value, pathText() + " in body should be greater than " +
                           (s.exclusiveMinimum ? "" : "or equal to ") + bound(*s.minimum));
      if (s.maximum && (s.exclusiveMaximum ? v >= *s.maximum : v > *s.maximum))
        invalid(value, pathText() + " in body should be less than " +
                           (s.exclusiveMaximum ? "" : "or equal to ") + bound(*s.maximum));
      if (!s.format.empty() && !formatOk(s.format, value))
        invalid(value, pathText() + " in body must be of type " + std::string(s.format) + ": " +
                           quoted(value));
    }
  }

  const model::Resource& object_;
  std::size_t index_;
  std::vector<Violation>& out_;
  std::vector<Segment> path_;
};

}  // namespace

std::size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string_view closestName(std::string_view name,
                             const std::vector<std::string_view>& candidates) {
  std::string_view best;
  std::size_t bestDistance = 0;
  for (std::string_view c : candidates) {
    std::size_t d = editDistance(name, c);
    if (best.empty() || d < bestDistance || (d == bestDistance && c < best)) {
      best = c;
      bestDistance = d;
    }
  }
  std::size_t limit = std::max<std::size_t>(1, std::min<std::size_t>(3, name.size() / 3));
  return !best.empty() && bestDistance <= limit ? best : std::string_view();
}

void validateObject(const model::Resource& object, const VersionSchema& version,
                    std::size_t index, std::vector<Violation>& out) {
  if (!version.root) return;
  Walker(object, index, out).object(*version.root);
}

Result validateAll(const std::vector<model::Resource>& objects, Registry& registry,
                   unsigned jobs) {
  for (const model::Resource& r : objects) {
    if (r.group == "apiextensions.k8s.io" && r.kind == "CustomResourceDefinition")
      registry.add(r.node, "CustomResourceDefinition " + std::string(r.name) + " (" +
                               (r.file ? r.file->path : std::string("-")) + ")");
  }
  Result result;
  result.refused.assign(objects.size(), false);
  std::vector<std::vector<Violation>> perObject(objects.size());
  unsigned workers = model::workersFor(jobs, objects.size(), 256);
  model::parallelFor(workers, objects.size(), [&](std::size_t i, unsigned) {
    const model::Resource& r = objects[i];
    if (r.universal || r.kind.empty()) return;
    const KindSchema* kind = registry.find(r.group, r.kind);
    if (!kind) return;
    std::vector<Violation>& out = perObject[i];
    const VersionSchema* version = kind->version(r.version);
    yaml::NodeRef apiVersion = r.node.get("apiVersion");
    if (!version || !version->served) {
      Violation v;
      v.code = Code::VersionNotServed;
      v.object = i;
      v.location = r.locate(apiVersion);
      v.path = "apiVersion";
      v.message = "no matches for kind \"" + std::string(r.kind) + "\" in version \"" +
                  std::string(r.apiVersion) + "\"";
      v.suggestion = kind->servedVersions();
      out.push_back(std::move(v));
      return;
    }
    if (version->deprecated) {
      Violation v;
      v.code = Code::DeprecatedVersion;
      v.object = i;
      v.location = r.locate(apiVersion);
      v.path = "apiVersion";
      v.message = version->deprecationWarning.empty()
                      ? std::string(r.apiVersion) + " " + std::string(r.kind) + " is deprecated"
                      : std::string(version->deprecationWarning);
      v.suggestion = kind->servedVersions();
      out.push_back(std::move(v));
    }
    validateObject(r, *version, i, out);
  });
  for (std::size_t i = 0; i < perObject.size(); ++i) {
    for (Violation& v : perObject[i]) {
      if (v.code != Code::DeprecatedVersion) result.refused[i] = true;
      result.violations.push_back(std::move(v));
    }
  }
  return result;
}

}  // namespace pg::schema
