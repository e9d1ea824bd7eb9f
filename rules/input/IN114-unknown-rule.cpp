#include "rules/engine.h"
#include "rules/rule.h"

namespace pg::rules {
namespace {

void reportUnknown(Context& ctx, std::string_view id, const model::Location& where,
                   std::string_view place, const model::Resource* subject) {
  if (id == "*" || findRule(id)) return;
  model::Finding& f = ctx.report(where,
                                 "rule " + std::string(id) + " named in " + std::string(place) +
                                     " does not exist: correct the ID (see `policygraph rules`)",
                                 subject);
  f.discriminator = std::string(place) + ":" + std::string(id);
}

void check(Context& ctx) {
  const config::Config& config = ctx.analysis().config;
  for (const auto& [id, setting] : config.rules)
    reportUnknown(ctx, id, setting.where, "rules", nullptr);
  for (const config::Suppression& s : config.suppressions)
    reportUnknown(ctx, s.rule, s.where, "suppressions", nullptr);
  for (const model::Resource& r : ctx.store().all()) {
    yaml::NodeRef annotations = r.metadata().get("annotations");
    yaml::NodeRef value = annotations.get(kIgnoreAnnotation);
    if (!value) continue;
    for (const std::string& id : parseIgnoreAnnotation(value.str()))
      reportUnknown(ctx, id, r.locateField(annotations, kIgnoreAnnotation),
                    "the policygraph.dev/ignore annotation", &r);
  }
}

}  // namespace

PG_RULE(IN114, "unknown-rule", "input", Warning,
        "A suppression or setting names a rule that does not exist", "file", check)

}  // namespace pg::rules
