#include <algorithm>

#include "lib/schema/validate.h"
#include "rules/kuadrant/kuadrant_rules.h"

namespace pg::rules {
namespace {

using namespace kuadrantrules;

// The name closest to `entry` when it is close enough to be a typo of it: compared with the
// full name (`authentication.a`) and the rule's own name (`a`).
std::string closest(std::string_view entry, const std::vector<const RuleAbove*>& rules,
                    const policy::Policy& p) {
  std::string best;
  std::size_t bestDistance = std::max<std::size_t>(1, entry.size() / 3) + 1;
  for (const RuleAbove* r : rules) {
    std::string name = nameOf(p, *r);
    std::size_t d = std::min(schema::editDistance(entry, name), schema::editDistance(entry, r->rule.id.back()));
    if (d < bestDistance) {
      bestDistance = d;
      best = name;
    }
  }
  return best;
}

// "HTTPRoute shop/toystore", the attached targets of a policy.
std::string targetsOf(const policy::Policy& p) {
  std::string out;
  for (const policy::Target& t : p.targets)
    if (t.attached())
      out += (out.empty() ? "" : ", ") + t.kind + " " +
             (t.namespace_.empty() ? t.name : t.namespace_ + "/" + t.name) +
             (t.sectionName.empty() ? "" : "#" + t.sectionName);
  return out;
}

// An entry of `spec.unset` that names no rule any less specific policy of the kind defines,
// as a default or as an override, on any path to the policy's targets: it removes nothing,
// and is most often a misspelt rule name.
void check(Context& ctx) {
  const analysis::Analysis& a = ctx.analysis();
  for (const policy::Policy& p : a.policies.policies) {
    if (!inherited(p) || !p.unset || !policy::kuadrant::usable(p)) continue;
    // A policy whose targets do not attach is PA301's; it reaches nothing to unset from.
    if (std::none_of(p.targets.begin(), p.targets.end(),
                     [](const policy::Target& t) { return t.attached(); }))
      continue;
    std::vector<RuleAbove> above = rulesAbove(a, p);
    // The rules unset can act on: those less specific policies set as defaults.
    std::vector<const RuleAbove*> defaults;
    std::vector<std::string> names;
    for (const RuleAbove& r : above) {
      if (r.role == policy::Role::Override) continue;
      defaults.push_back(&r);
      std::string name = nameOf(p, r);
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
    for (yaml::NodeRef item : p.unset.items()) {
      std::string_view entry = item.str();
      bool known = std::any_of(above.begin(), above.end(), [&](const RuleAbove& r) {
        return policy::kuadrant::unsetNames(entry, r.rule.id);
      });
      if (known) continue;
      std::string message = "`spec.unset` entry `" + std::string(entry) + "` removes nothing: ";
      if (names.empty()) {
        message += "no less specific " + p.profile->kind +
                   " defines a default rule on the "
                   "paths to " +
                   targetsOf(p) +
                   ", so there is nothing to unset. Remove the "
                   "entry";
      } else {
        std::string listed;
        for (const std::string& n : names) listed += (listed.empty() ? "`" : "`, `") + n;
        message += "no less specific " + p.profile->kind + " on the paths to " + targetsOf(p) +
                   " defines a rule of that name (the defaults set there: " + listed + "`). ";
        std::string guess = closest(entry, defaults, p);
        message += guess.empty() ? "Name one of them, or remove the entry"
                                 : "Did you mean `" + guess + "`?";
      }
      model::Finding& f = reportOn(ctx, p, p.resource->locate(item), std::move(message));
      f.discriminator = "unset " + std::string(entry);
    }
  }
}

}  // namespace

PG_RULE(KD403, "unset-of-unknown-rule", "kuadrant", Warning,
        "spec.unset names a rule no less specific policy of the kind defines",
        kuadrantrules::kSubjects, check)

}  // namespace pg::rules
