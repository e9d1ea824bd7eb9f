#include "rules/kuadrant/kuadrant_rules.h"

#include <algorithm>

namespace pg::rules::kuadrantrules {

bool inherited(const policy::Policy& p) {
  return p.profile->family == policy::Family::Kuadrant &&
         p.profile->policyClass == policy::PolicyClass::Inherited;
}

model::Finding& reportOn(Context& ctx, const policy::Policy& p, model::Location where,
                         std::string message) {
  return ctx.report(std::move(where), std::move(message), p.resource);
}

std::string describe(const policy::Policy& p) {
  return p.profile->kind + " " + p.key();
}

std::vector<RuleAbove> rulesAbove(const analysis::Analysis& a, const policy::Policy& p) {
  std::vector<RuleAbove> out;
  for (const policy::Target& t : p.targets) {
    if (!t.attached() || !t.resource) continue;
    for (const policy::Path& path :
         policy::pathsTo(a.policies, a.topology, a.store, *t.resource, t.sectionName)) {
      for (std::size_t i = 0; i + 1 < path.size(); ++i) {
        const policy::Step& step = path[i];
        for (const policy::Policy* q :
             a.policies.attachedTo(*p.profile, *step.object, step.section)) {
          if (q == &p) continue;
          for (const policy::Block& b : q->blocks) {
            for (policy::kuadrant::NamedRule& r : policy::kuadrant::rulesOf(*p.profile, b.node)) {
              bool seen = std::any_of(out.begin(), out.end(), [&](const RuleAbove& o) {
                return o.policy == q && o.role == b.role && o.rule.id == r.id;
              });
              if (seen) continue;
              yaml::NodeRef parent = b.node;
              for (std::size_t k = 0; k + 1 < r.id.size(); ++k) parent = parent.get(r.id[k]);
              out.push_back({q, b.role, std::move(r), parent, step.display()});
            }
          }
        }
      }
    }
  }
  return out;
}

std::string nameOf(const policy::Policy& p, const RuleAbove& r) {
  return policy::kuadrant::ruleName(*p.profile, r.rule.id);
}

model::Location locationOf(const RuleAbove& r) {
  return r.policy->resource->locateField(r.parent, r.rule.id.back());
}

}  // namespace pg::rules::kuadrantrules
