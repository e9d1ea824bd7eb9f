// Blocks and effective policy of the Envoy Gateway kinds: the whole spec is one block, and the
// most specific policy on a path replaces the others whole, or, when it is a route policy
// with `mergeType`, is merged over the policy of its Gateway side.
#include "lib/policy/envoygateway/envoygateway.h"

#include <algorithm>

#include "lib/policy/family.h"

namespace pg::policy::envoygateway {

namespace {

bool isRouteLevel(Level level) {
  return level == Level::Route || level == Level::RouteRule;
}

bool isGatewaySideLevel(Level level) {
  return level == Level::Gateway || level == Level::ListenerSet || level == Level::Listener;
}

// RFC 7386 at the top level too, where `apply` is given the target keys to skip: a null
// removes what the Gateway-side policy set.
void mergeSpec(Value& into, yaml::NodeRef spec, const Origin& origin, Strategy strategy,
               std::vector<Overridden>& overridden) {
  const std::vector<std::string_view>& skip = targetKeys();
  for (auto [k, child] : spec.entries()) {
    if (std::find(skip.begin(), skip.end(), k.str()) != skip.end()) continue;
    std::string key(k.str());
    Value* existing = into.find(key);
    if (child.isNull()) {
      if (existing) {
        replaceEntry(into, key, wholeValue(child, origin), overridden);
        into.erase(key);
      }
      continue;
    }
    if (existing && child.isMapping()) {
      apply(*existing, child, origin, strategy, overridden, key);
      continue;
    }
    replaceEntry(into, key, wholeValue(child, origin), overridden);
  }
}

}  // namespace

std::optional<Strategy> mergeStrategy(const Policy& policy) {
  std::string_view type = policy.resource->spec().get("mergeType").str();
  // Envoy Gateway merges StrategicMerge with Kubernetes' strategic merge patch, which merges
  // lists of objects by their patch merge key; policygraph has no Go struct tags to read the
  // keys from, so both types are simulated as an RFC 7386 merge patch (lists are replaced).
  if (type == "StrategicMerge" || type == "JSONMerge") return Strategy::Patch;
  return std::nullopt;
}

void readBlocks(Policy& policy) {
  yaml::NodeRef spec = policy.resource->spec();
  if (!spec.isMapping()) {
    policy.invalidMessage = "spec must be a mapping";
    policy.invalidAt = spec ? spec : policy.resource->node;
    return;
  }
  policy.blocks.push_back({Role::Intent, spec, Strategy::Atomic, {}});
}

Effective effective(const Profile& profile, const Path& path,
                    const std::vector<Contribution>& contributions) {
  Effective e;
  e.profile = &profile;
  // At each step only the most established policy holds the target: the translator rejects
  // the others as Conflicted. Contributions come least specific first, most established
  // first within a step.
  std::vector<const Contribution*> holders;
  for (const Contribution& c : contributions)
    if (holders.empty() || holders.back()->step != c.step) holders.push_back(&c);

  if (!holders.empty()) {
    const Contribution& top = *holders.back();
    const Block* topBlock = top.policy->block(Role::Intent);
    const Contribution* base = nullptr;
    std::optional<Strategy> strategy = mergeStrategy(*top.policy);
    if (strategy && isRouteLevel(path[top.step].level)) {
      // The route policy merges with the most specific Gateway-side policy only (a rule
      // policy skips the route's own).
      for (auto it = holders.rbegin(); it != holders.rend(); ++it)
        if (isGatewaySideLevel(path[(*it)->step].level)) {
          base = *it;
          break;
        }
    }
    if (base)
      if (const Block* b = base->policy->block(Role::Intent))
        apply(e.value, b->node, {base->policy, Role::Intent, path[base->step].level, base->step},
              Strategy::Atomic, e.overridden, {}, targetKeys());
    if (topBlock) {
      Origin origin{top.policy, Role::Intent, path[top.step].level, top.step};
      if (base)
        mergeSpec(e.value, topBlock->node, origin, *strategy, e.overridden);
      else
        apply(e.value, topBlock->node, origin, Strategy::Atomic, e.overridden, {}, targetKeys());
    }
  }

  std::vector<const Policy*> contributors = contributorsOf(e.value);
  for (const Contribution& c : contributions) {
    bool contributes =
        std::find(contributors.begin(), contributors.end(), c.policy) != contributors.end();
    bool listed =
        std::find(e.ineffective.begin(), e.ineffective.end(), c.policy) != e.ineffective.end();
    if (!contributes && !listed) e.ineffective.push_back(c.policy);
  }
  return e;
}

}  // namespace pg::policy::envoygateway
