// What the policy attachment rules (PA3xx) share: how they name targets and policies, where
// they point, and the per-policy reach they judge, computed once from the effective policies
// the analysis holds.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lib/policy/engine.h"
#include "rules/rule.h"

namespace pg::rules::policyrules {

// Subjects for reports that list every check: the kinds policies come in are open-ended.
inline constexpr std::string_view kPolicySubjects = "*";

// "HTTPRoute shop/checkout" or "listener https of Gateway infra/public".
std::string describeTarget(const policy::Target& t);
// describeTarget(first), then "and N other targets" when a finding stands for `count` targets.
std::string describeTargets(const policy::Target& first, std::size_t count);

// Reports at `at`, a node of the policy's own object, with the policy as subject.
model::Finding& reportOn(Context& ctx, const policy::Policy& p, yaml::NodeRef at,
                         std::string message);

// The location of a policy's target reference, for related locations.
model::Location targetLocation(const policy::Policy& p, const policy::Target& t);

// Where the policy that replaced a field stands relative to the policy it replaced, on the
// hierarchy path where it happened.
enum class Relation { Self, Above, SameTarget, Below };

// One way a policy lost fields: to whom, in which of its blocks, by which block.
struct Replacement {
  const policy::Policy* by = nullptr;
  policy::Role role = policy::Role::Intent;    // the block of the replaced policy
  policy::Role byRole = policy::Role::Intent;  // the block that replaced it
  Relation relation = Relation::Above;
  bool operator==(const Replacement&) const = default;
};

// Every policy's standing across the objects it reaches (PolicyModel::effective).
struct Reach {
  std::size_t paths = 0;            // hierarchy paths the policy is on
  std::size_t effectiveOn = 0;      // paths where it sets at least one field
  bool defaultTakesEffect = false;  // some field of its default block survives somewhere
  bool reachesRoute = false;
  std::vector<Replacement> replacedBy;  // distinct

  // Every replacement was by an override of another policy (above it, or on the same
  // target): what PA305 reports when nothing of the policy is left.
  bool onlyOverrides() const;
  // Some field went to a policy on the same target, in the same role, ahead of it by name
  // alone: the outcome is PA304's to report, since a cluster may order them otherwise.
  bool dependsOnNameOrder(const policy::Policy& p) const;
};
std::map<const policy::Policy*, Reach> reachOf(const analysis::Analysis& a);
// The same, computed once per rule run and shared by the rules that judge it.
const std::map<const policy::Policy*, Reach>& reachOf(Context& ctx);

// "the override of TimeoutPolicy/infra/public (attached above it)", ...: who replaced the
// fields of `role` (every role when unset), for messages.
std::string describeReplacements(const policy::Policy& p, const Reach& reach,
                                 std::optional<policy::Role> role = {});

// Whether a policy's status says the controller rejected it as Conflicted.
bool conflicted(const policy::Policy& p);

}  // namespace pg::rules::policyrules
