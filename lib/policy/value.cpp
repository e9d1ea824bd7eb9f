#include "lib/policy/value.h"

#include <algorithm>

namespace pg::policy {

Value* Value::find(std::string_view key) {
  for (auto& [k, v] : entries)
    if (k == key) return &v;
  return nullptr;
}

const Value* Value::find(std::string_view key) const {
  return const_cast<Value*>(this)->find(key);
}

void Value::erase(std::string_view key) {
  std::erase_if(entries, [&](const auto& e) { return e.first == key; });
}

std::string joinField(const std::string& prefix, std::string_view key) {
  std::string part =
      key.find('.') == std::string_view::npos ? std::string(key) : "[\"" + std::string(key) + "\"]";
  if (prefix.empty()) return part;
  return part.front() == '[' ? prefix + part : prefix + "." + part;
}

Value wholeValue(yaml::NodeRef node, const Origin& origin) {
  Value v;
  v.node = node;
  v.origin = origin;
  return v;
}

namespace {

// Every policy whose part of `v` the new value replaces. A replacement by the same value
// (`with`, when known) overrides nothing.
void logReplaced(const Value& v, const std::string& field, const Origin& by,
                 std::vector<Overridden>& overridden, yaml::NodeRef with = {}) {
  if (v.isNode()) {
    if (with && sameValue(v.node, with)) return;
    if (v.origin.policy != by.policy || v.origin.role != by.role)
      overridden.push_back({field, v.origin.policy, v.origin.role, by.policy, by.role});
    return;
  }
  for (const auto& [k, child] : v.entries) logReplaced(child, joinField(field, k), by, overridden);
}

// A mapping taken whole becomes a merged mapping so that later applications merge into it
// key by key.
void explode(Value& v) {
  if (!v.isNode() || !v.node.isMapping()) return;
  yaml::NodeRef node = v.node;
  Origin origin = v.origin;
  v.node = {};
  for (auto [k, child] : node.entries())
    if (node.keyNode(k.str()) == k)  // a repeated key: the first one counts, as everywhere
      v.entries.emplace_back(std::string(k.str()), wholeValue(child, origin));
}

}  // namespace

void replaceEntry(Value& into, const std::string& key, Value value,
                  std::vector<Overridden>& overridden, const std::string& prefix) {
  explode(into);
  if (into.isNode()) {
    logReplaced(into, prefix, value.origin, overridden);
    into = Value{};
  }
  if (Value* existing = into.find(key)) {
    logReplaced(*existing, joinField(prefix, key), value.origin, overridden, value.node);
    *existing = std::move(value);
    return;
  }
  into.entries.emplace_back(key, std::move(value));
}

const std::vector<std::string_view>& targetKeys() {
  static const std::vector<std::string_view> keys = {"targetRef", "targetRefs", "targetSelectors"};
  return keys;
}

void apply(Value& into, yaml::NodeRef content, const Origin& origin, Strategy strategy,
           std::vector<Overridden>& overridden, const std::string& prefix,
           const std::vector<std::string_view>& skip) {
  if (!skip.empty() && content.isMapping()) {
    // Not taken whole: only some of its keys belong to the value.
    if (strategy == Strategy::Atomic && !into.empty()) {
      logReplaced(into, prefix, origin, overridden);
      into = Value{};
    }
    explode(into);
    for (auto [k, child] : content.entries()) {
      if (std::find(skip.begin(), skip.end(), k.str()) != skip.end()) continue;
      if (content.keyNode(k.str()) != k) continue;  // a repeated key: the first one counts
      std::string key(k.str());
      if (strategy == Strategy::Patch && child.isNull()) {  // RFC 7386: null removes
        if (Value* existing = into.find(key)) {
          logReplaced(*existing, joinField(prefix, key), origin, overridden);
          into.erase(key);
        }
        continue;
      }
      if (strategy == Strategy::Atomic || !child.isMapping()) {
        replaceEntry(into, key, wholeValue(child, origin), overridden, prefix);
      } else {
        Value* existing = into.find(key);
        if (!existing) {
          into.entries.emplace_back(key, wholeValue(child, origin));
        } else {
          apply(*existing, child, origin, strategy, overridden, joinField(prefix, key));
        }
      }
    }
    return;
  }
  if (strategy == Strategy::Atomic || !content.isMapping()) {
    if (!into.empty()) logReplaced(into, prefix, origin, overridden);
    into = wholeValue(content, origin);
    return;
  }
  explode(into);
  if (into.isNode()) {  // a scalar or list replaced by a mapping
    logReplaced(into, prefix, origin, overridden);
    into = Value{};
  }
  for (auto [k, child] : content.entries()) {
    if (content.keyNode(k.str()) != k) continue;  // a repeated key: the first one counts
    std::string key(k.str());
    std::string field = joinField(prefix, key);
    Value* existing = into.find(key);
    if (strategy == Strategy::Patch && child.isNull()) {
      if (existing) {
        logReplaced(*existing, field, origin, overridden);
        into.erase(key);
      }
      continue;
    }
    if (!existing) {
      into.entries.emplace_back(key, wholeValue(child, origin));
      continue;
    }
    if (child.isMapping() && (existing->node.isMapping() || !existing->isNode())) {
      apply(*existing, child, origin, strategy, overridden, field);
      continue;
    }
    logReplaced(*existing, field, origin, overridden, child);
    *existing = wholeValue(child, origin);
  }
}

namespace {

void collect(const Value& v, const std::string& field, std::vector<Provenance>& out) {
  if (v.isNode()) {
    out.push_back({field, v.origin, v.node});
    return;
  }
  for (const auto& [k, child] : v.entries) collect(child, joinField(field, k), out);
}

}  // namespace

std::vector<Provenance> provenanceOf(const Value& value) {
  std::vector<Provenance> out;
  collect(value, {}, out);
  return out;
}

namespace {

// Depth first, as provenanceOf, without building field paths nobody reads here.
void collectPolicies(const Value& v, std::optional<Role> role, std::vector<const Policy*>& out) {
  if (v.isNode()) {
    if ((!role || v.origin.role == *role) &&
        std::find(out.begin(), out.end(), v.origin.policy) == out.end())
      out.push_back(v.origin.policy);
    return;
  }
  for (const auto& entry : v.entries) collectPolicies(entry.second, role, out);
}

}  // namespace

std::vector<const Policy*> contributorsOf(const Value& value, std::optional<Role> role) {
  std::vector<const Policy*> out;
  collectPolicies(value, role, out);
  return out;
}

}  // namespace pg::policy

