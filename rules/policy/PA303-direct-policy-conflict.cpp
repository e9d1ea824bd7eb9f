#include <algorithm>

#include "rules/policy/policy_rules.h"

namespace pg::rules {
namespace {

using namespace policyrules;

// A policy its controller rejects as Conflicted because another policy of its kind on the
// same target was created earlier. When nothing but the name decided, PA304 says so instead.
// Reported once per winner, at the first target it takes, with the number of others: a policy
// selecting thousands of objects another one also holds makes one finding, not thousands.
void check(Context& ctx) {
  const policy::PolicyModel& model = ctx.analysis().policies;
  for (const policy::Policy& p : model.policies) {
    if (!conflicted(p) || !p.invalidMessage.empty()) continue;
    struct Lost {
      const policy::Target* first = nullptr;
      std::size_t targets = 0;
    };
    std::vector<std::pair<const policy::Policy*, Lost>> lost;  // by winner, in target order
    for (const policy::Target& t : p.targets) {
      if (!t.attached()) continue;
      const policy::Policy* winner = model.firstAttached(*p.profile, *t.resource, t.sectionName);
      if (!winner || winner == &p || policy::decidedByName(*winner, p)) continue;
      auto it =
          std::find_if(lost.begin(), lost.end(), [&](const auto& l) { return l.first == winner; });
      if (it == lost.end()) it = lost.insert(lost.end(), {winner, Lost{&t, 0}});
      ++it->second.targets;
    }
    for (const auto& [winner, l] : lost) {
      const policy::Target& t = *l.first;
      std::string where = describeTargets(t, l.targets);
      model::Finding& f = reportOn(
          ctx, p, t.at,
          p.profile->kind + " " + p.key() + " is rejected (status Accepted False, Conflicted): " +
              p.profile->kind + " " + winner->key() + " also targets " + where +
              " and was created earlier (creationTimestamp " +
              std::string(winner->creationTimestamp) + " against " +
              (p.creationTimestamp.empty() ? std::string("none")
                                           : std::string(p.creationTimestamp)) +
              "), and one " + p.profile->kind +
              " per target is all its controller applies. Merge the two into one policy, or "
              "point this one at another target");
      f.objects.push_back(winner->display());
      for (const policy::Target& wt : winner->targets)
        if (wt.resource == t.resource && wt.sectionName == t.sectionName) {
          f.related.push_back({targetLocation(*winner, wt), winner->display() + " wins here"});
          break;
        }
      f.discriminator = "against " + winner->display();
    }
  }
}

}  // namespace

PG_RULE(PA303, "direct-policy-conflict", "policy", Error,
        "A second policy of one kind on the same target is rejected as Conflicted",
        policyrules::kPolicySubjects, check)

}  // namespace pg::rules
