#include "rules/policy/policy_rules.h"

namespace pg::rules {
namespace {

using namespace policyrules;

// A policy its controller rejects as Conflicted because another policy of its kind on the
// same target was created earlier. When nothing but the name decided, PA304 says so instead.
void check(Context& ctx) {
  const policy::PolicyModel& model = ctx.analysis().policies;
  for (const policy::Policy& p : model.policies) {
    if (!conflicted(p) || !p.invalidMessage.empty()) continue;
    for (const policy::Target& t : p.targets) {
      if (!t.attached()) continue;
      std::vector<const policy::Policy*> rivals =
          model.attachedTo(*p.profile, *t.resource, t.sectionName);
      if (rivals.empty() || rivals.front() == &p) continue;
      const policy::Policy& winner = *rivals.front();
      if (policy::decidedByName(winner, p)) continue;
      model::Finding& f = reportOn(
          ctx, p, t.at,
          p.profile->kind + " " + p.key() + " is rejected (status Accepted False, Conflicted): " +
              p.profile->kind + " " + winner.key() + " also targets " + describeTarget(t) +
              " and was created earlier (creationTimestamp " +
              std::string(winner.creationTimestamp) + " against " +
              (p.creationTimestamp.empty() ? std::string("none")
                                           : std::string(p.creationTimestamp)) +
              "), and one " + p.profile->kind +
              " per target is all its controller applies. Merge the two into one policy, or "
              "point this one at another target");
      f.objects.push_back(winner.display());
      for (const policy::Target& wt : winner.targets)
        if (wt.resource == t.resource && wt.sectionName == t.sectionName)
          f.related.push_back({targetLocation(winner, wt), winner.display() + " wins here"});
      f.discriminator = "target " + t.ref().display();
    }
  }
}

}  // namespace

PG_RULE(PA303, "direct-policy-conflict", "policy", Error,
        "A second policy of one kind on the same target is rejected as Conflicted",
        policyrules::kPolicySubjects, check)

}  // namespace pg::rules
