#include "lib/schema/validate.h"

#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <unordered_map>

#include "lib/cel/direct.h"
#include "lib/cel/reads.h"
#include "lib/model/hash.h"
#include "lib/model/parallel.h"
#include "lib/model/quote.h"
#include "lib/schema/defaults.h"
#include "lib/schema/names.h"
#include "lib/schema/seed_fields.h"
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

// The length in characters (what the API server's length bounds count): bytes that do not
// continue a UTF-8 sequence. Nearly every value is ASCII, found eight bytes at a time.
std::size_t characters(std::string_view s) {
  std::uint64_t high = 0;
  std::size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    std::uint64_t w = 0;
    std::memcpy(&w, s.data() + i, 8);
    high |= w;
  }
  for (; i < s.size(); ++i) high |= static_cast<unsigned char>(s[i]);
  if ((high & 0x8080808080808080ULL) == 0) return s.size();
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
    // Go's base64 decoder, which the API server uses, skips line breaks: a PEM-style value
    // wrapped over several lines is valid.
    std::string joined;
    if (s.find_first_of("\r\n") != std::string_view::npos) {
      for (char c : s)
        if (c != '\r' && c != '\n') joined += c;
      s = joined;
    }
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

bool prunedNull(yaml::NodeRef n) {
  return n.isScalar() && n.isNull() && n.style() == yaml::ScalarStyle::Plain;
}

// A scalar's number, for bounds: none for null, a boolean or text that is not a number.
std::optional<double> numericValue(yaml::NodeRef value) {
  if (value.isNull() || value.asBool()) return std::nullopt;
  if (std::optional<std::int64_t> i = value.asInt()) return static_cast<double>(*i);
  std::string_view text = value.str();
  double v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc()) return std::nullopt;
  return v;
}

// A bound as the messages write it: 100, not 100.000000.
std::string boundText(double b) {
  if (b == std::floor(b) && std::fabs(b) < 1e15)
    return std::to_string(static_cast<std::int64_t>(b));
  return std::to_string(b);
}

bool belowMinimum(const Node& s, double v) {
  return s.minimum && (s.exclusiveMinimum ? v <= *s.minimum : v < *s.minimum);
}

bool aboveMaximum(const Node& s, double v) {
  return s.maximum && (s.exclusiveMaximum ? v >= *s.maximum : v > *s.maximum);
}

// `isString`: the value is a string (the caller knows already; asking again parses it).
bool inEnum(const Node& s, yaml::NodeRef value, bool isString) {
  for (yaml::NodeRef e : s.enumValues)
    if (e.str() == value.str() && e.isString() == isString) return true;
  return false;
}

// Whether `value` has the type `s` declares (any value when it declares none).
bool hasType(yaml::NodeRef value, const Node& s) {
  if (s.intOrString) return value.isScalar() && (value.isString() || value.asInt());
  switch (s.type) {
    case Type::Object:
      return value.isMapping();
    case Type::Array:
      return value.isSequence();
    case Type::String:
      return value.isScalar() && value.isString();
    case Type::Integer:
      return value.isScalar() && value.asInt() && !value.isString();
    case Type::Number:
      return isNumber(value);
    case Type::Boolean:
      return value.isScalar() && value.asBool() && !value.isString();
    case Type::Any:
      return true;
  }
  return true;
}

// The type `s` declares, as the API server's type errors name it.
std::string_view typeName(const Node& s) {
  if (s.intOrString) return "integer,string";
  switch (s.type) {
    case Type::Object:
      return "object";
    case Type::Array:
      return "array";
    case Type::String:
      return "string";
    case Type::Integer:
      return "integer";
    case Type::Number:
      return "number";
    case Type::Boolean:
      return "boolean";
    case Type::Any:
      break;
  }
  return "";
}

// Whether `text` matches a schema pattern (RE2's PartialMatch, as ECMA's `test`).
bool patternMatches(const RE2& re, std::string_view text) {
  return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), re);
}

bool satisfiesJunctors(yaml::NodeRef value, const Node& s, const Node* outer, unsigned depth);

// Whether `value` meets the value validations of `s`, an alternative under allOf, anyOf,
// oneOf or not, as the API server checks it: on the value as it is after defaulting (an
// absent field the structural schema `outer` defaults counts with its default), without
// allocating. Unknown fields are no concern of an alternative (it adds constraints only).
bool satisfies(yaml::NodeRef value, const Node& s, const Node* outer, unsigned depth) {
  if (depth > 64) return true;  // deeper than any real schema: not judged
  if (!hasType(value, s)) return false;
  if (value.isMapping()) {
    for (std::string_view r : s.required) {
      yaml::NodeRef v = value.get(r);
      if (v && !prunedNull(v)) continue;
      const Node* property = outer != nullptr ? outer->property(r) : nullptr;
      if (property == nullptr || !property->defaultValue) return false;
    }
    auto n = static_cast<std::int64_t>(value.size());
    if ((s.maxProperties && n > *s.maxProperties) || (s.minProperties && n < *s.minProperties))
      return false;
    for (const auto& [name, sub] : s.properties) {
      yaml::NodeRef v = value.get(name);
      const Node* property = outer != nullptr ? outer->property(name) : nullptr;
      if (!v || prunedNull(v)) {
        if (property == nullptr || !property->defaultValue) continue;
        v = property->defaultValue;
      }
      if (!satisfies(v, *sub, property, depth + 1)) return false;
    }
    if (s.additionalProperties != nullptr) {
      const Node* values = outer != nullptr ? outer->additionalProperties : nullptr;
      for (auto [key, v] : value.entries())
        if (s.property(key.str()) == nullptr && !prunedNull(v) &&
            !satisfies(v, *s.additionalProperties, values, depth + 1))
          return false;
    }
  } else if (value.isSequence()) {
    auto n = static_cast<std::int64_t>(value.size());
    if ((s.maxItems && n > *s.maxItems) || (s.minItems && n < *s.minItems)) return false;
    if (s.items != nullptr) {
      const Node* items = outer != nullptr ? outer->items : nullptr;
      for (yaml::NodeRef item : value.items())
        if (!prunedNull(item) && !satisfies(item, *s.items, items, depth + 1)) return false;
    }
  } else if (value.isScalar()) {
    bool isString = value.isString();
    if (!s.enumValues.empty() && !inEnum(s, value, isString)) return false;
    if (isString) {
      std::string_view text = value.str();
      if (s.maxLength || s.minLength) {
        auto length = static_cast<std::int64_t>(characters(text));
        if ((s.maxLength && length > *s.maxLength) || (s.minLength && length < *s.minLength))
          return false;
      }
      if (s.regex && !patternMatches(*s.regex, text)) return false;
      if (!s.format.empty() && !formatOk(s.format, value)) return false;
    } else if (std::optional<double> v = numericValue(value)) {
      if (belowMinimum(s, *v) || aboveMaximum(s, *v)) return false;
      if (!s.format.empty() && !formatOk(s.format, value)) return false;
    }
  }
  return !s.junctors || satisfiesJunctors(value, s, outer, depth);
}

