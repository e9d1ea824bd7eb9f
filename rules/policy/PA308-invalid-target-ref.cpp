#include "rules/policy/policy_rules.h"

namespace pg::rules {
namespace {

using namespace policyrules;

void check(Context& ctx) {
  for (const policy::Policy& p : ctx.analysis().policies.policies) {
    for (const policy::Target& t : p.targets) {
      std::string why;
      if (t.problem == policy::TargetProblem::KindNotAllowed)
        why = "cannot target " + t.ref().display() + ": " + t.message +
              "; its controller rejects the reference (status Accepted False, "
              "Invalid). Target one of those kinds instead";
      else if (t.problem == policy::TargetProblem::Malformed)
        why = ": its target reference needs both kind and name; add the missing field";
      else
        continue;
      model::Finding& f = reportOn(
          ctx, p, t.at, p.profile->kind + " " + p.key() + (why.front() == ':' ? "" : " ") + why);
      f.discriminator = "target " + t.ref().display();
    }
  }
}

}  // namespace

PG_RULE(PA308, "invalid-target-ref", "policy", Error,
        "A policy's target reference names a kind its policy kind cannot target, or lacks "
        "kind or name",
        policyrules::kPolicySubjects, check)

}  // namespace pg::rules
