// API schemas: the structural part of a CRD's openAPIV3Schema (types, enums, patterns,
// formats, required, bounds, list types and map keys, the x-kubernetes-* markers, CEL rules,
// defaults), compiled from the document tree of a CustomResourceDefinition. The built-in
// schemas are CRD documents generated from the upstream definitions (lib/schema/data/
// <source>/<group>/<Kind>.yaml, written by scripts/gen_schemas.py), embedded at build time and
// compiled lazily, once per process and file; CRDs in the analysed repository add or replace
// them.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "lib/cel/cel.h"
#include "lib/yaml/tree.h"

namespace re2 {
class RE2;
}

namespace pg::schema {

enum class Type : std::uint8_t { Any, Object, Array, String, Integer, Number, Boolean };
enum class ListType : std::uint8_t { None, Atomic, Set, Map };

// One `x-kubernetes-validations` entry, kept as written and compiled once with the schema.
struct CelRule {
  std::string_view rule;
  std::string_view message;
  std::string_view messageExpression;
  std::string_view reason;
  std::string_view fieldPath;
  // Null when the rule cannot be enforced here; `unenforced` says why (a compile error, or
  // CEL this evaluator does not implement). A transition rule (it names `oldSelf`) is
  // compiled but not evaluated: the API server checks it on update only.
  std::shared_ptr<const cel::Program> program;
  std::shared_ptr<const cel::Program> messageProgram;  // messageExpression, when it compiles
  std::string unenforced;
  bool transition = false;
  bool direct = false;  // cel::directlyEvaluable: tried in place on the tree first
};

struct Node {
  Type type = Type::Any;
  ListType listType = ListType::None;
  bool intOrString = false;       // x-kubernetes-int-or-string
  bool preserveUnknown = false;   // x-kubernetes-preserve-unknown-fields
  bool embeddedResource = false;  // x-kubernetes-embedded-resource
  bool nullable = false;
  bool exclusiveMinimum = false;
  bool exclusiveMaximum = false;
  bool patternUnsupported = false;  // the ECMA pattern has no RE2 equivalent: not checked
  // This node or one below it has a `default` (so defaulting walks into it).
  bool hasDefaults = false;
  // Sorted by name, so a field is found by binary search without allocating.
  std::vector<std::pair<std::string_view, const Node*>> properties;
  const Node* additionalProperties = nullptr;  // a map's values
  const Node* items = nullptr;
  std::vector<std::string_view> required;
  std::vector<yaml::NodeRef> enumValues;
  std::string_view pattern;
  std::shared_ptr<const re2::RE2> regex;
  std::string_view format;
  std::optional<std::int64_t> minLength, maxLength, minItems, maxItems, minProperties,
      maxProperties;
  std::optional<double> minimum, maximum;
  std::vector<std::string_view> mapKeys;  // x-kubernetes-list-map-keys
  yaml::NodeRef defaultValue;
  std::vector<CelRule> rules;
  // allOf, anyOf, oneOf and not: value validations checked against the value as it is (a
  // structural schema's junctors add constraints, never structure). Each alternative is a
  // node of its own; `junctors` says whether any is set, so most values skip them at once.
  std::vector<const Node*> allOf, anyOf, oneOf;
  const Node* notSchema = nullptr;
  bool junctors = false;

