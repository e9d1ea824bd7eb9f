// The effective Kuadrant policy on one hierarchy path, as RFC 0009's flowcharts build it:
// start from a policy without rules and merge the policies into it one by one, the block
// being merged deciding how ("the less specific policy's strategy decides"):
//   defaults, atomic:   taken whole, only when the policy so far has no rules;
//   defaults, merge:    each named rule taken when the policy so far lacks it;
//   overrides, atomic:  replace every rule;
//   overrides, merge:   each named rule replaces the one of the same name.
// Defaults only fill and overrides only replace, so the merge goes from the most specific
// level up, as Kuadrant v1 does (EffectivePolicyForPath reduces the path from its end): the
// first default of a rule and the last override of it stay, which is GEP-713's
// `A override > B override > C override > C default > B default > A default`. Within a
// level the established policy (policy.h) is merged first among defaults and last among
// overrides, so it wins either way. `spec.unset` of a policy removes the named rules from
// the default blocks of less specific levels merged after it; overrides ignore it.
#include <algorithm>
#include <tuple>

#include "lib/policy/kuadrant/kuadrant.h"
#include "lib/policy/kuadrant/when.h"

namespace pg::policy::kuadrant {

namespace {

struct Entry {
  NamedRule rule;
  Origin origin;
};

struct Unset {
  std::string_view name;
  Origin by;
};

class Merger {
 public:
  Merger(const Profile& profile, Effective& effective) : profile_(profile), e_(effective) {}

  void merge(const Origin& origin, const Block& block) {
    // RFC 0009 constraints: the block applies only when its condition holds for the lower
    // policy as merged so far.
    if (yaml::NodeRef when = constraintWhen(block.node)) {
      std::string error;
      std::optional<WhenExpression> condition = WhenExpression::parse(when.str(), error);
      if (!condition || !condition->holds(current())) return;
    }
    std::vector<NamedRule> rules = rulesOf(profile_, block.node);
    const bool atomic = block.strategy == Strategy::Atomic;
    if (block.role == Role::Override) {
      if (atomic) {
        for (const Entry& old : rules_) lose(old.rule.id, old.origin, origin);
        rules_.clear();
      }
      for (NamedRule& r : rules) put(std::move(r), origin);
      return;
    }
    std::erase_if(rules, [&](const NamedRule& r) { return unsetHere(r, origin); });
    if (atomic) {
      if (!hasRules()) {
        for (const Entry& old : rules_) lose(old.rule.id, old.origin, origin);
        rules_.clear();
        for (NamedRule& r : rules) put(std::move(r), origin);
        return;
      }
      // A more specific policy has rules: this whole set gives way to each that set some.
      std::vector<Origin> holders;
      for (const Entry& held : rules_)
        if (std::none_of(holders.begin(), holders.end(),
                         [&](const Origin& h) { return h.policy == held.origin.policy; }))
          holders.push_back(held.origin);
      for (const NamedRule& r : rules)
        for (const Origin& by : holders) lose(r.id, origin, by);
      return;
    }
    for (NamedRule& r : rules) {
      if (const Entry* held = find(r.id))
        lose(r.id, origin, held->origin);
      else
        rules_.push_back({std::move(r), origin});
    }
  }

  // Unset entries take effect for the less specific levels merged afterwards.
  void addUnset(const Policy& policy, const Origin& origin) {
    for (yaml::NodeRef item : policy.unset.items()) unsets_.push_back({item.str(), origin});
  }

  // The effective value: rules ordered by kind (the layout) and name, not by merge order,
  // so that adding a policy does not reorder what it leaves alone.
  void finish() {
    std::stable_sort(rules_.begin(), rules_.end(), [](const Entry& a, const Entry& b) {
      return std::tie(a.rule.slot, a.rule.id) < std::tie(b.rule.slot, b.rule.id);
    });
    build(e_.value);
  }

  // The policy merged so far, as `self` of a constraint sees it.
  Value current() const {
    Value v;
    build(v);
    return v;
  }

