// GEP-713 policy attachment for every kind of the Gateway API family: built-in
// (BackendTLSPolicy, BackendLBPolicy), labelled CRDs and kinds declared in the config.
//
// Effective policy: `A override > B override > C override > C default > B default > A
// default` for A above B above C; at one level the established policy (older
// creationTimestamp, then namespace/name) wins every field both set. The profile's strategy
// says how blocks combine: field merge (maps merge, the rest is replaced), atomic, or RFC
// 7386 patch. Direct kinds do not inherit: the established policy on the target is the
// effective one and the others are rejected as Conflicted.
#include <algorithm>

#include "lib/policy/family.h"
#include "lib/policy/gatewayapi/gatewayapi.h"

namespace pg::policy::gatewayapi {

namespace {

yaml::NodeRef either(yaml::NodeRef spec, std::string_view a, std::string_view b) {
  yaml::NodeRef n = spec.get(a);
  return n ? n : spec.get(b);
}

// A block may pick its own merge strategy with a `strategy` field (GEP-713, "Selecting a
// merge strategy at runtime"): atomic, patch or merge. Any other value is a field of the
// policy like the rest.
Block blockOf(Role role, yaml::NodeRef node, Strategy strategy) {
  Block b{role, node, strategy, {}};
  yaml::NodeRef field = node.get("strategy");
  std::string_view text = field.str();
  if (text == "atomic")
    b.strategy = Strategy::Atomic;
  else if (text == "patch")
    b.strategy = Strategy::Patch;
  else if (text == "merge")
    b.strategy = Strategy::FieldMerge;
  else
    return b;
  b.strategyNode = field;
  return b;
}

}  // namespace

void readBlocks(Policy& policy) {
  yaml::NodeRef spec = policy.resource->spec();
  Strategy strategy = policy.profile->strategy;
  if (policy.profile->policyClass == PolicyClass::Direct) {
    policy.blocks.push_back({Role::Intent, spec, Strategy::FieldMerge, {}});
    return;
  }
  yaml::NodeRef override = either(spec, "override", "overrides");
  yaml::NodeRef defaults = either(spec, "default", "defaults");
  if (override.isMapping()) policy.blocks.push_back(blockOf(Role::Override, override, strategy));
  if (defaults.isMapping()) policy.blocks.push_back(blockOf(Role::Default, defaults, strategy));
  if (override && !override.isMapping()) {
    policy.invalidMessage = "spec.override must be a mapping of policy fields";
    policy.invalidAt = override;
  } else if (defaults && !defaults.isMapping()) {
    policy.invalidMessage = "spec.default must be a mapping of policy fields";
    policy.invalidAt = defaults;
  }
  // A kind labelled inherited whose policy has neither block declares an intent: implicit
  // defaults (GEP-2649, as Kuadrant's RFC puts it).
  if (!override && !defaults) policy.blocks.push_back(blockOf(Role::Intent, spec, strategy));
}

Effective effective(const Profile& profile, const Path& path,
                    const std::vector<Contribution>& contributions) {
  Effective e;
  e.profile = &profile;
  std::vector<const Policy*> reaching;
  for (const Contribution& c : contributions)
    if (std::find(reaching.begin(), reaching.end(), c.policy) == reaching.end())
      reaching.push_back(c.policy);

  if (profile.policyClass == PolicyClass::Direct) {
    // Only what targets the object itself applies; the established one wins.
    const Policy* winner = nullptr;
    for (const Contribution& c : contributions) {
      if (c.step + 1 != path.size()) continue;
      if (!winner) {
        winner = c.policy;
        const Block* b = c.policy->block(Role::Intent);
        if (b)
          apply(e.value, b->node, {c.policy, Role::Intent, path[c.step].level, c.step},
                Strategy::FieldMerge, e.overridden, {}, targetKeys());
      }
    }
    for (const Policy* p : reaching)
      if (p != winner) e.ineffective.push_back(p);
    return e;
  }

  // Lowest precedence first: defaults from the least specific level down, then overrides
  // from the most specific level up. Within a level the established policy goes last so it
  // wins every field both set.
  struct Application {
    const Contribution* contribution;
    const Block* block;
  };
  std::vector<Application> order;
  auto levelRange = [&](std::size_t step) {
    std::vector<const Contribution*> at;
    for (const Contribution& c : contributions)
      if (c.step == step) at.push_back(&c);
    std::reverse(at.begin(), at.end());  // contributions come most established first
    return at;
  };
  for (std::size_t step = 0; step < path.size(); ++step)
    for (const Contribution* c : levelRange(step))
      for (const Block& b : c->policy->blocks)
        if (b.role != Role::Override) order.push_back({c, &b});
  for (std::size_t step = path.size(); step-- > 0;)
    for (const Contribution* c : levelRange(step))
      for (const Block& b : c->policy->blocks)
        if (b.role == Role::Override) order.push_back({c, &b});

  // The established policy's strategy decides (GEP-713: "established => f"): a default
  // merges into what the levels above left by the strategy of the default merged before it
  // from a less specific level (at one level, the one merged last is the established one);
  // an override, merged from the most specific level up, is itself the established one.
  const Application* previousDefault = nullptr;
  for (const Application& a : order) {
    const Contribution& c = *a.contribution;
    Origin origin{c.policy, a.block->role, path[c.step].level, c.step};
    Strategy strategy = a.block->strategy;
    if (a.block->role != Role::Override) {
      if (previousDefault && previousDefault->contribution->step < c.step)
        strategy = previousDefault->block->strategy;
      previousDefault = &a;
    }
    std::vector<std::string_view> skip;
    if (a.block->role == Role::Intent) skip = targetKeys();
    if (a.block->strategyNode) skip.push_back("strategy");
    apply(e.value, a.block->node, origin, strategy, e.overridden, {}, skip);
  }
  std::vector<const Policy*> contributors = contributorsOf(e.value);
  for (const Policy* p : reaching)
    if (std::find(contributors.begin(), contributors.end(), p) == contributors.end())
      e.ineffective.push_back(p);
  return e;
}

namespace {

// XBackendTrafficPolicy under a controller that reports backend policies on their targets
// (Istio's backend_policies.go BackendTrafficPolicyCollection): one ancestor per target under
// its mesh controller, Accepted, and no Gateway ancestors; session persistence is taken but
// not applied, which the message says. False when the profile reports them otherwise.
bool writeTargetTrafficStatus(Policy& policy, FamilyContext& context) {
  const graph::ControllerProfile& profile = context.topology.backendPolicyProfile();
  if (profile.backendPolicyAncestors != graph::BackendPolicyAncestors::Targets) return false;
  std::string message = "Configuration is valid";
  if (policy.resource->spec().get("sessionPersistence"))
    message += ", but " + std::string(profile.name) +
               " does not support the following fields: sessionPersistence";
  writeTargetAncestors(policy, context, profile,
                       {graph::makeCondition("Accepted", true, "Accepted", message)},
                       /*gatewayAncestors=*/false);
  return true;
}

}  // namespace

void writeStatus(FamilyContext& context) {
  PolicyModel& model = context.model;
  ExternalUses external(model, context.topology, context.store);
  for (Policy& policy : model.policies) {
    if (policy.profile->family != Family::GatewayApi) continue;
    if (policy.profile->kind == "BackendTLSPolicy" &&
        policy.profile->group == graph::kGatewayGroup) {
      writeBackendTlsStatus(policy, context, external);
      continue;
    }
    if (policy.profile->kind == "XBackendTrafficPolicy" &&
        writeTargetTrafficStatus(policy, context))
      continue;
    for (const Target& t : policy.targets) {
      graph::Condition accepted =
          graph::makeCondition("Accepted", true, "Accepted", "Policy has been accepted");
      if (!policy.invalidMessage.empty()) {
        accepted = graph::makeCondition("Accepted", false, "Invalid", policy.invalidMessage);
      } else if (!t.attached()) {
        accepted = graph::makeCondition("Accepted", false, t.reason, t.message);
      } else if (policy.profile->policyClass == PolicyClass::Direct) {
        const Policy* holder = model.firstAttached(*policy.profile, *t.resource, t.sectionName);
        if (holder && holder != &policy)
          accepted = graph::makeCondition("Accepted", false, "Conflicted",
                                          "Policy conflicts with " + policy.profile->kind + " " +
                                              holder->key() + ", which is established first");
      }
      std::vector<AncestorRef> ancestors = ancestorsOf(t, context.model);
      if (ancestors.empty()) {
        // Nothing above the target to report under: the target itself stands as ancestor,
        // so the status still says why the policy does not apply.
        ancestors.push_back(ancestorRefOf(t));
      }
      for (AncestorRef& ref : ancestors) {
        if (policy.ancestors.size() >= kMaxAncestors) break;
        bool seen = std::any_of(policy.ancestors.begin(), policy.ancestors.end(),
                                [&](const AncestorStatus& a) { return a.ref == ref; });
        if (seen) continue;
        std::string controller = context.options.controllerName;
        if (ref.kind == "Gateway" || ref.kind == "ListenerSet" || ref.kind == "XListenerSet")
          if (const graph::Gateway* g =
                  context.topology.findGateway(ref.namespace_, ref.name, ref.kind)) {
            if (!g->managed) continue;
            if (controller.empty()) controller = std::string(g->controllerName);
          }
        if (controller.empty()) controller = std::string(kDefaultController);
        policy.ancestors.push_back({std::move(ref), std::move(controller), {accepted}});
      }
    }
  }
}

}  // namespace pg::policy::gatewayapi
