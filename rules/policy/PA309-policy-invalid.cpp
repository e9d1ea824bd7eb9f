#include "rules/policy/policy_rules.h"

namespace pg::rules {
namespace {

using namespace policyrules;

// A policy its controller rejects as Invalid for its content. Kuadrant's own structural
// rules have KD4xx findings of their own.
void check(Context& ctx) {
  for (const policy::Policy& p : ctx.analysis().policies.policies) {
    if (!p.unresolvedMessage.empty()) {
      const std::string& m = p.unresolvedMessage;
      reportOn(ctx, p, p.unresolvedAt ? p.unresolvedAt : p.resource->spec(),
               p.profile->kind + " " + p.key() + " is rejected (status Accepted False, " +
                   p.unresolvedReason + "): " + m + (m.ends_with('.') ? " " : ". ") +
                   p.unresolvedFix)
          .missing = p.unresolvedMissing;
      continue;
    }
    if (p.invalidMessage.empty() || p.profile->family == policy::Family::Kuadrant) continue;
    const std::string rejected =
        p.profile->kind + " " + p.key() + " is rejected (status Accepted False, Invalid): ";
    // Each problem at its own field.
    for (const policy::Policy::Problem& problem : p.invalidProblems)
      reportOn(ctx, p, problem.at ? problem.at : p.resource->spec(), rejected + problem.message)
          .missing = problem.missing;
    if (p.invalidProblems.empty())
      reportOn(ctx, p, p.invalidAt ? p.invalidAt : p.resource->spec(), rejected + p.invalidMessage);
  }
}

}  // namespace

PG_RULE(PA309, "policy-invalid", "policy", Error,
        "A policy's controller rejects its content as invalid", policyrules::kPolicySubjects, check)

}  // namespace pg::rules
