// Internal to lib/policy/kuadrant: the named policy rules Kuadrant merges. The RFC (0009,
// "Defaults & Overrides") makes the named rule the unit of every merge: a `merge` block
// takes or replaces rules one by one, an `atomic` block takes or replaces all of them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lib/policy/family.h"

namespace pg::policy::kuadrant {

// One named rule of a block: `limits.<name>` (RateLimitPolicy), `rules.<section>.<name>`
// (AuthPolicy), and the block-wide pieces Kuadrant v1 merges as rules of their own
// (`when`, AuthPolicy's `patterns.<name>`).
struct NamedRule {
  std::vector<std::string> id;  // the path in the effective value: {"limits", "api"}
  yaml::NodeRef node;
  std::size_t slot = 0;  // where the rule's kind sits in the layout: orders the output
};

// The rules a block declares. `content` is the block (`spec.defaults`, `spec.overrides`) or,
// for bare rules, the spec.
std::vector<NamedRule> rulesOf(const Profile& profile, yaml::NodeRef content);

// Whether a rule counts toward a non-empty policy: Kuadrant's atomic defaults apply only
// to a policy without any rule under `limits`/`rules`, whatever its `when` says.
bool countsAsRule(const Profile& profile, const NamedRule& rule);

// Whether an entry of `spec.unset` names the rule: its name, or its id with any leading
// part left off (`api`, `limits.api`; `a`, `authentication.a`, `rules.authentication.a`).
bool unsetNames(std::string_view entry, const std::vector<std::string>& id);

// The rule as status messages name it: its id without the rules field (`api`,
// `authentication.a`, `when`).
std::string ruleName(const Profile& profile, const std::vector<std::string>& id);

// The dotted field of a rule in the effective value (`limits.api`).
std::string fieldOf(const std::vector<std::string>& id);

// Whether the policy takes part in the merge: accepted and not invalid.
bool usable(const Policy& policy);

// The keys that hold rules at the top of a block; at the top of a spec they are bare rules
// (`limits`, `when`; AuthPolicy: `rules`, `patterns`, `when`).
std::vector<std::string> bareRuleKeys(const Profile& profile);

// The `when` of a block (`spec.defaults`, `spec.overrides`, or the spec for bare rules) that
// is neither a list of request predicates nor a constraint policygraph evaluates: it makes
// the policy Invalid. Empty otherwise.
yaml::NodeRef conditionWhen(yaml::NodeRef content);
// The `when` of a block that is RFC 0009's constraint on the lower policy, in the CEL subset
// of when.h: the block applies only where it holds. Empty otherwise.
yaml::NodeRef constraintWhen(yaml::NodeRef content);

}  // namespace pg::policy::kuadrant