namespace pg::policy {

namespace {

// The fields both mappings set to different values, as a merge that combines mappings key by
// key sees them: mappings on both sides are compared key by key (two policies naming different
// limits, or different keys of one map, do not conflict); anything else set on both sides with
// different values is one field where the winner matters.
void differingFields(yaml::NodeRef a, yaml::NodeRef b, const std::string& prefix,
                     const std::vector<std::string_view>& skip, std::vector<std::string>& out) {
  for (auto [k, va] : a.entries()) {
    if (a.keyNode(k.str()) != k) continue;  // a repeated key: the first one counts
    if (std::find(skip.begin(), skip.end(), k.str()) != skip.end()) continue;
    yaml::NodeRef vb = b.get(k.str());
    if (!vb) continue;
    std::string field = joinField(prefix, k.str());
    if (va.isMapping() && vb.isMapping()) {
      differingFields(va, vb, field, {}, out);
    } else if (!sameValue(va, vb) && std::find(out.begin(), out.end(), field) == out.end()) {
      out.push_back(std::move(field));
    }
  }
}

}  // namespace

std::vector<std::string> conflictingFields(const Policy& a, const Policy& b) {
  std::vector<std::string> out;
  for (const Block& blockA : a.blocks) {
    const Block* blockB = b.block(blockA.role);
    if (!blockB || !blockA.node.isMapping() || !blockB->node.isMapping()) continue;
    const std::vector<std::string_view>& skip =
        blockA.role == Role::Intent ? targetKeys() : std::vector<std::string_view>{};
    differingFields(blockA.node, blockB->node, "", skip, out);
  }
  return out;
}

}  // namespace pg::policy
