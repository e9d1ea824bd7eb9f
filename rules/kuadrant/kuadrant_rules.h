// What the Kuadrant rules (KD4xx) share: which policies they judge, where they point, and the
// named rules less specific policies of a kind define on the paths to a policy's targets.
// Kuadrant's own reading of a policy (blocks, named rules, `spec.unset`) is in
// lib/policy/kuadrant; these rules only judge it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lib/policy/engine.h"
#include "lib/policy/kuadrant/kuadrant.h"
#include "rules/rule.h"

namespace pg::rules::kuadrantrules {

// The kinds whose `defaults`/`overrides`/`unset` these rules read.
inline constexpr std::string_view kSubjects = "AuthPolicy,RateLimitPolicy";

// An inherited Kuadrant policy (AuthPolicy, RateLimitPolicy): the kinds with blocks.
bool inherited(const policy::Policy& p);

// Reports at `where`, a span in the policy's own file, with the policy as subject.
model::Finding& reportOn(Context& ctx, const policy::Policy& p, model::Location where,
                         std::string message);

// "RateLimitPolicy shop/toystore-limits"
std::string describe(const policy::Policy& p);

// A named rule a less specific policy of the same kind defines on some path to one of a
// policy's targets.
struct RuleAbove {
  const policy::Policy* policy = nullptr;
  policy::Role role = policy::Role::Intent;  // Intent: bare rules, implicit atomic defaults
  policy::kuadrant::NamedRule rule;
  yaml::NodeRef parent;  // the mapping that holds the rule, for its key's position
  std::string level;     // the step it is attached to: "Gateway/infra/public"
};

// Every rule of every policy of `p`'s kind attached to a strictly less specific step of a
// path to one of `p`'s attached targets (policies rejected as invalid attach nowhere): the rules
// `p`'s `spec.unset` can act on. Each (policy, role, rule) once, in path order.
std::vector<RuleAbove> rulesAbove(const analysis::Analysis& a, const policy::Policy& p);

// The rule as `unset` would name it: `api`, `authentication.a`.
std::string nameOf(const policy::Policy& p, const RuleAbove& r);

// The span of a rule's key in its policy's file.
model::Location locationOf(const RuleAbove& r);

}  // namespace pg::rules::kuadrantrules