 private:
  void build(Value& out) const {
    for (const Entry& entry : rules_) {
      Value* into = &out;
      const std::vector<std::string>& id = entry.rule.id;
      for (std::size_t i = 0; i + 1 < id.size(); ++i) {
        Value* next = into->find(id[i]);
        if (!next) next = &into->entries.emplace_back(id[i], Value{}).second;
        into = next;
      }
      into->entries.emplace_back(id.back(), wholeValue(entry.rule.node, entry.origin));
    }
  }

  bool hasRules() const {
    return std::any_of(rules_.begin(), rules_.end(),
                       [&](const Entry& e) { return countsAsRule(profile_, e.rule); });
  }

  const Entry* find(const std::vector<std::string>& id) const {
    auto it =
        std::find_if(rules_.begin(), rules_.end(), [&](const Entry& e) { return e.rule.id == id; });
    return it == rules_.end() ? nullptr : &*it;
  }

  void put(NamedRule rule, const Origin& origin) {
    auto it = std::find_if(rules_.begin(), rules_.end(),
                           [&](const Entry& e) { return e.rule.id == rule.id; });
    if (it == rules_.end()) {
      rules_.push_back({std::move(rule), origin});
      return;
    }
    lose(it->rule.id, it->origin, origin);
    *it = {std::move(rule), origin};
  }

  bool unsetHere(const NamedRule& rule, const Origin& origin) {
    for (const Unset& u : unsets_) {
      if (u.by.step <= origin.step || !unsetNames(u.name, rule.id)) continue;
      lose(rule.id, origin, u.by);
      return true;
    }
    return false;
  }

  void lose(const std::vector<std::string>& id, const Origin& loser, const Origin& by) {
    e_.overridden.push_back({fieldOf(id), loser.policy, loser.role, by.policy, by.role});
  }

  const Profile& profile_;
  Effective& e_;
  std::vector<Entry> rules_;
  std::vector<Unset> unsets_;
};

// DNSPolicy, TLSPolicy: only policies on the target itself apply, and of those only the
// established one; the rest are Conflicted.
Effective direct(const Profile& profile, const Path& path,
                 const std::vector<Contribution>& contributions) {
  Effective e;
  e.profile = &profile;
  const Policy* winner = nullptr;
  for (const Contribution& c : contributions) {
    if (c.step + 1 != path.size()) continue;
    if (winner || !usable(*c.policy)) {
      if (c.policy != winner) e.ineffective.push_back(c.policy);
      continue;
    }
    winner = c.policy;
    if (const Block* b = c.policy->block(Role::Intent))
      apply(e.value, b->node, {c.policy, Role::Intent, path[c.step].level, c.step},
            Strategy::FieldMerge, e.overridden, {}, targetKeys());
  }
  return e;
}

}  // namespace

Effective effective(const Profile& profile, const Path& path,
                    const std::vector<Contribution>& contributions) {
  if (profile.policyClass == PolicyClass::Direct) return direct(profile, path, contributions);
  Effective e;
  e.profile = &profile;
  Merger merger(profile, e);
  for (std::size_t step = path.size(); step-- > 0;) {
    std::vector<const Contribution*> here;  // most established first
    for (const Contribution& c : contributions)
      if (c.step == step && usable(*c.policy)) here.push_back(&c);
    auto originOf = [&](const Contribution& c, const Block& b) {
      return Origin{c.policy, b.role, path[step].level, step};
    };
    for (const Contribution* c : here)
      for (const Block& b : c->policy->blocks)
        if (b.role != Role::Override) merger.merge(originOf(*c, b), b);
    for (auto it = here.rbegin(); it != here.rend(); ++it)
      for (const Block& b : (*it)->policy->blocks)
        if (b.role == Role::Override) merger.merge(originOf(**it, b), b);
    for (const Contribution* c : here)
      if (!c->policy->blocks.empty())
        merger.addUnset(*c->policy, originOf(*c, c->policy->blocks.front()));
  }
  merger.finish();
  std::vector<const Policy*> contributors = contributorsOf(e.value);
  for (const Contribution& c : contributions)
    if (std::find(contributors.begin(), contributors.end(), c.policy) == contributors.end() &&
        std::find(e.ineffective.begin(), e.ineffective.end(), c.policy) == e.ineffective.end())
      e.ineffective.push_back(c.policy);
  return e;
}

}  // namespace pg::policy::kuadrant
