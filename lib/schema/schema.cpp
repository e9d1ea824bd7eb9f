#include "lib/schema/schema.h"

#include <re2/re2.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <unordered_map>
#include <variant>

#include "lib/schema/embedded.h"
#include "lib/yaml/parser.h"

namespace pg::schema {

const Node* Node::property(std::string_view name) const {
  // Most objects have a few fields: a scan that compares lengths and first bytes before any
  // memcmp is cheaper than a binary search of string comparisons there.
  if (properties.size() <= 16) {
    for (const auto& [key, node] : properties)
      if (key.size() == name.size() &&
          (name.empty() ||
           (key[0] == name[0] && std::memcmp(key.data(), name.data(), name.size()) == 0)))
        return node;
    return nullptr;
  }
  auto it = std::lower_bound(properties.begin(), properties.end(), name,
                             [](const auto& p, std::string_view n) { return p.first < n; });
  return it != properties.end() && it->first == name ? it->second : nullptr;
}

const VersionSchema* KindSchema::version(std::string_view name) const {
  for (const VersionSchema& v : versions)
    if (v.name == name) return &v;
  return nullptr;
}

std::string KindSchema::servedVersions() const {
  std::string out;
  for (const VersionSchema& v : versions) {
    if (!v.served) continue;
    if (!out.empty()) out += ", ";
    out += v.name;
  }
  return out;
}

namespace {

std::optional<std::int64_t> integer(yaml::NodeRef n) {
  return n.isScalar() ? n.asInt() : std::nullopt;
}

std::optional<double> number(yaml::NodeRef n) {
  if (!n.isScalar() || n.isString()) return std::nullopt;
  std::string_view s = n.str();
  double d = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return d;
}

bool flag(yaml::NodeRef n) {
  return n.asBool().value_or(false);
}

// Compiles one `x-kubernetes-validations` entry (once per schema, never per object), whose
// rule compiled as `compiled`.
CelRule compileRule(yaml::NodeRef entry, std::variant<cel::Program, cel::CompileError> compiled) {
  CelRule r{entry.get("rule").str(), entry.get("message").str(),
            entry.get("messageExpression").str(), entry.get("reason").str(),
            entry.get("fieldPath").str()};
  if (auto* error = std::get_if<cel::CompileError>(&compiled)) {
    r.unenforced = (error->unsupported ? "uses CEL not implemented here: " : "does not compile: ") +
                   error->message;
    return r;
  }
  auto program = std::make_shared<const cel::Program>(std::get<cel::Program>(std::move(compiled)));
  r.transition = cel::referencesOldSelf(*program);
  r.direct = cel::directlyEvaluable(*program);
  r.program = std::move(program);
  if (!r.messageExpression.empty()) {
    auto message = cel::compile(r.messageExpression);
    if (auto* p = std::get_if<cel::Program>(&message))
      r.messageProgram = std::make_shared<const cel::Program>(std::move(*p));
  }
  return r;
}

// The rules of one schema node, compiled together: they are evaluated on the same values, so
// what they have in common is worked out once per value (cel::compileTogether).
std::vector<CelRule> compileRules(yaml::NodeRef validations) {
  std::vector<std::string_view> expressions;
  for (yaml::NodeRef entry : validations.items()) expressions.push_back(entry.get("rule").str());
  auto compiled = cel::compileTogether(expressions);
  std::vector<CelRule> rules;
  rules.reserve(compiled.size());
  std::size_t i = 0;
  for (yaml::NodeRef entry : validations.items())
    rules.push_back(compileRule(entry, std::move(compiled[i++])));
  return rules;
}

Type typeOf(std::string_view t) {
  if (t == "object") return Type::Object;
  if (t == "array") return Type::Array;
  if (t == "string") return Type::String;
  if (t == "integer") return Type::Integer;
  if (t == "number") return Type::Number;
  if (t == "boolean") return Type::Boolean;
  return Type::Any;
}

// Compiles schema nodes into one KindSchema's storage. Aliased YAML nodes (the data files
// share repeated structures through anchors) compile once.
class Compiler {
 public:
  explicit Compiler(std::deque<Node>& nodes) : nodes_(nodes) {}

