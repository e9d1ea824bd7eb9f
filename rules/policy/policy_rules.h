// What the policy attachment rules (PA3xx) share: how they name targets and policies, where
// they point, and the per-policy reach they judge, computed once from the effective policies
// the analysis holds.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "lib/policy/engine.h"
#include "rules/rule.h"

namespace pg::rules::policyrules {

// Subjects for reports that list every check: the kinds policies come in are open-ended.
inline constexpr std::string_view kPolicySubjects = "*";

// "HTTPRoute shop/checkout" or "listener https of Gateway infra/public".
std::string describeTarget(const policy::Target& t);

// Reports at `at`, a node of the policy's own object, with the policy as subject.
model::Finding& reportOn(Context& ctx, const policy::Policy& p, yaml::NodeRef at,
                         std::string message);

// The location of a policy's target reference, for related locations.
model::Location targetLocation(const policy::Policy& p, const policy::Target& t);

// Every policy's standing across the objects it reaches (PolicyModel::effective).
struct Reach {
  std::size_t paths = 0;            // hierarchy paths the policy is on
  std::size_t effectiveOn = 0;      // paths where it sets at least one field
  bool defaultTakesEffect = false;  // some field of its default block survives somewhere
  bool reachesRoute = false;
  // Policies that replaced its fields, with the roles they did it in.
  std::vector<const policy::Policy*> overriddenBy;
  bool onlyOverrides = true;  // every replacement of its fields was by an override
};
std::map<const policy::Policy*, Reach> reachOf(const analysis::Analysis& a);

// Whether a policy's status says the controller rejected it as Conflicted.
bool conflicted(const policy::Policy& p);

}  // namespace pg::rules::policyrules