// How many of `alternatives` `value` satisfies, stopping once it reaches `enough`.
std::size_t countSatisfied(yaml::NodeRef value, const std::vector<const Node*>& alternatives,
                           const Node* outer, unsigned depth, std::size_t enough) {
  std::size_t n = 0;
  for (const Node* a : alternatives)
    if (satisfies(value, *a, outer, depth + 1) && ++n >= enough) break;
  return n;
}

bool satisfiesJunctors(yaml::NodeRef value, const Node& s, const Node* outer, unsigned depth) {
  if (countSatisfied(value, s.allOf, outer, depth, s.allOf.size() + 1) != s.allOf.size())
    return false;
  if (!s.anyOf.empty() && countSatisfied(value, s.anyOf, outer, depth, 1) == 0) return false;
  if (!s.oneOf.empty() && countSatisfied(value, s.oneOf, outer, depth, 2) != 1) return false;
  return s.notSchema == nullptr || !satisfies(value, *s.notSchema, outer, depth + 1);
}

// What an alternative asks of a value, for the advice of a finding: `sets podSelector`,
// `type is "IPAddress" and value (has format ipv4 or has format ipv6)`.
std::string describe(const Node& s, unsigned depth = 0);

std::string quotedList(const std::vector<yaml::NodeRef>& values) {
  std::string out;
  for (yaml::NodeRef e : values) {
    if (!out.empty()) out += ", ";
    out += e.isString() ? model::quoted(e.str()) : std::string(e.str());
  }
  return out;
}

std::string describeAlternatives(const std::vector<const Node*>& alternatives,
                                 std::string_view separator, unsigned depth) {
  std::string out;
  for (const Node* a : alternatives) {
    if (!out.empty()) out += separator;
    out += describe(*a, depth + 1);
  }
  return out;
}

std::string describe(const Node& s, unsigned depth) {
  if (depth > 8) return "...";
  std::vector<std::string> parts;
  if (s.intOrString) {
    parts.emplace_back("is an integer or a string");
  } else if (s.type != Type::Any) {
    constexpr const char* kNames[] = {"",           "an object", "an array", "a string",
                                      "an integer", "a number",  "a boolean"};
    parts.push_back(std::string("is ") + kNames[static_cast<int>(s.type)]);
  }
  if (s.enumValues.size() == 1) parts.push_back("is " + quotedList(s.enumValues));
  if (s.enumValues.size() > 1) parts.push_back("is one of " + quotedList(s.enumValues));
  if (!s.pattern.empty()) parts.push_back("matches '" + std::string(s.pattern) + "'");
  if (!s.format.empty()) parts.push_back("has format " + std::string(s.format));
  if (s.minLength)
    parts.push_back("is at least " + std::to_string(*s.minLength) + " characters long");
  if (s.maxLength)
    parts.push_back("is at most " + std::to_string(*s.maxLength) + " characters long");
  if (s.minimum) parts.push_back("is at least " + boundText(*s.minimum));
  if (s.maximum) parts.push_back("is at most " + boundText(*s.maximum));
  if (s.minItems) parts.push_back("has at least " + std::to_string(*s.minItems) + " items");
  if (s.maxItems) parts.push_back("has at most " + std::to_string(*s.maxItems) + " items");
  if (s.minProperties)
    parts.push_back("has at least " + std::to_string(*s.minProperties) + " fields");
  if (s.maxProperties)
    parts.push_back("has at most " + std::to_string(*s.maxProperties) + " fields");
  for (std::string_view r : s.required) parts.push_back("sets " + std::string(r));
  for (const auto& [name, sub] : s.properties) {
    std::string what = describe(*sub, depth + 1);
    if (what != "is anything") parts.push_back(std::string(name) + " " + what);
  }
  if (s.items != nullptr) parts.push_back("every item " + describe(*s.items, depth + 1));
  if (!s.allOf.empty()) parts.push_back(describeAlternatives(s.allOf, " and ", depth));
  if (!s.anyOf.empty()) parts.push_back("(" + describeAlternatives(s.anyOf, " or ", depth) + ")");
  if (!s.oneOf.empty())
    parts.push_back("exactly one of (" + describeAlternatives(s.oneOf, "; ", depth) + ")");
  if (s.notSchema != nullptr) {
    const Node& n = *s.notSchema;
    bool onlyEnum = !n.enumValues.empty() && n.type == Type::Any && !n.junctors &&
                    n.properties.empty() && n.required.empty() && n.pattern.empty();
    if (onlyEnum)
      parts.push_back((n.enumValues.size() == 1 ? "is not " : "is none of ") +
                      quotedList(n.enumValues));
    else
      parts.push_back("is not such that it " + describe(n, depth + 1));
  }
  if (parts.empty()) return "is anything";
  std::string out;
  for (const std::string& p : parts) {
    if (!out.empty()) out += " and ";
    out += p;
  }
  return out;
}

// "(1) sets podSelector; (2) sets externalWorkloadSelector"
std::string numbered(const std::vector<const Node*>& alternatives) {
  std::string out;
  for (std::size_t i = 0; i < alternatives.size(); ++i) {
    if (i > 0) out += "; ";
    out += "(" + std::to_string(i + 1) + ") " + describe(*alternatives[i]);
  }
  return out;
}

std::optional<double> toDouble(std::string_view text) {
  double d = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
  if (ec != std::errc() || p != text.data() + text.size()) return std::nullopt;
  return d;
}

