#include <algorithm>

#include "rules/policy/policy_rules.h"

namespace pg::rules {
namespace {

using namespace policyrules;

std::string joined(const std::vector<std::string>& fields) {
  constexpr std::size_t kListed = 5;
  std::string out;
  for (std::size_t i = 0; i < fields.size() && i < kListed; ++i) out += (i ? ", " : "") + fields[i];
  if (fields.size() > kListed) out += " and " + std::to_string(fields.size() - kListed) + " more";
  return out;
}

// Two policies of one kind on one target that conflict, with nothing but their names to
// order them: in a cluster the older one wins, and the manifests do not say which that is.
void check(Context& ctx) {
  const policy::PolicyModel& model = ctx.analysis().policies;
  for (const policy::Policy& p : model.policies) {
    for (const policy::Target& t : p.targets) {
      if (!t.attached()) continue;
      std::vector<const policy::Policy*> rivals =
          model.attachedTo(*p.profile, *t.resource, t.sectionName);
      // Report on each policy that loses to a rival ahead of it by name alone.
      auto self = std::find(rivals.begin(), rivals.end(), &p);
      for (auto it = rivals.begin(); it != self; ++it) {
        const policy::Policy& winner = **it;
        if (!policy::decidedByName(winner, p)) continue;
        std::string what;
        if (conflicted(p)) {
          what = "only one " + p.profile->kind + " per target is applied; policygraph simulates " +
                 winner.key() + " winning and " + p.key() + " rejected as Conflicted";
        } else {
          std::vector<std::string> fields = policy::conflictingFields(winner, p);
          if (fields.empty()) continue;
          what = "both set " + joined(fields) + " to different values; policygraph simulates " +
                 winner.key() + "'s values winning";
        }
        model::Finding& f =
            reportOn(ctx, p, t.at,
                     p.profile->kind + " " + p.key() + " and " + winner.key() + " both target " +
                         describeTarget(t) + ": " + what +
                         " (name order), but in a cluster the one created first wins and neither "
                         "manifest says which. Merge them, or make them set different fields");
        f.objects.push_back(winner.display());
        for (const policy::Target& wt : winner.targets)
          if (wt.resource == t.resource && wt.sectionName == t.sectionName)
            f.related.push_back({targetLocation(winner, wt), winner.display() + " targets it too"});
        f.discriminator = "target " + t.ref().display() + " against " + winner.display();
      }
    }
  }
}

}  // namespace

PG_RULE(PA304, "creation-order-conflict", "policy", Warning,
        "Two conflicting policies on one target: the winner depends on which was created first",
        policyrules::kPolicySubjects, check)

}  // namespace pg::rules
