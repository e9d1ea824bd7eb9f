// A merged policy value that remembers where each part came from. Leaves (and whole
// subtrees taken as one piece) are nodes of the policies' own files, so every value keeps its
// source position; mappings built by merging hold their entries in first-seen order.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lib/policy/policy.h"

namespace pg::policy {

// Who set a part of the effective value.
struct Origin {
  const Policy* policy = nullptr;
  Role role = Role::Intent;
  Level level = Level::Gateway;
  std::size_t step = 0;  // index of the level's step on the path
};

struct Value {
  struct Entry;
  // A node taken whole from one policy (a scalar, a list, or a mapping not merged further);
  // when unset, the entries of a mapping built by merging.
  yaml::NodeRef node;
  Origin origin;
  std::vector<Entry> entries;

  bool isNode() const { return static_cast<bool>(node); }
  bool empty() const;
  Value* find(std::string_view key);
  const Value* find(std::string_view key) const;
  void erase(std::string_view key);
};

// One entry of a merged mapping. Not a std::pair: clang 14 cannot instantiate
// std::pair<std::string, Value> while Value itself is being defined (libstdc++ 12 asks
// whether Value is default-constructible), so the entry is its own type, with pair's names.
struct Value::Entry {
  Entry(std::string key, Value value) : first(std::move(key)), second(std::move(value)) {}
  std::string first;
  Value second;
};

inline bool Value::empty() const {
  return !node && entries.empty();
}

// A part of one policy's contribution that another replaced.
struct Overridden {
  std::string field;  // dotted path into the effective value
  const Policy* policy = nullptr;
  Role role = Role::Intent;
  const Policy* by = nullptr;
  Role byRole = Role::Intent;
};

// Where each field of the effective value came from.
struct Provenance {
  std::string field;
  Origin origin;
  yaml::NodeRef node;  // the value, a node of the origin policy's file
};

// Applies `content` (a mapping) over `into`, the later application winning every field both
// set. FieldMerge merges mappings key by key and replaces everything else; Patch is RFC 7386
// (also: a null removes the field); Atomic replaces the whole value. Replaced parts are
// appended to `overridden`.
// Top-level keys listed in `skip` are left out (a direct policy's spec without its
// targetRefs).
void apply(Value& into, yaml::NodeRef content, const Origin& origin, Strategy strategy,
           std::vector<Overridden>& overridden, const std::string& prefix = {},
           const std::vector<std::string_view>& skip = {});

// The keys of a policy spec that say where it attaches, not what it sets.
const std::vector<std::string_view>& targetKeys();

// A whole value (copied as is) applied over a key: `into[key] = value`, logging what it
// replaced.
void replaceEntry(Value& into, const std::string& key, Value value,
                  std::vector<Overridden>& overridden, const std::string& prefix = {});

// Wraps a node as a value taken whole.
Value wholeValue(yaml::NodeRef node, const Origin& origin);

// One entry per field set, depth first: mappings built by merging are descended, nodes taken
// whole are one entry.
std::vector<Provenance> provenanceOf(const Value& value);

// Every policy that set some part of the value; with `role`, only the parts set in that role.
std::vector<const Policy*> contributorsOf(const Value& value, std::optional<Role> role = {});

// `a.b` with `key` escaped when it holds a dot (`limits["a.b"]`).
std::string joinField(const std::string& prefix, std::string_view key);

}  // namespace pg::policy

namespace pg::policy {

using yaml::sameValue;

// The fields two policies of one kind both set, in the same role, to different values: what
// conflict resolution decides between them. Dotted paths, as in provenance.
std::vector<std::string> conflictingFields(const Policy& a, const Policy& b);

}  // namespace pg::policy
