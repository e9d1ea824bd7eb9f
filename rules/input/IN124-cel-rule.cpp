#include <algorithm>

#include "rules/input/schema_rule.h"

namespace pg::rules {
namespace {

void check(Context& ctx) {
  reportSchemaViolations(ctx, schema::Code::CelRule, [](const schema::Violation&) {
    return std::string(
        "the API server refuses the object (the schema's x-kubernetes-validations rule at this "
        "field does not hold); change the value so that the rule's condition holds");
  });
  // A rule that could not be evaluated is never passed silently: one note for the run.
  const std::vector<schema::UnenforcedRule>& skipped = ctx.analysis().schema.unenforced;
  if (skipped.empty()) return;
  const std::vector<model::Resource>& objects = ctx.store().all();
  const schema::UnenforcedRule& first = skipped.front();
  const model::Resource* subject = first.object < objects.size() ? &objects[first.object] : nullptr;
  std::string message = std::to_string(skipped.size()) + " CEL rule" +
                        (skipped.size() == 1 ? "" : "s") +
                        " of the schemas could not be evaluated, so no object was checked "
                        "against " +
                        (skipped.size() == 1 ? "it" : "them") + ":";
  for (const schema::UnenforcedRule& u : skipped)
    message += " " + u.kind + " " + u.path + ": `" + u.rule + "` (" + u.why + ");";
  message.back() = ':';
  message +=
      " check what they require by hand, or apply the objects to a cluster with "
      "`kubectl apply --dry-run=server`";
  model::Location where = subject ? subject->locate(subject->node) : model::Location{};
  model::Finding& f = ctx.report(where, std::move(message), subject);
  f.severity = std::min(f.severity, model::Severity::Note);
  f.discriminator = "unenforced";
}

}  // namespace

PG_RULE(IN124, "cel-rule", "input", Error,
        "A value that breaks one of its schema's CEL (x-kubernetes-validations) rules", "*", check)

}  // namespace pg::rules
