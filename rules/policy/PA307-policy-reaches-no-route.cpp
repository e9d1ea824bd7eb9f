#include "rules/policy/policy_rules.h"

namespace pg::rules {
namespace {

using namespace policyrules;

bool aboveRoutes(const policy::Target& t) {
  return t.level == policy::Level::GatewayClass || t.level == policy::Level::Namespace ||
         t.level == policy::Level::Gateway || t.level == policy::Level::ListenerSet ||
         t.level == policy::Level::Listener;
}

bool routesCanBeBelow(const policy::Profile& profile) {
  if (profile.targetKinds.empty()) return true;
  for (const std::string& k : profile.targetKinds)
    if (graph::routeKindOf(k)) return true;
  return false;
}

// An inherited policy on a Gateway (listener, class or namespace) that no route hangs under:
// it shapes no traffic yet, often because the routes attach to another listener or Gateway.
void check(Context& ctx) {
  const std::map<const policy::Policy*, Reach>& reach = reachOf(ctx);
  for (const policy::Policy& p : ctx.analysis().policies.policies) {
    if (p.profile->policyClass != policy::PolicyClass::Inherited) continue;
    if (!routesCanBeBelow(*p.profile) || conflicted(p)) continue;
    if (!p.invalidMessage.empty()) continue;  // rejected outright: PA309
    auto it = reach.find(&p);
    if (it != reach.end() && it->second.reachesRoute) continue;
    for (const policy::Target& t : p.targets) {
      if (!t.attached() || !aboveRoutes(t)) continue;
      model::Finding& f =
          reportOn(ctx, p, t.at,
                   p.profile->kind + " " + p.key() + " applies to no traffic: it targets " +
                       describeTarget(t) +
                       ", but no route is attached below it. Check the routes' parentRefs (name, "
                       "sectionName), or target the Gateway they use");
      f.discriminator = "target " + t.ref().display();
      break;  // one finding per policy
    }
  }
}

}  // namespace

PG_RULE(PA307, "policy-reaches-no-route", "policy", Warning,
        "An inherited policy targets a Gateway, listener or class no route is attached below",
        policyrules::kPolicySubjects, check)

}  // namespace pg::rules
