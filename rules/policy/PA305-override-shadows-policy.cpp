#include <algorithm>

#include "rules/policy/policy_rules.h"

namespace pg::rules {
namespace {

using namespace policyrules;

// A policy that sets nothing anywhere it reaches, because overrides replace every field it
// sets: from above it, or from a policy on the same target that creation order puts first.
// It reads as if it mattered and does not.
void check(Context& ctx) {
  for (const auto& [p, reach] : reachOf(ctx)) {
    if (reach.paths == 0 || reach.effectiveOn != 0 || !reach.onlyOverrides()) continue;
    if (conflicted(*p)) continue;                // rejected outright: PA303/PA304 say why
    if (!p->invalidMessage.empty()) continue;    // rejected outright: PA309
    if (reach.dependsOnNameOrder(*p)) continue;  // PA304: the cluster may decide otherwise
    const policy::Target* first = nullptr;
    for (const policy::Target& t : p->targets)
      if (t.attached()) {
        first = &t;
        break;
      }
    if (!first) continue;
    bool fromAbove =
        std::any_of(reach.replacedBy.begin(), reach.replacedBy.end(),
                    [](const Replacement& r) { return r.relation == Relation::Above; });
    model::Finding& f = reportOn(
        ctx, *p, first->node,
        p->profile->kind + " " + p->key() + " has no effect, overridden wherever it applies: on " +
            "every path it reaches (" + std::to_string(reach.paths) +
            "), overrides replace every field it sets: " + describeReplacements(*p, reach) +
            ". Remove it" +
            (fromAbove ? ", or ask the owner of the override to turn the fields you need into "
                         "defaults"
                       : ", or merge it with the policy that wins"));
    std::vector<const policy::Policy*> listed;
    for (const Replacement& r : reach.replacedBy) {
      if (std::find(listed.begin(), listed.end(), r.by) != listed.end()) continue;
      listed.push_back(r.by);
      f.objects.push_back(r.by->display());
      if (const policy::Block* b = r.by->block(policy::Role::Override))
        f.related.push_back({r.by->resource->locate(b->node), r.by->display() + " overrides it"});
    }
  }
}

}  // namespace

PG_RULE(PA305, "override-shadows-policy", "policy", Warning,
        "Overrides from a less specific policy replace everything a policy sets",
        policyrules::kPolicySubjects, check)

}  // namespace pg::rules