// What a CEL rule sees of a value: typed by the schema (an integer field is an int, a number
// a double, an int-or-string either), nulls pruned, and absent fields that have a default
// defaulted, as the API server defaults an object before it validates it.
cel::Value celValue(yaml::NodeRef v, const Node* s) {
  if (v.isMapping()) {
    std::vector<cel::MapEntry> entries;
    entries.reserve(v.size());
    for (auto [key, value] : v.entries()) {
      if (prunedNull(value)) continue;
      const Node* child = nullptr;
      if (s) {
        child = s->property(key.str());
        if (!child) child = s->additionalProperties;
      }
      entries.emplace_back(cel::Value::string(std::string(key.str())), celValue(value, child));
    }
    if (s) {
      for (const auto& [name, property] : s->properties) {
        if (!property->defaultValue) continue;
        yaml::NodeRef present = v.get(name);
        if (present && !prunedNull(present)) continue;
        entries.emplace_back(cel::Value::string(std::string(name)),
                             celValue(property->defaultValue, property));
      }
    }
    return cel::Value::map(std::move(entries));
  }
  if (v.isSequence()) {
    std::vector<cel::Value> items;
    items.reserve(v.size());
    const Node* item = s ? s->items : nullptr;
    for (yaml::NodeRef i : v.items())
      if (!prunedNull(i)) items.push_back(celValue(i, item));
    return cel::Value::list(std::move(items));
  }
  if (!v.isScalar() || prunedNull(v)) return cel::Value::null();
  Type type = s && !s->intOrString ? s->type : Type::Any;
  std::string_view text = v.str();
  if (type == Type::String || (type == Type::Any && v.isString()))
    return cel::Value::string(std::string(text));
  if (std::optional<bool> b = v.asBool();
      b && !v.isString() && (type == Type::Boolean || type == Type::Any))
    return cel::Value::boolean(*b);
  std::optional<std::int64_t> i = v.asInt();
  if (i && type != Type::Number) return cel::Value::integer(*i);
  if (std::optional<double> d = toDouble(text)) return cel::Value::real(*d);
  if (i) return cel::Value::real(static_cast<double>(*i));
  return cel::Value::string(std::string(text));
}

// The API server's name for a value's type in "Invalid value: "object": ...".
const char* typeWord(yaml::NodeRef v, const Node& s) {
  if (v.isMapping()) return "object";
  if (v.isSequence()) return "array";
  switch (s.type) {
    case Type::Integer:
      return "integer";
    case Type::Number:
      return "number";
    case Type::Boolean:
      return "boolean";
    default:
      return v.isString() || s.type == Type::String ? "string" : "integer";
  }
}

// Our document tree as CEL's direct path reads it: the same view celValue() gives (types from
// the schema, nulls pruned, defaults for absent fields), without building Values.
class TreeSource final : public cel::Source {
 public:
  static Ref ref(yaml::NodeRef n, const Node* s) {
    Ref r;
    r.a = n.tree();
    r.b = s;
    r.i = n.index();
    return r;
  }
  static yaml::NodeRef node(Ref r) {
    return r.a ? yaml::NodeRef(static_cast<const yaml::Tree*>(r.a), r.i) : yaml::NodeRef();
  }
  static const Node* schema(Ref r) { return static_cast<const Node*>(r.b); }

  Shape shape(Ref r) const override {
    yaml::NodeRef v = node(r);
    if (!v || prunedNull(v)) return Shape::Absent;
    if (v.isMapping()) return Shape::Map;
    if (v.isSequence()) return Shape::List;
    const Node* s = schema(r);
    Type type = s && !s->intOrString ? s->type : Type::Any;
    if (type == Type::String || (type == Type::Any && v.isString())) return Shape::String;
    if (v.isString()) return Shape::Other;
    if (v.asBool() && (type == Type::Boolean || type == Type::Any)) return Shape::Bool;
    if (v.asInt() && type != Type::Number) return Shape::Int;
    return Shape::Other;
  }
  Ref field(Ref map, std::string_view name) const override {
    yaml::NodeRef v = node(map).get(name);
    const Node* s = schema(map);
    const Node* property = s ? s->property(name) : nullptr;
    if ((!v || prunedNull(v)) && property && property->defaultValue)
      return ref(property->defaultValue, property);
    return v ? ref(v, property ? property : s ? s->additionalProperties : nullptr) : Ref{};
  }
  bool size(Ref list, std::size_t& n) const override {
    yaml::NodeRef v = node(list);
    n = v.size();
    for (yaml::NodeRef item : v.items())
      if (prunedNull(item)) return false;  // celValue() drops it: let evaluate() count
    return true;
  }
  Ref item(Ref list, std::size_t index) const override {
    const Node* s = schema(list);
    return ref(node(list).at(index), s ? s->items : nullptr);
  }
  std::string_view string(Ref r) const override { return node(r).str(); }
  std::int64_t integer(Ref r) const override { return node(r).asInt().value_or(0); }
  bool boolean(Ref r) const override { return node(r).asBool().value_or(false); }
};

// The values that passed every rule of a schema node, by what the rules read of them: CEL
// rules are pure functions of `self` (transition rules, which read the stored object, are not
// evaluated), so a value that agrees with one that passed on everything the node's rules read
// passes again and its rules need not run. Repositories repeat those parts across many objects
// (the same parentRefs, the same shape of rules and filters) even where names and paths differ.
// A value is known by the schema node and a 128-bit hash of what the rules read
// (cel::readsOf: the fields they select or test, the sizes they take, the content they use),
// or of all of its content when the rules cannot be analysed (then only values over at most
// kMaxLines lines are remembered). A node whose values are seldom met again stops being
// hashed. One per thread.
class PassedRules {
 public:
  struct Key {
    std::uint64_t a = 0;
    std::uint64_t b = 0;
  };

  // Whether a value that agrees with `value` on what the rules of `s` read passed them before;
  // `key` is then its key, for insert(). Nothing when it is not worth remembering (too large,
  // or the node's values seldom come back).
  std::optional<bool> passedBefore(const Node& s, yaml::NodeRef value, Key& key) {
    NodeInfo& info = infoOf(s);
    if (info.off) return std::nullopt;
    Hasher h;
    h.word(reinterpret_cast<std::uintptr_t>(&s));
    int budget = kMaxScalars;
    if (info.analysed) {
      if (!h.project(value, info.reads, budget)) return std::nullopt;
    } else {
      // A value over many lines is large: not worth hashing whole (and rarely repeated).
      if (value.end().line - value.start().line > kMaxLines) return std::nullopt;
      if (!h.node(value, budget)) return std::nullopt;
    }
    key = h.key;
    bool found = find(key);
    ++info.lookups;
    if (found) ++info.hits;
    // Seldom met again (as a path match holding the route's own path): stop hashing.
    if (info.lookups >= kTrialLookups && info.hits * kMinHitRatio < info.lookups) info.off = true;
    return found;
  }

