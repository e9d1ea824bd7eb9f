#include "rules/kuadrant/kuadrant_rules.h"

namespace pg::rules {
namespace {

using namespace kuadrantrules;

// A `when` on a block (`spec.defaults`, `spec.overrides`, or the bare rules) that is not a
// list of request predicates: the condition on the lower policy RFC 0009 proposes for
// constraints (examples E1-E3). Kuadrant v1 refuses it. policygraph simulates the proposal
// where the condition is in the CEL subset it evaluates (the block applies where it holds),
// and rejects the policy as Invalid otherwise; either way the user learns that a cluster
// will not do what the manifest says.
void check(Context& ctx) {
  for (const policy::Policy& p : ctx.analysis().policies.policies) {
    if (!inherited(p)) continue;
    yaml::NodeRef spec = p.resource->spec();
    for (const policy::Block& b : p.blocks) {
      yaml::NodeRef rejected = policy::kuadrant::conditionWhen(b.node);
      yaml::NodeRef simulated = policy::kuadrant::constraintWhen(b.node);
      if (!rejected && !simulated) continue;
      std::string where = b.node == spec                    ? "spec.when"
                          : b.role == policy::Role::Default ? "spec.defaults.when"
                                                            : "spec.overrides.when";
      std::string what;
      if (rejected) {
        // The family's own message when this `when` is the problem it reports (the first).
        std::string why = p.invalidAt == rejected
                              ? p.invalidMessage
                              : where +
                                    " must be a list of request predicates (`- predicate: "
                                    "<CEL>`), not a condition on the lower policy";
        what = describe(p) + " is rejected (status Accepted False, Invalid): " + why;
      } else {
        what = describe(p) + " has a constraint in " + where +
               ": policygraph simulates it (the block applies only where the condition holds "
               "for the lower policy), but Kuadrant v1 accepts only a list of request "
               "predicates there and the API server rejects this policy";
      }
      model::Finding& f =
          reportOn(ctx, p, p.resource->locateField(b.node, "when"),
                   what +
                       ". Constraints are an RFC 0009 proposal (\"Conditionally applying D/O\", "
                       "examples E1-E3) that no shipped Kuadrant implements. To cap what lower "
                       "policies set, override the rule without a condition; to apply the block to "
                       "some requests only, write request predicates");
      f.discriminator = where;
    }
  }
}

}  // namespace

PG_RULE(KD404, "when-condition-unsupported", "kuadrant", Warning,
        "A Kuadrant defaults/overrides block has a CEL condition on the lower policy, which no "
        "shipped Kuadrant supports",
        kuadrantrules::kSubjects, check)

}  // namespace pg::rules
