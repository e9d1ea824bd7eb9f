#include "rules/policy/policy_rules.h"

namespace pg::rules {
namespace {

using namespace policyrules;

std::string names(const std::vector<const policy::Policy*>& policies) {
  std::string out;
  for (const policy::Policy* p : policies) out += (out.empty() ? "" : ", ") + p->display();
  return out;
}

// A policy that sets nothing anywhere it reaches, because overrides above it replace every
// field it sets: it reads as if it mattered and does not.
void check(Context& ctx) {
  for (const auto& [p, reach] : reachOf(ctx.analysis())) {
    if (reach.paths == 0 || reach.effectiveOn != 0) continue;
    if (reach.overriddenBy.empty() || !reach.onlyOverrides) continue;
    if (conflicted(*p)) continue;  // rejected outright: PA303/PA304 say why
    const policy::Target* first = nullptr;
    for (const policy::Target& t : p->targets)
      if (t.attached()) {
        first = &t;
        break;
      }
    if (!first) continue;
    model::Finding& f = reportOn(
        ctx, *p, first->node,
        p->profile->kind + " " + p->key() + " has no effect: on every path it reaches (" +
            std::to_string(reach.paths) + "), overrides from " + names(reach.overriddenBy) +
            " replace every field it sets. Remove it, or ask the owner of the override to "
            "turn the fields you need into defaults");
    for (const policy::Policy* by : reach.overriddenBy) {
      f.objects.push_back(by->display());
      if (const policy::Block* b = by->block(policy::Role::Override))
        f.related.push_back({by->resource->locate(b->node), by->display() + " overrides it"});
    }
  }
}

}  // namespace

PG_RULE(PA305, "override-shadows-policy", "policy", Warning,
        "Overrides from a less specific policy replace everything a policy sets",
        policyrules::kPolicySubjects, check)

}  // namespace pg::rules
