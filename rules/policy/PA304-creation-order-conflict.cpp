#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

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

// What makes `p` lose fields to `winner` ahead of it by name alone, whatever the target: empty
// when they do not conflict.
struct Verdict {
  std::string what, fix;
};
Verdict judge(const policy::Policy& winner, const policy::Policy& p) {
  if (!policy::decidedByName(winner, p)) return {};
  if (conflicted(p))
    return {"only one " + p.profile->kind + " per target is applied; policygraph simulates " +
                winner.key() + " winning and " + p.key() + " rejected as Conflicted",
            "Merge them into one policy, or point one at another target"};
  std::vector<std::string> fields = policy::conflictingFields(winner, p);
  std::vector<std::string> atomic = atomicBlocks(winner, p);
  if (fields.empty() && atomic.empty()) return {};
  std::string set =
      fields.empty() ? std::string() : "both set " + joined(fields) + " to different values";
  if (!atomic.empty())
    set += (set.empty() ? "" : ", and ") + std::string("both have ") + joined(atomic) +
           " block, which the winner replaces whole (atomic strategy)";
  return {set + "; policygraph simulates " + winner.key() + "'s values winning",
          atomic.empty() ? "Merge them, or make them set different fields"
                         : "Merge them into one policy"};
}

// One place policies of a kind attach: an object, or a section of it.
struct Spot {
  const policy::Profile* profile;
  const model::Resource* object;
  std::string_view section;
  bool operator==(const Spot&) const = default;
};
struct SpotHash {
  std::size_t operator()(const Spot& s) const {
    return std::hash<const void*>()(s.object) * 31 + std::hash<std::string_view>()(s.section) +
           std::hash<const void*>()(s.profile) * 7;
  }
};
struct PolicySpotHash {
  std::size_t operator()(const std::pair<std::size_t, Spot>& s) const {
    return SpotHash()(s.second) * 1000003 ^ s.first;
  }
};
struct PoliciesHash {
  std::size_t operator()(const std::vector<const policy::Policy*>& v) const {
    std::size_t h = v.size();
    for (const policy::Policy* p : v) h = h * 1000003 ^ std::hash<const void*>()(p);
    return h;
  }
};

// Two policies of one kind on one target that conflict, with nothing but their names to
// order them: in a cluster the older one wins, and the manifests do not say which that is.
// Reported once per pair of policies, on the loser, at the first target they share, with the
// number of others: N policies selecting the same M objects make at most N*(N-1)/2 findings,
// and the pairs are judged once per distinct set of policies on a spot, not once per spot.
void check(Context& ctx) {
  const policy::PolicyModel& model = ctx.analysis().policies;
  auto indexOf = [&](const policy::Policy* p) {
    return static_cast<std::size_t>(p - model.policies.data());
  };
  // The spots policies are attached to, grouped by the policies there (in order); for each
  // policy, its first target at each spot and in each group.
  std::unordered_map<Spot, std::size_t, SpotHash> groupOf;  // index in `groups`
  std::unordered_map<std::vector<const policy::Policy*>, std::size_t, PoliciesHash> groupIds;
  struct Group {
    const std::vector<const policy::Policy*>* rivals;  // its key in `groupIds`
    std::size_t spots = 0;
  };
  std::vector<Group> groups;
  std::unordered_map<std::pair<std::size_t, Spot>, std::size_t, PolicySpotHash> targetAt;
  std::map<std::pair<std::size_t, std::size_t>, std::size_t> firstInGroup;
  for (const policy::Policy& q : model.policies) {
    for (std::size_t k = 0; k < q.targets.size(); ++k) {
      const policy::Target& t = q.targets[k];
      if (!t.attached()) continue;
      Spot spot{q.profile, t.resource, t.sectionName};
      auto [known, fresh] = groupOf.try_emplace(spot, 0);
      if (fresh) {
        // The attachment index holds a policy once per spot, however often it names it.
        auto [it, added] = groupIds.emplace(
            model.attachedTo(*q.profile, *t.resource, t.sectionName), groups.size());
        if (added) groups.push_back({&it->first, 0});
        ++groups[it->second].spots;
        known->second = it->second;
      }
      targetAt.try_emplace({indexOf(&q), spot}, k);
      firstInGroup.try_emplace({indexOf(&q), known->second}, k);
    }
  }
  // Each losing pair, keyed by (loser, winner) in Store order: the spots it shares and the
  // loser's first target among them.
  struct Pair {
    Verdict verdict;
    std::size_t spots = 0;
    std::size_t first = 0;  // index in the loser's targets
  };
  std::map<std::pair<std::size_t, std::size_t>, Pair> pairs;
  std::set<std::pair<std::size_t, std::size_t>> judgedClean;  // pairs that do not conflict
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const std::vector<const policy::Policy*>& rivals = *groups[g].rivals;
    for (std::size_t j = 1; j < rivals.size(); ++j) {
      const policy::Policy& p = *rivals[j];
      if (!p.invalidMessage.empty()) continue;  // rejected for its content: PA309
      std::size_t first = firstInGroup.at({indexOf(&p), g});
      for (std::size_t i = 0; i < j; ++i) {
        std::pair<std::size_t, std::size_t> key{indexOf(&p), indexOf(rivals[i])};
        if (judgedClean.contains(key)) continue;
        auto found = pairs.find(key);
        if (found == pairs.end()) {
          Verdict v = judge(*rivals[i], p);
          if (v.what.empty()) {
            judgedClean.insert(key);
            continue;
          }
          found = pairs.emplace(key, Pair{std::move(v), 0, first}).first;
        }
        found->second.spots += groups[g].spots;
        found->second.first = std::min(found->second.first, first);
      }
    }
  }
  for (const auto& [key, pair] : pairs) {
    const policy::Policy& p = model.policies[key.first];
    const policy::Policy& winner = model.policies[key.second];
    const policy::Target& t = p.targets[pair.first];
    model::Finding& f =
        reportOn(ctx, p, t.at,
                 p.profile->kind + " " + p.key() + " and " + winner.key() + " both target " +
                     describeTargets(t, pair.spots) + ": " + pair.verdict.what +
                     " (name order), but in a cluster the one created first wins and neither "
                     "manifest says which. " +
                     pair.verdict.fix);
    f.objects.push_back(winner.display());
    auto theirs = targetAt.find({key.second, Spot{p.profile, t.resource, t.sectionName}});
    if (theirs != targetAt.end())
      f.related.push_back({targetLocation(winner, winner.targets[theirs->second]),
                           winner.display() + " targets it too"});
    f.discriminator = "against " + winner.display();
  }
}

}  // namespace

PG_RULE(PA304, "creation-order-conflict", "policy", Warning,
        "Two conflicting policies on one target: the winner depends on which was created first",
        policyrules::kPolicySubjects, check)

}  // namespace pg::rules
