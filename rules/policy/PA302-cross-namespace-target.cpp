#include "rules/policy/policy_rules.h"

namespace pg::rules {
namespace {

using namespace policyrules;

void check(Context& ctx) {
  for (const policy::Policy& p : ctx.analysis().policies.policies) {
    for (const policy::Target& t : p.targets) {
      if (t.problem != policy::TargetProblem::OtherNamespace) continue;
      model::Finding& f = reportOn(
          ctx, p, t.at,
          p.profile->kind + " " + p.key() + " targets " + describeTarget(t) +
              " in another namespace; policies attach only to objects of their own namespace, "
              "so this one applies nowhere (status Accepted False, Invalid). Create the policy "
              "in namespace " +
              t.namespace_ + ", or add a ReferenceGrant there that allows " + p.profile->kind +
              " from namespace " + std::string(p.resource->namespace_));
      f.discriminator = "target " + t.ref().display();
    }
  }
}

}  // namespace

PG_RULE(PA302, "cross-namespace-target", "policy", Error,
        "A policy targets an object in another namespace", policyrules::kPolicySubjects, check)

}  // namespace pg::rules