  const Node* compile(yaml::NodeRef s, unsigned depth = 0) {
    if (!s.isMapping() || depth > 200) {
      nodes_.emplace_back();
      Node& any = nodes_.back();
      any.preserveUnknown = true;  // `additionalProperties: true` and the like
      return &any;
    }
    if (auto it = seen_.find(s.index()); it != seen_.end()) return it->second;
    nodes_.emplace_back();
    Node& n = nodes_.back();
    seen_.emplace(s.index(), &n);
    for (auto [key, value] : s.entries()) {
      std::string_view k = key.str();
      if (k == "type") {
        n.type = typeOf(value.str());
      } else if (k == "properties") {
        for (auto [name, sub] : value.entries())
          n.properties.emplace_back(name.str(), compile(sub, depth + 1));
      } else if (k == "additionalProperties") {
        if (value.isMapping())
          n.additionalProperties = compile(value, depth + 1);
        else if (flag(value))
          n.additionalProperties = compile(yaml::NodeRef(), depth + 1);
      } else if (k == "items") {
        n.items = compile(value, depth + 1);
      } else if (k == "required") {
        for (yaml::NodeRef r : value.items()) n.required.push_back(r.str());
      } else if (k == "enum") {
        for (yaml::NodeRef e : value.items()) n.enumValues.push_back(e);
      } else if (k == "pattern") {
        n.pattern = value.str();
      } else if (k == "format") {
        n.format = value.str();
      } else if (k == "minLength") {
        n.minLength = integer(value);
      } else if (k == "maxLength") {
        n.maxLength = integer(value);
      } else if (k == "minItems") {
        n.minItems = integer(value);
      } else if (k == "maxItems") {
        n.maxItems = integer(value);
      } else if (k == "minProperties") {
        n.minProperties = integer(value);
      } else if (k == "maxProperties") {
        n.maxProperties = integer(value);
      } else if (k == "minimum") {
        n.minimum = number(value);
      } else if (k == "maximum") {
        n.maximum = number(value);
      } else if (k == "exclusiveMinimum") {
        n.exclusiveMinimum = flag(value);
      } else if (k == "exclusiveMaximum") {
        n.exclusiveMaximum = flag(value);
      } else if (k == "nullable") {
        n.nullable = flag(value);
      } else if (k == "default") {
        n.defaultValue = value;
      } else if (k == "x-kubernetes-int-or-string") {
        n.intOrString = flag(value);
      } else if (k == "x-kubernetes-preserve-unknown-fields") {
        n.preserveUnknown = flag(value);
      } else if (k == "x-kubernetes-embedded-resource") {
        n.embeddedResource = flag(value);
      } else if (k == "x-kubernetes-list-type") {
        std::string_view t = value.str();
        n.listType = t == "map"      ? ListType::Map
                     : t == "set"    ? ListType::Set
                     : t == "atomic" ? ListType::Atomic
                                     : ListType::None;
      } else if (k == "x-kubernetes-list-map-keys") {
        for (yaml::NodeRef m : value.items()) n.mapKeys.push_back(m.str());
      } else if (k == "x-kubernetes-validations") {
        for (CelRule& r : compileRules(value)) n.rules.push_back(std::move(r));
      } else if (k == "allOf" || k == "anyOf" || k == "oneOf") {
        std::vector<const Node*>& list = k == "allOf" ? n.allOf : k == "anyOf" ? n.anyOf : n.oneOf;
        for (yaml::NodeRef alternative : value.items())
          list.push_back(compile(alternative, depth + 1));
        n.junctors = n.junctors || !list.empty();
      } else if (k == "not") {
        n.notSchema = compile(value, depth + 1);
        n.junctors = true;
      }
    }
    std::sort(n.properties.begin(), n.properties.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    if (!n.pattern.empty()) {
      RE2::Options options;
      options.set_log_errors(false);
      auto re =
          std::make_shared<RE2>(re2::StringPiece(n.pattern.data(), n.pattern.size()), options);
      if (re->ok())
        n.regex = std::move(re);
      else
        n.patternUnsupported = true;
    }
    return &n;
  }

 private:
  std::deque<Node>& nodes_;
  std::unordered_map<std::uint32_t, const Node*> seen_;
};

// Whether `n` or a node below it has a default, memoized in `seen` (aliased nodes are
// shared, and a schema that refers to itself through an alias must not loop).
bool hasDefaultsBelow(const Node& n, std::unordered_map<const Node*, bool>& seen) {
  if (auto it = seen.find(&n); it != seen.end()) return it->second;
  seen.emplace(&n, false);
  bool any = static_cast<bool>(n.defaultValue);
  for (const auto& p : n.properties) any = hasDefaultsBelow(*p.second, seen) || any;
  if (n.additionalProperties) any = hasDefaultsBelow(*n.additionalProperties, seen) || any;
  if (n.items) any = hasDefaultsBelow(*n.items, seen) || any;
  seen[&n] = any;
  return any;
}

}  // namespace

std::unique_ptr<KindSchema> compileCrd(yaml::NodeRef crd, std::string origin) {
  if (crd.get("kind").str() != "CustomResourceDefinition") return nullptr;
  yaml::NodeRef spec = crd.get("spec");
  std::string_view group = spec.get("group").str();
  std::string_view kind = spec.get("names").get("kind").str();
  yaml::NodeRef versions = spec.get("versions");
  if (kind.empty() || !versions.isSequence() || versions.size() == 0) return nullptr;
  auto out = std::make_unique<KindSchema>();
  out->group = group;
  out->kind = kind;
  out->origin = std::move(origin);
  Compiler compiler(out->nodes);
  for (yaml::NodeRef v : versions.items()) {
    VersionSchema vs;
    vs.name = v.get("name").str();
    if (vs.name.empty()) continue;
    vs.served = v.get("served").asBool().value_or(true);
    vs.deprecated = flag(v.get("deprecated"));
    vs.deprecationWarning = v.get("deprecationWarning").str();
    yaml::NodeRef s = v.get("schema").get("openAPIV3Schema");
    if (s.isMapping()) vs.root = compiler.compile(s);
    out->versions.push_back(vs);
  }
  if (out->versions.empty()) return nullptr;
  std::unordered_map<const Node*, bool> seen;
  for (Node& n : out->nodes) n.hasDefaults = hasDefaultsBelow(n, seen);
  return out;
}

namespace {

// One embedded file, lib/schema/data/<source>/<group or "core">/<Kind>.yaml, compiled on first
// use and kept for the process.
struct Builtin {
  std::string_view path;
  std::string_view source;
  std::string group;
  std::string kind;
  std::string_view text;
  std::once_flag once;
  std::unique_ptr<yaml::Tree> tree;
  std::unique_ptr<KindSchema> schema;

