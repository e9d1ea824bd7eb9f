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

// The blocks both policies have in one role where the winner's takes the whole block
// (atomic strategy): the loser's block is dropped even when they set different fields.
std::vector<std::string> atomicBlocks(const policy::Policy& winner, const policy::Policy& p) {
  std::vector<std::string> out;
  for (const policy::Block& b : p.blocks) {
    const policy::Block* w = winner.block(b.role);
    if (!w || w->strategy != policy::Strategy::Atomic || policy::sameValue(w->node, b.node))
      continue;
    std::string role(policy::roleName(b.role));
    out.push_back((role.front() == 'd' ? "a " : "an ") + role);
  }
  return out;
}

// Two policies of one kind on one target that conflict, with nothing but their names to
// order them: in a cluster the older one wins, and the manifests do not say which that is.
void check(Context& ctx) {
  const policy::PolicyModel& model = ctx.analysis().policies;
  for (const policy::Policy& p : model.policies) {
    if (!p.invalidMessage.empty()) continue;  // rejected for its content: PA309
    for (const policy::Target& t : p.targets) {
      if (!t.attached()) continue;
      std::vector<const policy::Policy*> rivals =
          model.attachedTo(*p.profile, *t.resource, t.sectionName);
      // Report on each policy that loses to a rival ahead of it by name alone.
      auto self = std::find(rivals.begin(), rivals.end(), &p);
      for (auto it = rivals.begin(); it != self; ++it) {
        const policy::Policy& winner = **it;
        if (!policy::decidedByName(winner, p)) continue;
        std::string what, fix;
        if (conflicted(p)) {
          what = "only one " + p.profile->kind + " per target is applied; policygraph simulates " +
                 winner.key() + " winning and " + p.key() + " rejected as Conflicted";
          fix = "Merge them into one policy, or point one at another target";
        } else {
          std::vector<std::string> fields = policy::conflictingFields(winner, p);
          std::vector<std::string> atomic = atomicBlocks(winner, p);
          if (fields.empty() && atomic.empty()) continue;
          std::string set = fields.empty() ? std::string()
                                           : "both set " + joined(fields) + " to different values";
          if (!atomic.empty())
            set += (set.empty() ? "" : ", and ") + std::string("both have ") + joined(atomic) +
                   " block, which the winner replaces whole (atomic strategy)";
          what = set + "; policygraph simulates " + winner.key() + "'s values winning";
          fix = atomic.empty() ? "Merge them, or make them set different fields"
                               : "Merge them into one policy";
        }
        model::Finding& f =
            reportOn(ctx, p, t.at,
                     p.profile->kind + " " + p.key() + " and " + winner.key() + " both target " +
                         describeTarget(t) + ": " + what +
                         " (name order), but in a cluster the one created first wins and neither "
                         "manifest says which. " +
                         fix);
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