  void insert(const Key& key) {
    if (key.a == 0 && key.b == 0) return;  // the empty slot's marker
    if (table_.empty() || used_ * 4 >= table_.size() * 3) {
      table_.assign(kSlots, Key{});  // full: start over (a cache, not a record)
      used_ = 0;
    }
    for (std::size_t i = slotOf(key);; i = (i + 1) & (table_.size() - 1)) {
      Key& k = table_[i];
      if (k.a == key.a && k.b == key.b) return;
      if (k.a == 0 && k.b == 0) {
        k = key;
        ++used_;
        return;
      }
    }
  }

 private:
  static constexpr int kMaxScalars = 24;
  static constexpr std::uint32_t kMaxLines = 10;
  static constexpr std::size_t kSlots = std::size_t{1} << 16;
  static constexpr std::uint32_t kTrialLookups = 256;
  static constexpr std::uint32_t kMinHitRatio = 16;  // at least one hit in 16 lookups

  struct NodeInfo {
    bool analysed = false;  // `reads` holds what every evaluated rule reads
    bool off = false;
    cel::Reads reads;
    std::uint32_t lookups = 0;
    std::uint32_t hits = 0;
  };

  NodeInfo& infoOf(const Node& s) {
    auto [it, added] = nodes_.try_emplace(&s);
    NodeInfo& info = it->second;
    if (added) {
      info.analysed = true;
      for (const CelRule& r : s.rules) {
        if (r.transition || !r.program) continue;  // not evaluated
        if (!cel::readsOf(*r.program, info.reads)) {
          info.analysed = false;
          break;
        }
      }
    }
    return info;
  }

  bool find(const Key& key) const {
    if (table_.empty()) return false;
    for (std::size_t i = slotOf(key);; i = (i + 1) & (table_.size() - 1)) {
      const Key& k = table_[i];
      if (k.a == key.a && k.b == key.b) return true;
      if (k.a == 0 && k.b == 0) return false;
    }
  }

  // Two independent multiply-xorshift lanes over 64-bit words.
  struct Hasher {
    Key key{model::kHashSeed, 0xC2B2AE3D27D4EB4FULL};
    void word(std::uint64_t w) {
      key.a = model::mixWord(key.a, w);
      key.b = (key.b + w) * 0xC4CEB9FE1A85EC53ULL;
      key.b ^= key.b >> 29;
    }
    void text(std::string_view t) {
      word(t.size());
      std::size_t i = 0;
      for (; i + 8 <= t.size(); i += 8) {
        std::uint64_t w = 0;
        std::memcpy(&w, t.data() + i, 8);
        word(w);
      }
      if (i < t.size()) {
        std::uint64_t w = 0;
        std::memcpy(&w, t.data() + i, t.size() - i);
        word(w);
      }
    }
    // All of a value's content.
    bool node(yaml::NodeRef v, int& budget) {
      if (v.isMapping()) {
        word(1);
        for (auto [k, value] : v.entries()) {
          if (!node(k, budget) || !node(value, budget)) return false;
        }
        word(2);
      } else if (v.isSequence()) {
        word(3);
        for (yaml::NodeRef item : v.items())
          if (!node(item, budget)) return false;
        word(4);
      } else {
        // What TreeSource reads of a scalar follows from its text and style (a plain scalar
        // resolves to a string, a number, a boolean or null by its text alone).
        if (--budget < 0) return false;
        word(5 + static_cast<std::uint64_t>(v.style()));
        text(v.str());
      }
      return true;
    }
    // What `r` says is read of a value (absent included): its kind always, the fields read,
    // a list's count and the items read, the content where it is used. The nodes of one schema
    // node's reads come in one order, so their names need not be hashed.
    bool project(yaml::NodeRef v, const cel::Reads& r, int& budget) {
      if (!v) {
        word(20);
        return true;
      }
      if (r.whole) {
        word(21);
        return node(v, budget);
      }
      if (v.isMapping()) {
        // A map ranged over or indexed by key: read whole.
        if (r.items) return node(v, budget);
        word(22);
        if (r.size) word(v.size());
        for (const auto& [name, sub] : r.fields)
          if (!project(v.get(name), *sub, budget)) return false;
      } else if (v.isSequence()) {
        word(23);
        word(v.size());
        for (yaml::NodeRef item : v.items()) {
          if (r.items) {
            if (!project(item, *r.items, budget)) return false;
          } else {
            word(prunedNull(item) ? 1 : 0);  // a null item is dropped: the size changes
          }
        }
      } else if (prunedNull(v)) {
        word(24);  // as absent, to has() and to a default
      } else {
        word(25);
        if (r.size) {  // a string's size
          if (--budget < 0) return false;
          word(static_cast<std::uint64_t>(v.style()));
          text(v.str());
        }
      }
      return true;
    }
  };

  std::size_t slotOf(const Key& key) const { return key.a & (table_.size() - 1); }

  std::vector<Key> table_;
  std::size_t used_ = 0;
  std::unordered_map<const Node*, NodeInfo> nodes_;
};

struct Segment {
  std::string_view key;
  std::size_t index = 0;
  bool isIndex = false;
};

// The direct path's memo of the calling thread (one per thread, reused object after object).
cel::DirectMemo& threadMemo() {
  thread_local cel::DirectMemo memo;
  return memo;
}

// Whether `text` matches a schema pattern, remembered by each worker of one validation: the
// patterns of groups, kinds, namespaces and section names test the same few values object after
// object, and an RE2 call costs about a thousand instructions against some fifty for a lookup
// here. A direct-mapped table of recent answers, holding a copy of each short text; it lives no
// longer than the schemas whose patterns it knows by address.
class PatternMemo {
 public:
  bool matches(const RE2& re, std::string_view text) {
    if (text.size() > kLongest) return patternMatches(re, text);
    std::size_t h = std::hash<std::string_view>{}(text) ^
                    (reinterpret_cast<std::uintptr_t>(&re) * model::kHashSeed);
    Entry& e = entries_[(h ^ (h >> 29)) & (entries_.size() - 1)];
    if (e.re == &re && e.size == text.size() &&
        std::memcmp(e.text.data(), text.data(), text.size()) == 0)
      return e.matched;
    e.re = &re;
    e.size = static_cast<std::uint8_t>(text.size());
    std::memcpy(e.text.data(), text.data(), text.size());
    e.matched = patternMatches(re, text);
    return e.matched;
  }