  const KindSchema* get() {
    std::call_once(once, [this] {
      yaml::ParseResult parsed = yaml::parse(std::string(text), yaml::ParseLimits{}, false);
      tree = std::move(parsed.tree);
      if (tree && !tree->documents().empty())
        schema = compileCrd(tree->root(0), "built in (" + std::string(path) + ")");
    });
    return schema.get();
  }
  // Whether the registry of `channel` serves it: Gateway API's files come in one folder per
  // channel, the other sources in one.
  bool in(Channel channel) const {
    if (source == "gateway-api-standard") return channel == Channel::Standard;
    if (source == "gateway-api-experimental") return channel == Channel::Experimental;
    return true;
  }
};

// Every embedded file, sorted by kind and group so that a lookup is a binary search.
std::vector<std::unique_ptr<Builtin>>& builtins() {
  static std::vector<std::unique_ptr<Builtin>>* all = [] {
    auto* out = new std::vector<std::unique_ptr<Builtin>>();
    std::size_t count = 0;
    const EmbeddedSchema* files = embeddedSchemas(count);
    constexpr std::string_view kPrefix = "lib/schema/data/";
    for (std::size_t i = 0; i < count; ++i) {
      std::string_view rest = files[i].path.substr(kPrefix.size());
      const std::size_t a = rest.find('/');
      const std::size_t b = rest.find('/', a + 1);
      if (a == std::string_view::npos || b == std::string_view::npos) continue;
      auto builtin = std::make_unique<Builtin>();
      builtin->path = files[i].path;
      builtin->source = rest.substr(0, a);
      builtin->group = std::string(rest.substr(a + 1, b - a - 1));
      if (builtin->group == "core") builtin->group.clear();
      std::string_view file = rest.substr(b + 1);
      builtin->kind = std::string(file.substr(0, file.rfind('.')));
      builtin->text = files[i].text;
      out->push_back(std::move(builtin));
    }
    std::sort(out->begin(), out->end(), [](const auto& x, const auto& y) {
      return std::tie(x->kind, x->group, x->source) < std::tie(y->kind, y->group, y->source);
    });
    return out;
  }();
  return *all;
}

}  // namespace

Registry::Registry(Channel channel) : channel_(channel) {}

const KindSchema* Registry::builtin(std::string_view group, std::string_view kind,
                                    Channel channel) {
  auto& all = builtins();
  auto it = std::lower_bound(all.begin(), all.end(), std::pair{kind, group},
                             [](const std::unique_ptr<Builtin>& b, const auto& key) {
                               return std::pair<std::string_view, std::string_view>(b->kind,
                                                                                    b->group) <
                                      key;
                             });
  for (; it != all.end() && (*it)->kind == kind && (*it)->group == group; ++it)
    if ((*it)->in(channel)) return (*it)->get();
  return nullptr;
}

Registry::~Registry() = default;

std::shared_ptr<const KindSchema> CompiledCrds::compile(yaml::NodeRef crd,
                                                        const std::string& origin) {
  const std::pair<const yaml::Tree*, std::uint32_t> key{crd.tree(), crd.index()};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = byNode_.find(key); it != byNode_.end()) return it->second;
  }
  std::shared_ptr<const KindSchema> k = compileCrd(crd, origin);
  std::lock_guard<std::mutex> lock(mutex_);
  return byNode_.try_emplace(key, std::move(k)).first->second;
}

