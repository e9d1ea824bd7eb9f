#include <algorithm>

#include "rules/policy/policy_rules.h"

namespace pg::rules {
namespace {

using namespace policyrules;

// The default block of a policy, where it declares one (`default`/`defaults`): the key, so
// the finding points at the block the message is about.
yaml::NodeRef defaultKey(const policy::Policy& p) {
  yaml::NodeRef spec = p.resource->spec();
  yaml::NodeRef key = spec.keyNode("default");
  return key ? key : spec.keyNode("defaults");
}

// A default block that no object the policy reaches ends up using: overrides (its own, or
// another policy's above it or on the same target) or an older policy on the same target
// set every field it defaults, everywhere, the target itself included.
void check(Context& ctx) {
  for (const auto& [p, reach] : reachOf(ctx)) {
    const policy::Block* defaults = p->block(policy::Role::Default);
    if (!defaults || reach.paths == 0 || reach.defaultTakesEffect) continue;
    if (conflicted(*p) || !p->invalidMessage.empty()) continue;  // rejected outright
    // Nothing at all takes effect and overrides did it: PA305's finding.
    if (reach.effectiveOn == 0 && reach.onlyOverrides()) continue;
    // Lost to a policy on the same target by name order alone: PA304's finding.
    if (reach.dependsOnNameOrder(*p)) continue;
    std::string by = describeReplacements(*p, reach, policy::Role::Default);
    bool onlySelf =
        std::all_of(reach.replacedBy.begin(), reach.replacedBy.end(), [](const Replacement& r) {
          return r.role != policy::Role::Default || r.relation == Relation::Self;
        });
    model::Finding& f = reportOn(
        ctx, *p, defaultKey(*p),
        "the defaults of " + p->profile->kind + " " + p->key() +
            " never take effect: on every path it reaches (" + std::to_string(reach.paths) +
            "), they are replaced by " + (by.empty() ? std::string("other policies") : by) +
            (onlySelf ? ". Remove them from the default block: the override already decides them"
                      : ". Remove the defaults that cannot apply, or change the policy that "
                        "replaces them"));
    f.discriminator = "defaults";
    std::vector<const policy::Policy*> listed;
    for (const Replacement& r : reach.replacedBy) {
      if (r.role != policy::Role::Default || r.relation == Relation::Self) continue;
      if (std::find(listed.begin(), listed.end(), r.by) != listed.end()) continue;
      listed.push_back(r.by);
      f.objects.push_back(r.by->display());
      if (const policy::Block* b = r.by->block(r.byRole))
        f.related.push_back(
            {r.by->resource->locate(b->node), r.by->display() + " sets the same fields"});
    }
  }
}

}  // namespace

PG_RULE(PA306, "default-never-effective", "policy", Warning,
        "A policy's defaults are replaced everywhere they would apply",
        policyrules::kPolicySubjects, check)

}  // namespace pg::rules