 private:
  static constexpr std::size_t kLongest = 62;
  struct Entry {
    const RE2* re = nullptr;
    std::array<char, kLongest> text{};
    std::uint8_t size = 0;
    bool matched = false;
  };
  std::array<Entry, 256> entries_{};
};

class Walker {
 public:
  Walker(const model::Resource& object, std::size_t index, std::vector<Violation>& out,
         std::vector<UnenforcedRule>* unenforced, PassedRules* passed = nullptr,
         PatternMemo* patterns = nullptr)
      : object_(object),
        index_(index),
        out_(out),
        unenforced_(unenforced),
        passed_(passed),
        patterns_(patterns),
        memo_(threadMemo()) {
    path_.reserve(32);
    memo_.clear();  // the memo knows nodes by their place in a tree: a new object, a new start
  }

  // Notes in `out` the defaults the walk finds missing (DefaultEntry): validation visits every
  // mapping with its schema node, so defaulting needs no walk of its own.
  void collectDefaults(std::vector<DefaultEntry>* out) { defaults_ = out; }

  void object(const Node& root) {
    yaml::NodeRef obj = object_.node;
    noteDefaults(obj, root, true);
    for (auto [key, value] : obj.entries()) {
      std::string_view k = key.str();
      if (k == "apiVersion" || k == "kind") continue;
      path_.push_back({k});
      if (k == "metadata") {
        walk(value, objectMeta());
      } else if (k == "status") {
        // A subresource: the API server discards it on create and update.
      } else if (const Node* p = root.property(k)) {
        key_ = key;
        walk(value, *p);
      } else if (!root.preserveUnknown) {
        unknown(key, root);
      }
      path_.pop_back();
    }
    required(obj, root);
    if (root.junctors) junctors(obj, root);
    if (!blocking_)
      for (Violation& v : cel_) out_.push_back(std::move(v));
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

  // Notes the defaulted fields `map` leaves out, when defaults are collected. At the top level
  // (`object`), not those the API server does not default from the kind's schema: metadata
  // is ObjectMeta's and status a subresource.
  // `present`, when known: how many of the fields with a default `map` has (when it has them
  // all, none is missing and none is looked up).
  void noteDefaults(yaml::NodeRef map, const Node& s, bool object,
                    std::optional<std::size_t> present = std::nullopt) {
    if (defaults_ == nullptr || !s.hasDefaults || inJunctor_) return;
    if (present) {
      std::size_t all = 0;
      for (const auto& property : s.properties) all += property.second->defaultValue ? 1 : 0;
      if (*present == all) return;
    }
    for (const auto& [name, property] : s.properties) {
      if (!property->defaultValue || map.keyNode(name)) continue;
      if (object &&
          (name == "metadata" || name == "status" || name == "apiVersion" || name == "kind"))
        continue;
      defaults_->push_back({map, name, property});
    }
  }

  void invalid(yaml::NodeRef value, const std::string& why) {
    report(Code::InvalidValue, value, "Invalid value: " + quoted(value) + ": " + why);
  }

  void unknown(yaml::NodeRef key, const Node& parent) {
    if (inJunctor_) return;  // an alternative adds constraints: other fields are no concern of it
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
      // The API server fills in defaults before it validates: a required field with a default
      // is never missing.
      if (const Node* p = s.property(r); p != nullptr && p->defaultValue) continue;
      path_.push_back({r});
      blocking_ = true;
      report(Code::Required, v ? map.keyNode(r) : map, "Required value");
      path_.pop_back();
    }
  }

  void typeError(yaml::NodeRef value, std::string_view expected) {
    // A seed's own form of a field (seed_fields.h) is simulated, not refused: it blocks no rule.
    if (!seedFormAt(object_.group, object_.kind, pathText())) blocking_ = true;
    invalid(value, pathText() + " in body must be of type " + std::string(expected) + ": " +
                       quoted(value));
  }

  void walk(yaml::NodeRef value, const Node& s) {
    if (prunedNull(value)) {
      // Null in a field that is not nullable is pruned before validation; nothing to check.
      return;
    }
    yaml::NodeRef key = key_;  // set by the caller; children change it
    if (!structure(value, s)) return;
    if (s.junctors) junctors(value, s);
    if (!s.rules.empty()) celRules(key, value, s);
  }

  // allOf, anyOf, oneOf and not on `value` (of the type `s` declares), in the words of the
  // API server's validator (kube-openapi validate/schema_messages.go); `s` is the value's
  // structural node, whose defaults count for absent fields. Nothing is built unless one
  // fails.
  void junctors(yaml::NodeRef value, const Node& s) {
    if (!s.allOf.empty() &&
        countSatisfied(value, s.allOf, &s, 0, s.allOf.size() + 1) != s.allOf.size())
      allOfErrors(value, s);
    if (!s.anyOf.empty() && countSatisfied(value, s.anyOf, &s, 0, 1) == 0)
      junctorError(value, "must validate at least one schema (anyOf)",
                   "make it match at least one of: " + numbered(s.anyOf));
    if (!s.oneOf.empty()) {
      std::size_t n = countSatisfied(value, s.oneOf, &s, 0, s.oneOf.size());
      if (n == 0) {
        junctorError(value, "must validate one and only one schema (oneOf). Found none valid",
                     "make it match exactly one of: " + numbered(s.oneOf));
      } else if (n > 1) {
        std::string which;
        for (std::size_t i = 0; i < s.oneOf.size(); ++i) {
          if (!satisfies(value, *s.oneOf[i], &s, 1)) continue;
          if (!which.empty()) which += ", ";
          which += std::to_string(i + 1);
        }
        junctorError(value,
                     "must validate one and only one schema (oneOf). Found " + std::to_string(n) +
                         " valid alternatives",
                     "it matches alternatives " + which +
                         "; make it match exactly one of: " + numbered(s.oneOf));
      }
    }
    if (s.notSchema != nullptr && satisfies(value, *s.notSchema, &s, 1))
      junctorError(value, "must not validate the schema (not)",
                   "change it so that it no longer " + describe(*s.notSchema));
  }

  // `"spec" must validate ...`, with the field path in front as for every finding (the API
  // server writes `<nil>: Invalid value: ""` there: the error has no field of its own).
  void junctorError(yaml::NodeRef value, std::string_view what, std::string advice) {
    std::string path = pathText();
    report(Code::InvalidValue, value,
           "Invalid value: " + quoted(value) + ": " + model::quoted(path) + " " + std::string(what),
           std::move(advice));
  }

