// Reading Kuadrant policies: which block a policy declares (defaults, overrides, or bare
// rules as implicit atomic defaults) and the named rules inside it.
//
// `when` on a block: Kuadrant v1 reads a list there as request predicates (`- predicate:
// <CEL>`), evaluated by the gateway on each request, and merges it as one more rule of the
// block. The RFC's examples E1-E3 propose another `when`: one CEL expression on the lower
// policy (`self`) that decides whether the block applies at all (constraints). policygraph
// evaluates the subset of CEL such conditions are written in (when.h) and applies the block
// only where it holds; a condition outside the subset makes the policy Invalid, with the
// reason, since guessing either way would print an effective policy the cluster may not have.
#include <algorithm>
#include <array>
#include <span>
#include <string_view>

#include "lib/policy/kuadrant/kuadrant.h"
#include "lib/policy/kuadrant/when.h"

namespace pg::policy::kuadrant {

namespace {

// Where a kind keeps its named rules, relative to a block, in the order effective policies
// list them (AuthPolicy: the order Authorino evaluates its phases). Views of literals and
// of the profile: rulesOf asks for it for every block on every path, so it allocates nothing.
struct Slot {
  std::array<std::string_view, 4> keys;
  std::size_t depth = 0;
  bool named = true;  // a map of named rules; else the node is one rule
  std::span<const std::string_view> path() const { return {keys.data(), depth}; }
};

struct Layout {
  std::array<Slot, 10> slots;
  std::size_t size = 0;
  const Slot* begin() const { return slots.data(); }
  const Slot* end() const { return slots.data() + size; }
};

Layout layoutOf(const Profile& profile) {
  // AuthPolicy v1: the sections of `rules`, named patterns and the block's predicates.
  // Sections the schema does not define are dropped by the API server, so they are not read.
  static constexpr Layout kAuthPolicy{{{
                                          {{"rules", "authentication"}, 2, true},
                                          {{"rules", "metadata"}, 2, true},
                                          {{"rules", "authorization"}, 2, true},
                                          {{"rules", "response", "unauthenticated"}, 3, false},
                                          {{"rules", "response", "unauthorized"}, 3, false},
                                          {{"rules", "response", "success", "headers"}, 4, true},
                                          {{"rules", "response", "success", "filters"}, 4, true},
                                          {{"rules", "callbacks"}, 2, true},
                                          {{"patterns"}, 1, true},
                                          {{"when"}, 1, false},
                                      }},
                                      10};
  if (profile.rulesField == "rules") return kAuthPolicy;
  Layout layout;
  if (profile.rulesField.empty()) return layout;
  layout.slots[0] = {{profile.rulesField}, 1, true};
  layout.slots[1] = {{"when"}, 1, false};
  layout.size = 2;
  return layout;
}

yaml::NodeRef at(yaml::NodeRef node, std::span<const std::string_view> path) {
  for (std::string_view key : path) node = node.get(key);
  return node;
}

void invalid(Policy& policy, std::string message, yaml::NodeRef node) {
  if (!policy.invalidMessage.empty()) return;  // the first problem is the one reported
  policy.invalidMessage = std::move(message);
  policy.invalidAt = node;
}

void readBlock(Policy& policy, Role role, std::string_view name, yaml::NodeRef node) {
  std::string where = "spec." + std::string(name);
  if (!node.isMapping()) {
    invalid(policy, where + " must be a mapping of policy rules", node);
    return;
  }
  Block block{role, node, Strategy::Atomic, node.get("strategy")};
  if (block.strategyNode) {
    std::string_view s = block.strategyNode.str();
    if (s == "merge") {
      block.strategy = Strategy::FieldMerge;
    } else if (s != "atomic") {
      invalid(policy,
              where + ".strategy must be \"atomic\" or \"merge\", not \"" + std::string(s) + "\"",
              block.strategyNode);
    }
  }
  policy.blocks.push_back(block);
}

void checkWhen(Policy& policy, std::string_view where, yaml::NodeRef content) {
  yaml::NodeRef when = conditionWhen(content);
  if (!when) return;
  std::string error = "it is not a string";
  if (when.isString()) WhenExpression::parse(when.str(), error);
  invalid(policy,
          std::string(where) +
              ".when must be a list of request predicates (`- predicate: <CEL>`), or a "
              "condition on the lower policy (RFC 0009's constraints) in the CEL subset "
              "policygraph evaluates; " +
              error,
          when);
}

}  // namespace

std::vector<NamedRule> rulesOf(const Profile& profile, yaml::NodeRef content) {
  std::vector<NamedRule> out;
  const Layout layout = layoutOf(profile);
  for (std::size_t i = 0; i < layout.size; ++i) {
    const Slot& slot = layout.slots[i];
    yaml::NodeRef node = at(content, slot.path());
    if (!node || node.isNull()) continue;
    auto id = [&] { return std::vector<std::string>(slot.path().begin(), slot.path().end()); };
    if (!slot.named) {
      // A constraint is a condition on the block, not a rule of it.
      if (!node.isSequence() && slot.depth == 1 && slot.keys[0] == "when") continue;
      if (node.isSequence() && node.size() == 0) continue;  // no predicates: nothing to merge
      out.push_back({id(), node, i});
      continue;
    }
    for (auto [key, value] : node.entries()) {
      NamedRule rule{id(), value, i};
      rule.id.emplace_back(key.str());
      out.push_back(std::move(rule));
    }
  }
  return out;
}

bool countsAsRule(const Profile& profile, const NamedRule& rule) {
  return !rule.id.empty() && rule.id.front() == profile.rulesField;
}

bool unsetNames(std::string_view entry, const std::vector<std::string>& id) {
  for (std::size_t first = 0; first < id.size(); ++first) {
    std::string suffix;
    for (std::size_t i = first; i < id.size(); ++i) suffix += (i == first ? "" : ".") + id[i];
    if (suffix == entry) return true;
  }
  return false;
}

std::string ruleName(const Profile& profile, const std::vector<std::string>& id) {
  std::string out;
  for (std::size_t i = 0; i < id.size(); ++i) {
    if (i == 0 && id.size() > 1 && id[0] == profile.rulesField) continue;
    out += (out.empty() ? "" : ".") + id[i];
  }
  return out;
}

std::string fieldOf(const std::vector<std::string>& id) {
  std::string field;
  for (const std::string& part : id) field = joinField(field, part);
  return field;
}

bool usable(const Policy& policy) {
  return policy.invalidMessage.empty();
}

std::vector<std::string> bareRuleKeys(const Profile& profile) {
  std::vector<std::string> keys;
  for (const Slot& s : layoutOf(profile))
    if (std::find(keys.begin(), keys.end(), s.keys[0]) == keys.end()) keys.emplace_back(s.keys[0]);
  return keys;
}

yaml::NodeRef constraintWhen(yaml::NodeRef content) {
  yaml::NodeRef when = content.get("when");
  if (!when.isScalar() || !when.isString()) return {};
  std::string error;
  return WhenExpression::parse(when.str(), error) ? when : yaml::NodeRef();
}

yaml::NodeRef conditionWhen(yaml::NodeRef content) {
  yaml::NodeRef when = content.get("when");
  if (!when || when.isSequence() || when.isNull() || constraintWhen(content)) return {};
  return when;
}

void readBlocks(Policy& policy) {
  yaml::NodeRef spec = policy.resource->spec();
  if (policy.profile->policyClass == PolicyClass::Direct) {
    // DNSPolicy, TLSPolicy: the spec is the policy; nothing is inherited or merged.
    policy.blocks.push_back({Role::Intent, spec, Strategy::FieldMerge, {}});
    return;
  }
  yaml::NodeRef defaults = spec.get("defaults");
  yaml::NodeRef overrides = spec.get("overrides");
  yaml::NodeRef bare;
  for (const std::string& key : bareRuleKeys(*policy.profile))
    if (!bare) bare = spec.get(key);

  // The v1 CRDs allow exactly one of the three (their x-kubernetes-validations), so a policy
  // mixing them never reaches a controller.
  if (defaults && overrides)
    invalid(policy, "spec.defaults and spec.overrides are mutually exclusive",
            spec.keyNode("overrides"));
  if ((defaults || overrides) && bare)
    invalid(policy,
            std::string("bare rules are implicit defaults: they cannot be used together with "
                        "spec.") +
                (defaults ? "defaults" : "overrides"),
            bare);

  if (defaults) readBlock(policy, Role::Default, "defaults", defaults);
  if (overrides) readBlock(policy, Role::Override, "overrides", overrides);
  if (!defaults && !overrides) policy.blocks.push_back({Role::Intent, spec, Strategy::Atomic, {}});
  if (defaults.isMapping()) checkWhen(policy, "spec.defaults", defaults);
  if (overrides.isMapping()) checkWhen(policy, "spec.overrides", overrides);
  if (!defaults && !overrides) checkWhen(policy, "spec", spec);

  yaml::NodeRef unset = spec.get("unset");
  if (!unset) return;
  bool names = unset.isSequence();
  for (yaml::NodeRef item : unset.items()) names = names && item.isScalar() && !item.str().empty();
  if (names)
    policy.unset = unset;
  else
    invalid(policy, "spec.unset must be a list of rule names", unset);
}

}  // namespace pg::policy::kuadrant
