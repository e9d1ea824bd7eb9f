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

// A default block that no object the policy reaches ends up using: more specific policies
// (or overrides) set every field it defaults, everywhere.
void check(Context& ctx) {
  for (const auto& [p, reach] : reachOf(ctx.analysis())) {
    const policy::Block* defaults = p->block(policy::Role::Default);
    if (!defaults || reach.paths == 0 || reach.defaultTakesEffect) continue;
    if (conflicted(*p)) continue;
    // Nothing at all takes effect and overrides did it: PA305's finding.
    if (reach.effectiveOn == 0 && reach.onlyOverrides && !reach.overriddenBy.empty()) continue;
    std::string by;
    for (const policy::Policy* other : reach.overriddenBy)
      by += (by.empty() ? "" : ", ") + other->display();
    model::Finding& f = reportOn(
        ctx, *p, defaultKey(*p),
        "the defaults of " + p->profile->kind + " " + p->key() +
            " never take effect: on every path it reaches (" + std::to_string(reach.paths) + "), " +
            (by.empty() ? std::string("other policies") : by) +
            " set every field they default. Remove the defaults, or move them to a level "
            "where nothing more specific sets those fields");
    f.discriminator = "defaults";
  }
}

}  // namespace

PG_RULE(PA306, "default-never-effective", "policy", Warning,
        "A policy's defaults are replaced everywhere they would apply",
        policyrules::kPolicySubjects, check)

}  // namespace pg::rules