  // The errors of the allOf alternatives `value` fails, each in the words of its own check
  // (the alternative's pattern, enum, bounds...), once each; the API server's summary
  // ("must validate all the schemas (allOf)") when they say nothing more than what the walk
  // reported already.
  void allOfErrors(yaml::NodeRef value, const Node& s) {
    std::size_t before = out_.size();
    std::size_t failed = 0;
    bool blocking = blocking_;
    inJunctor_ = true;
    for (const Node* a : s.allOf) {
      if (satisfies(value, *a, &s, 1)) continue;
      ++failed;
      yaml::NodeRef key = key_;
      structure(value, *a);
      if (a->junctors) junctors(value, *a);
      key_ = key;
    }
    inJunctor_ = false;
    blocking_ = blocking;
    // Keep the new ones that say something new (two alternatives often repeat one enum).
    auto repeated = [&](std::size_t i) {
      for (std::size_t j = 0; j < i; ++j)
        if (out_[j].message == out_[i].message && out_[j].location == out_[i].location) return true;
      return false;
    };
    std::size_t kept = before;
    for (std::size_t i = before; i < out_.size(); ++i) {
      if (repeated(i)) continue;
      if (kept != i) out_[kept] = std::move(out_[i]);
      ++kept;
    }
    out_.resize(kept);
    if (kept == before)
      junctorError(value,
                   std::string("must validate all the schemas (allOf)") +
                       (failed == s.allOf.size() ? ". None validated" : ""),
                   "make it match every one of: " + numbered(s.allOf));
  }

  // The structural checks; false when the value is not of the schema's type (its rules are
  // not evaluated then, as the API server does not evaluate them).
  bool structure(yaml::NodeRef value, const Node& s) {
    if (!hasType(value, s)) {
      typeError(value, typeName(s));
      return false;
    }
    if (s.intOrString) {
      scalarChecks(value, s, value.isString());
      return true;
    }
    switch (s.type) {
      case Type::Object:
        mapping(value, s);
        break;
      case Type::Array:
        sequence(value, s);
        break;
      case Type::String:
        scalarChecks(value, s, true);
        break;
      case Type::Integer:
      case Type::Number:
        scalarChecks(value, s, false);
        break;
      case Type::Boolean:
        break;
      case Type::Any:
        if (value.isMapping()) {
          mapping(value, s);
        } else if (value.isSequence() && s.items) {
          sequence(value, s);
        } else if (value.isScalar()) {
          scalarChecks(value, s, value.isString());
        }
        break;
    }
    return true;
  }

  // The node a rule's fieldPath names (`.spec.x`, `['key']`, `[0]`) below `value`, with the
  // text to add to the field path; `value` itself when the path cannot be followed.
  static yaml::NodeRef follow(yaml::NodeRef value, std::string_view fieldPath) {
    yaml::NodeRef at = value;
    std::string_view rest = fieldPath;
    while (!rest.empty() && at) {
      if (rest[0] == '.') {
        rest.remove_prefix(1);
        std::size_t end = rest.find_first_of(".[");
        at = at.get(rest.substr(0, end));
        rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
      } else if (rest.starts_with("['")) {
        std::size_t end = rest.find("']");
        if (end == std::string_view::npos) return value;
        at = at.get(rest.substr(2, end - 2));
        rest.remove_prefix(end + 2);
      } else if (rest[0] == '[') {
        std::size_t end = rest.find(']');
        std::size_t index = 0;
        auto [p, ec] =
            std::from_chars(rest.data() + 1, rest.data() + std::min(end, rest.size()), index);
        if (end == std::string_view::npos || ec != std::errc()) return value;
        at = at.at(index);
        rest.remove_prefix(end + 1);
      } else {
        return value;
      }
    }
    return at ? at : value;
  }

  void unenforced(const CelRule& r, std::string why) {
    if (!unenforced_) return;
    UnenforcedRule u;
    u.kind = std::string(object_.kind);
    u.path = pathText();
    u.rule = std::string(r.rule);
    u.why = std::move(why);
    u.object = index_;
    unenforced_->push_back(std::move(u));
  }

  // The rule's message: its messageExpression when that evaluates to a non-empty string,
  // else its message, else the API server's "failed rule: <rule>".
  static std::string messageOf(const CelRule& r, const cel::Value& self) {
    if (r.messageProgram) {
      cel::Bindings b;
      b.self = &self;
      cel::Outcome o = cel::evaluate(*r.messageProgram, b);
      if (o.kind == cel::Outcome::Value_ && o.value.kind() == cel::Value::Kind::String &&
          !o.value.asString().empty())
        return std::string(o.value.asString());
    }
    if (!r.message.empty()) return std::string(r.message);
    return "failed rule: " + std::string(r.rule);
  }

  // `key`: the field's key, where a finding about the whole field points (none for a list
  // item: the item itself).
  void celRules(yaml::NodeRef key, yaml::NodeRef value, const Node& s) {
    std::optional<bool> before =
        passed_ != nullptr ? passed_->passedBefore(s, value, passedKey_) : std::nullopt;
    if (before.value_or(false)) return;
    bool remember = before.has_value();
    std::size_t failed = cel_.size();
    TreeSource source;
    cel::Value built;  // `self` as a Value, built only for a rule the direct path leaves
    bool haveBuilt = false;
    for (const CelRule& r : s.rules) {
      if (r.transition) continue;  // needs the stored object: the API server skips it on create
      if (!r.program) {
        unenforced(r, r.unenforced);
        remember = false;  // each object that meets it says so
        continue;
      }
      if (r.direct && r.messageExpression.empty()) {
        std::optional<bool> holds =
            cel::evaluateDirect(*r.program, source, TreeSource::ref(value, &s), memo_);
        if (holds && *holds) continue;
      }
      if (!haveBuilt) {
        built = celValue(value, &s);
        haveBuilt = true;
      }
      const cel::Value& self = built;
      cel::Bindings bindings;
      bindings.self = &self;
      cel::Outcome o = cel::evaluate(*r.program, bindings);
      if (o.kind == cel::Outcome::Value_ && o.value.kind() == cel::Value::Kind::Bool &&
          o.value.asBool())
        continue;
      if (o.costExceeded) {
        unenforced(r, "its evaluation exceeds the cost limit");
        remember = false;
        continue;
      }
      std::string detail;
      if (o.kind == cel::Outcome::Error)
        detail = o.error + " evaluating rule: " + messageOf(r, self);
      else if (o.value.kind() != cel::Value::Kind::Bool)
        detail = "rule did not evaluate to a bool: " + messageOf(r, self);
      else
        detail = messageOf(r, self);
      yaml::NodeRef at = r.fieldPath.empty() ? value : follow(value, r.fieldPath);
      std::string path = pathText();
      if (!r.fieldPath.empty()) {
        if (r.fieldPath[0] != '.' && r.fieldPath[0] != '[') path += '.';
        path += r.fieldPath;
      }
      std::string words;
      if (r.reason == "FieldValueForbidden") {
        words = "Forbidden: ";
      } else if (r.reason == "FieldValueRequired") {
        words = "Required value: ";
      } else if (r.reason == "FieldValueDuplicate") {
        words = "Duplicate value: ";
      } else {
        words = std::string("Invalid value: \"") + typeWord(at, s) + "\": ";
      }
      Violation v;
      v.code = Code::CelRule;
      v.object = index_;
      v.location = object_.locate(r.fieldPath.empty() && key ? key : at);
      v.path = path;
      v.message = path + ": " + words + detail;
      cel_.push_back(std::move(v));
    }
    if (remember && cel_.size() == failed) passed_->insert(passedKey_);
  }