bool Registry::add(yaml::NodeRef crd, std::string origin) {
  std::shared_ptr<const KindSchema> k =
      crds_ ? crds_->compile(crd, origin) : compileCrd(crd, std::move(origin));
  if (!k) return false;
  for (auto& existing : added_) {
    if (existing->group == k->group && existing->kind == k->kind) {
      existing = std::move(k);
      return true;
    }
  }
  added_.push_back(std::move(k));
  return true;
}

const KindSchema* Registry::find(std::string_view group, std::string_view kind) const {
  // Kinds first: they tell the schemas of one group apart, and most differ in length.
  for (const auto& k : added_)
    if (k->kind == kind && k->group == group) return k.get();
  return builtin(group, kind, channel_);
}

namespace {

void collectRules(const Node& node, std::string& path, std::string_view kind,
                  std::unordered_map<const CelRule*, bool>& seen, CelSummary& out) {
  for (const CelRule& r : node.rules) {
    if (!seen.emplace(&r, true).second) continue;
    ++out.total;
    if (!r.program) {
      out.unenforced.push_back(std::string(kind) + " " + (path.empty() ? "." : path) + ": " +
                               std::string(r.rule) + ": " + r.unenforced);
    } else if (r.transition) {
      ++out.transition;
    } else {
      ++out.enforced;
    }
  }
  std::size_t mark = path.size();
  for (const auto& [name, child] : node.properties) {
    path += path.empty() ? "" : ".";
    path += name;
    collectRules(*child, path, kind, seen, out);
    path.resize(mark);
  }
  if (node.additionalProperties) {
    path += "[*]";
    collectRules(*node.additionalProperties, path, kind, seen, out);
    path.resize(mark);
  }
  if (node.items) {
    path += "[*]";
    collectRules(*node.items, path, kind, seen, out);
    path.resize(mark);
  }
}

}  // namespace

CelSummary builtinCelRules() {
  CelSummary out;
  for (const auto& b : builtins()) {
    const KindSchema* schema = b->get();
    if (!schema) continue;
    const std::string& kind = b->kind;
    std::unordered_map<const CelRule*, bool> seen;
    for (const VersionSchema& v : schema->versions) {
      if (!v.root) continue;
      std::string path;
      collectRules(*v.root, path, kind, seen, out);
    }
  }
  return out;
}

std::vector<Registry::PolicyLabel> Registry::builtinPolicyLabels(Channel channel) {
  // The generator writes the label in the CRD's metadata, near the top of the file:
  // `labels: {gateway.networking.k8s.io/policy: Direct}`.
  constexpr std::string_view kKey = "gateway.networking.k8s.io/policy: ";
  std::vector<PolicyLabel> out;
  for (const auto& b : builtins()) {
    if (!b->in(channel)) continue;
    std::string_view head = b->text.substr(0, b->text.find("\nspec:"));
    std::size_t at = head.find(kKey);
    if (at == std::string_view::npos) continue;
    std::string_view value = head.substr(at + kKey.size());
    value = value.substr(0, value.find_first_of("},\n"));
    if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"'))
      value = value.substr(1, value.size() - 2);
    out.push_back({b->group, b->kind, value});
  }
  return out;
}

std::vector<BuiltinKind> Registry::builtinKinds() {
  std::vector<BuiltinKind> out;
  for (const auto& b : builtins()) out.push_back({std::string(b->source), b->group, b->kind});
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace pg::schema