  const Node* property(std::string_view name) const;
};

// One version of one kind.
struct VersionSchema {
  std::string_view name;  // v1, v1beta1, ...
  bool served = true;
  bool deprecated = false;
  std::string_view deprecationWarning;
  const Node* root = nullptr;  // null: the version has no schema (nothing is checked)
};

// Every version of one kind, and where its schema came from ("built in", "CustomResource-
// Definition <name> (<path>)", or a configured file).
struct KindSchema {
  std::string_view group;
  std::string_view kind;
  std::string origin;
  std::vector<VersionSchema> versions;
  std::deque<Node> nodes;  // every compiled node, which `versions` point into (never moves)
  const VersionSchema* version(std::string_view name) const;
  std::string servedVersions() const;  // "v1, v1beta1" (served ones only)
};

// Compiles one CustomResourceDefinition (apiextensions.k8s.io/v1) document. The nodes point
// into `crd`'s tree, which must outlive the result. Null when `crd` is not a CRD with a
// group, a kind and at least one version.
std::unique_ptr<KindSchema> compileCrd(yaml::NodeRef crd, std::string origin);

// The CEL rules of the built-in schemas, each counted once however many versions or fields
// share its node: how many there are, how many are enforced (evaluated on every object
// they apply to), transition rules (enforced by the API server on update only), and the
// ones that are not enforced, as "<Kind> <field path>: <rule>: <why>".
struct CelSummary {
  std::size_t total = 0;
  std::size_t enforced = 0;
  std::size_t transition = 0;
  std::vector<std::string> unenforced;
};
// Every built-in schema file counted once (both Gateway API channels).
CelSummary builtinCelRules();

// The Gateway API release channel whose built-in schemas serve gateway.networking.k8s.io and
// gateway.networking.x-k8s.io (lib/schema/data/gateway-api-<channel>/).
enum class Channel : std::uint8_t { Standard, Experimental };

// One built-in schema file: the source folder it was generated into, its group and kind.
struct BuiltinKind {
  std::string source;  // "envoy-gateway", "gateway-api-standard", "kubernetes", ...
  std::string group;
  std::string kind;
  bool operator<(const BuiltinKind& o) const {
    return std::tie(source, group, kind) < std::tie(o.source, o.group, o.kind);
  }
};

// CRDs compiled once for a run and shared by the registries of its units: a CRD file every
// unit reads (a repository's CRD folder, large ones with hundreds of CEL rules) is compiled
// once, not once per unit. Keyed by the CRD's node, so it lives no longer than the trees.
class CompiledCrds {
 public:
  // The CRD's schema, compiled on first use; null when it is not a CRD. Thread-safe.
  std::shared_ptr<const KindSchema> compile(yaml::NodeRef crd, const std::string& origin);

 private:
  std::mutex mutex_;
  std::map<std::pair<const yaml::Tree*, std::uint32_t>, std::shared_ptr<const KindSchema>> byNode_;
};

// The schemas to validate against. Built-in kinds are compiled on first use (thread-safe);
// added ones replace them.
class Registry {
 public:
  explicit Registry(Channel channel = Channel::Experimental);
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // CRDs added from now on are compiled through `crds` (shared with other registries).
  void share(std::shared_ptr<CompiledCrds> crds) { crds_ = std::move(crds); }
  // Adds or replaces the schema of the CRD's group and kind; false when it is not a CRD.
  bool add(yaml::NodeRef crd, std::string origin);
  // Null when the group and kind have no schema here.
  const KindSchema* find(std::string_view group, std::string_view kind) const;

  // Every built-in schema file (both channels), for `policygraph rules`, the README and tests.
  static std::vector<BuiltinKind> builtinKinds();
  // The `gateway.networking.k8s.io/policy` label of the built-in CRD of each kind in one
  // channel that carries it (GEP-713's Direct or Inherited, as written; other values too),
  // read from the embedded text without compiling anything.
  struct PolicyLabel {
    std::string_view group;
    std::string_view kind;
    std::string_view value;
  };
  static std::vector<PolicyLabel> builtinPolicyLabels(Channel channel);
  // The built-in schema of a group and kind in one channel (null when none): compiled once per
  // process, shared by every registry.
  static const KindSchema* builtin(std::string_view group, std::string_view kind,
                                   Channel channel);

 private:
  Channel channel_;
  std::vector<std::shared_ptr<const KindSchema>> added_;
  std::shared_ptr<CompiledCrds> crds_;
};

}  // namespace pg::schema