  void mapping(yaml::NodeRef map, const Node& s) {
    bool open = s.preserveUnknown ||
                (s.type == Type::Any && s.properties.empty() && !s.additionalProperties);
    // The fields with a default the map has, each once (a key may be repeated): when all of
    // them are there, none is missing. Only the first `*present` entries are ever read, so the
    // array is not initialised (every mapping of every object comes here).
    std::array<const Node*, 8> defaulted;
    std::optional<std::size_t> present = 0;  // none: too many to tell, look them all up
    for (auto [key, value] : map.entries()) {
      std::string_view k = key.str();
      path_.push_back({k});
      key_ = key;
      if (const Node* p = s.property(k)) {
        if (p->defaultValue && present) {
          auto end = defaulted.begin() + static_cast<std::ptrdiff_t>(*present);
          if (std::find(defaulted.begin(), end, p) == end) {
            if (*present == defaulted.size())
              present.reset();
            else
              defaulted[(*present)++] = p;
          }
        }
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
    noteDefaults(map, s, false, present);
    required(map, s);
    std::int64_t n = static_cast<std::int64_t>(map.size());
    if (s.maxProperties && n > *s.maxProperties) {
      blocking_ = true;
      report(Code::InvalidValue, map,
             "Too many: " + std::to_string(n) + ": must have at most " +
                 std::to_string(*s.maxProperties) + " items");
    }
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
      key_ = yaml::NodeRef();
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
    if (s.maxItems && n > *s.maxItems) {
      blocking_ = true;
      report(Code::InvalidValue, seq,
             "Too many: " + std::to_string(n) + ": must have at most " +
                 std::to_string(*s.maxItems) + " items");
    }
    if (s.minItems && n < *s.minItems)
      invalid(seq, pathText() + " in body should have at least " + std::to_string(*s.minItems) +
                       " items");
  }

  // `isString`: the value is a string (the caller knows already; asking again parses it).
  void scalarChecks(yaml::NodeRef value, const Node& s, bool isString) {
    if (!s.enumValues.empty()) {
      if (!inEnum(s, value, isString)) {
        std::string supported;
        for (yaml::NodeRef e : s.enumValues) {
          if (!supported.empty()) supported += ", ";
          supported += quoted(e);
        }
        blocking_ = true;
        report(Code::InvalidValue, value,
               "Unsupported value: " + quoted(value) + ": supported values: " + supported);
        return;
      }
    }
    if (isString) {
      std::string_view text = value.str();
      std::size_t length = 0;
      if (s.maxLength || s.minLength) length = characters(text);
      if (s.maxLength && static_cast<std::int64_t>(length) > *s.maxLength) {
        blocking_ = true;
        report(Code::InvalidValue, value,
               "Too long: may not be more than " + std::to_string(*s.maxLength) + " bytes");
      }
      if (s.minLength && static_cast<std::int64_t>(length) < *s.minLength)
        invalid(value, pathText() + " in body should be at least " + std::to_string(*s.minLength) +
                           " chars long");
      if (s.regex && !matches(*s.regex, text))
        invalid(value, pathText() + " in body should match '" + std::string(s.pattern) + "'");
      if (!s.format.empty() && !formatOk(s.format, value))
        invalid(value, pathText() + " in body must be of type " + std::string(s.format) + ": " +
                           quoted(value));
    } else if (std::optional<double> number = numericValue(value)) {
      double v = *number;
      if (belowMinimum(s, v))
        invalid(value, pathText() + " in body should be greater than " +
                           (s.exclusiveMinimum ? "" : "or equal to ") + boundText(*s.minimum));
      if (aboveMaximum(s, v))
        invalid(value, pathText() + " in body should be less than " +
                           (s.exclusiveMaximum ? "" : "or equal to ") + boundText(*s.maximum));
      if (!s.format.empty() && !formatOk(s.format, value))
        invalid(value, pathText() + " in body must be of type " + std::string(s.format) + ": " +
                           quoted(value));
    }
  }

  const model::Resource& object_;
  std::size_t index_;
  std::vector<Violation>& out_;
  std::vector<UnenforcedRule>* unenforced_;
  bool matches(const RE2& re, std::string_view text) {
    return patterns_ != nullptr ? patterns_->matches(re, text) : patternMatches(re, text);
  }

  PassedRules* passed_;
  PatternMemo* patterns_;
  PassedRules::Key passedKey_;
  cel::DirectMemo& memo_;  // what the direct path has read of this object, for all its rules
  std::vector<Segment> path_;
  // The API server evaluates no CEL rule of an object that has a wrong type, an unsupported
  // enum value, a missing required field, or a string, list or map over its maximum: it says
  // "some validation rules were not checked because the object was invalid". Failed rules
  // wait in `cel_` until the object is known to have none of these.
  bool blocking_ = false;
  yaml::NodeRef key_;       // the key of the field walk() is called on, if it has one
  bool inJunctor_ = false;  // reporting an allOf alternative's errors (allOfErrors)
  std::vector<DefaultEntry>* defaults_ = nullptr;
  std::vector<Violation> cel_;
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

void validateObject(const model::Resource& object, const VersionSchema& version, std::size_t index,
                    std::vector<Violation>& out, std::vector<UnenforcedRule>* unenforced) {
  if (!version.root) return;
  Walker(object, index, out, unenforced).object(*version.root);
}

namespace {

void validateObject(const model::Resource& object, const VersionSchema& version, std::size_t index,
                    std::vector<Violation>& out, std::vector<UnenforcedRule>* unenforced,
                    PassedRules& passed, PatternMemo& patterns,
                    std::vector<DefaultEntry>* defaults) {
  if (!version.root) return;
  Walker walker(object, index, out, unenforced, &passed, &patterns);
  walker.collectDefaults(defaults);
  walker.object(*version.root);
}

// The violations a seed's own fields cause (seed_fields.h) become one IN126 per field, and the
// CRD rules that such a field makes moot are dropped.
void foldSeedFields(const model::Resource& object, std::vector<Violation>& violations) {
  if (violations.empty()) return;
  std::vector<const SeedField*> used;
  std::vector<Violation> kept;
  for (Violation& v : violations) {
    const SeedField* f = seedFieldOf(object.group, object.kind, v);
    if (!f) {
      kept.push_back(std::move(v));
      continue;
    }
    if (std::find(used.begin(), used.end(), f) != used.end()) continue;
    used.push_back(f);
    Violation seed;
    seed.code = Code::SeedField;
    seed.object = v.object;
    seed.location = v.location;
    seed.path = std::string(f->path);
    seed.message = std::string(f->path) + " is defined by " + std::string(f->seed) +
                   ", but the bundled " + std::string(object.kind) + " CRD does not serve it";
    kept.push_back(std::move(seed));
  }
  if (used.empty()) {
    violations = std::move(kept);
    return;
  }
  violations.clear();
  for (Violation& v : kept) {
    bool moot = false;
    if (v.code == Code::CelRule)
      for (const SeedField* f : used)
        for (std::string_view waived : f->waives)
          if (!waived.empty() && v.message.find(waived) != std::string::npos) moot = true;
    if (!moot) violations.push_back(std::move(v));
  }
}

Result validate(const std::vector<model::Resource>& objects, Registry& registry, unsigned jobs,
                std::vector<std::vector<DefaultEntry>>* defaults, SharedValidations* shared) {
  for (const model::Resource& r : objects) {
    if (r.group == "apiextensions.k8s.io" && r.kind == "CustomResourceDefinition")
      registry.add(r.node, "CustomResourceDefinition " + std::string(r.name) + " (" +
                               (r.file ? r.file->path : std::string("-")) + ")");
  }
  Result result;
  result.refused.assign(objects.size(), false);
  std::vector<std::vector<Violation>> perObject(objects.size());
  std::vector<std::vector<UnenforcedRule>> unenforced(objects.size());
  unsigned workers = model::workersFor(jobs, objects.size(), 256);
  std::vector<PassedRules> passed(workers);
  std::vector<PatternMemo> patterns(workers);
  if (defaults != nullptr) defaults->assign(objects.size(), {});
  // Per object, the schema it was validated against here (null: none, or taken from `shared`).
  std::vector<const KindSchema*> validatedWith(shared != nullptr ? objects.size() : 0, nullptr);
  model::parallelFor(workers, objects.size(), [&](std::size_t i, unsigned worker) {
    const model::Resource& r = objects[i];
    std::vector<Violation>& out = perObject[i];
    validateNames(r, i, out);  // whatever the kind: every object has a name
    if (r.universal || r.kind.empty()) return;
    const KindSchema* kind = registry.find(r.group, r.kind);
    if (!kind) return;
    if (shared != nullptr) {
      // Another unit validated this very node against this schema, and its defaults are in
      // the tree already.
      if (const SharedValidations::Entry* e = shared->find(r.node.tree(), r.node.index(), kind)) {
        out = e->violations;
        for (Violation& v : out) v.object = i;
        unenforced[i] = e->unenforced;
        for (UnenforcedRule& u : unenforced[i]) u.object = i;
        return;
      }
      validatedWith[i] = kind;
    }
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
    validateObject(r, *version, i, out, &unenforced[i], passed[worker], patterns[worker],
                   defaults != nullptr ? &(*defaults)[i] : nullptr);
  });
  for (std::size_t i = 0; i < perObject.size(); ++i) {
    if (shared != nullptr && validatedWith[i] != nullptr)
      shared->add(objects[i].node.tree(), objects[i].node.index(), validatedWith[i],
                  {perObject[i], unenforced[i]});
    foldSeedFields(objects[i], perObject[i]);
    for (Violation& v : perObject[i]) {
      // A version not served (or deprecated) refuses nothing: which versions a cluster serves
      // depends on the CRD release installed there, not on the object. Nor does a seed's
      // field: it is simulated as the seed defines it.
      if (v.code != Code::DeprecatedVersion && v.code != Code::VersionNotServed &&
          v.code != Code::SeedField)
        result.refused[i] = true;
      result.violations.push_back(std::move(v));
    }
  }
  std::set<std::pair<std::string, std::string>> seen;  // kind and rule
  for (std::vector<UnenforcedRule>& list : unenforced)
    for (UnenforcedRule& u : list)
      if (seen.emplace(u.kind, u.rule).second) result.unenforced.push_back(std::move(u));
  if (defaults != nullptr)
    for (std::size_t i = 0; i < objects.size(); ++i)
      if (result.refused[i]) (*defaults)[i].clear();  // never stored: nothing to default
  return result;
}

}  // namespace

const SharedValidations::Entry* SharedValidations::find(const yaml::Tree* tree, std::uint32_t node,
                                                        const KindSchema* schema) const {
  auto it = entries_.find({tree, node, schema});
  return it == entries_.end() ? nullptr : &it->second;
}

void SharedValidations::add(const yaml::Tree* tree, std::uint32_t node, const KindSchema* schema,
                            Entry entry) {
  entries_.try_emplace({tree, node, schema}, std::move(entry));
}

Result validateAll(const std::vector<model::Resource>& objects, Registry& registry, unsigned jobs,
                   SharedValidations* shared) {
  return validate(objects, registry, jobs, nullptr, shared);
}

Result validateAll(const std::vector<model::Resource>& objects, Registry& registry, unsigned jobs,
                   std::vector<std::vector<DefaultEntry>>& defaults, SharedValidations* shared) {
  return validate(objects, registry, jobs, &defaults, shared);
}

std::vector<DefaultEntry> missingDefaults(const model::Resource& object,
                                          const VersionSchema& version) {
  std::vector<DefaultEntry> out;
  if (!version.root) return out;
  std::vector<Violation> ignored;
  Walker walker(object, 0, ignored, nullptr);
  walker.collectDefaults(&out);
  walker.object(*version.root);
  return out;
}

}  // namespace pg::schema
