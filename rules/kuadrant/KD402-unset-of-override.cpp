#include <algorithm>

#include "rules/kuadrant/kuadrant_rules.h"

namespace pg::rules {
namespace {

using namespace kuadrantrules;

// An entry of `spec.unset` that names a rule a less specific policy sets as an override on
// some path to the policy's targets: unset removes inherited defaults only, so the override
// stays in the effective policy (RFC 0009, example F2).
void check(Context& ctx) {
  const analysis::Analysis& a = ctx.analysis();
  for (const policy::Policy& p : a.policies.policies) {
    if (!inherited(p) || !p.unset || !policy::kuadrant::usable(p)) continue;
    std::vector<RuleAbove> above = rulesAbove(a, p);
    for (yaml::NodeRef item : p.unset.items()) {
      std::vector<const RuleAbove*> overrides;
      for (const RuleAbove& r : above)
        if (r.role == policy::Role::Override && policy::kuadrant::unsetNames(item.str(), r.rule.id))
          overrides.push_back(&r);
      if (overrides.empty()) continue;
      std::string by;
      std::vector<const policy::Policy*> policies;
      for (const RuleAbove* r : overrides) {
        if (std::find(policies.begin(), policies.end(), r->policy) != policies.end()) continue;
        policies.push_back(r->policy);
        by += (by.empty() ? "" : ", ") + describe(*r->policy) + " (on " + r->level + ")";
      }
      const RuleAbove& first = *overrides.front();
      model::Finding& f = reportOn(
          ctx, p, p.resource->locate(item),
          "`spec.unset` entry `" + std::string(item.str()) + "` has no effect on an override: " +
              by + (policies.size() > 1 ? " set" : " sets") + " rule `" + nameOf(p, first) +
              "` as an override, and unsetting removes inherited defaults only; an override "
              "stays in the effective policy (RFC 0009, \"Unsetting inherited defaults\", "
              "example F2). "
              "Remove the entry, or ask the owner of the override to make `" +
              nameOf(p, first) + "` a default");
      for (const policy::Policy* q : policies) f.objects.push_back(q->display());
      for (const RuleAbove* r : overrides) {
        f.related.push_back(
            {locationOf(*r), describe(*r->policy) + " overrides `" + nameOf(p, *r) + "` here"});
      }
      f.discriminator = "unset " + std::string(item.str());
    }
  }
}

}  // namespace

PG_RULE(KD402, "unset-of-override", "kuadrant", Warning,
        "spec.unset names a rule a less specific policy sets as an override: it has no effect",
        kuadrantrules::kSubjects, check)

}  // namespace pg::rules
