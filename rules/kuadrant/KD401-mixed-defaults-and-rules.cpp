#include <algorithm>

#include "rules/kuadrant/kuadrant_rules.h"

namespace pg::rules {
namespace {

using namespace kuadrantrules;

// The group a top-level key of a spec belongs to: a block, the bare rules, or neither.
std::string_view groupOf(std::string_view key, const std::vector<std::string>& bareKeys) {
  if (key == "defaults" || key == "overrides") return key;
  if (std::find(bareKeys.begin(), bareKeys.end(), key) != bareKeys.end()) return "rules";
  return {};
}

// The key that makes a spec declare a second group (defaults, overrides, bare rules), in
// document order; empty when it declares at most one.
yaml::NodeRef secondGroup(yaml::NodeRef spec, const std::vector<std::string>& bareKeys,
                          std::string_view& first, std::string_view& second,
                          yaml::NodeRef& firstKey) {
  for (auto [key, value] : spec.entries()) {
    std::string_view group = groupOf(key.str(), bareKeys);
    if (group.empty()) continue;
    if (first.empty()) {
      first = group;
      firstKey = key;
    } else if (group != first) {
      second = group;
      return key;
    }
  }
  return {};
}

// A Kuadrant policy its controller rejects for its structure (status Accepted False,
// Invalid): more than one of defaults, overrides and bare rules; a block that is not a
// mapping; an unknown strategy; a malformed `spec.unset`. A `when` condition is KD404's.
// The family records the first problem, as the controller reports one; fixing it shows the
// next.
void check(Context& ctx) {
  for (const policy::Policy& p : ctx.analysis().policies.policies) {
    if (p.profile->family != policy::Family::Kuadrant || p.invalidMessage.empty()) continue;
    yaml::NodeRef spec = p.resource->spec();
    bool whenProblem = std::any_of(p.blocks.begin(), p.blocks.end(), [&](const policy::Block& b) {
      return p.invalidAt && p.invalidAt == policy::kuadrant::conditionWhen(b.node);
    });
    if (whenProblem) continue;

    const std::string rejected =
        describe(p) + " is rejected (status Accepted False, Invalid): " + p.invalidMessage;
    std::vector<std::string> bareKeys = policy::kuadrant::bareRuleKeys(*p.profile);
    std::string_view first, second;
    yaml::NodeRef firstKey;
    if (yaml::NodeRef key = secondGroup(spec, bareKeys, first, second, firstKey)) {
      std::string bare = "`" + std::string((first == "rules" ? firstKey : key).str()) + "`";
      std::string block = "spec." + std::string(first == "rules" ? second : first);
      std::string fix;
      if (first != "rules" && second != "rules")
        fix = "To set both, move `spec." + std::string(second) +
              "` into a second policy on the same target";
      else if (block == "spec.defaults")
        fix = "Move " + bare + " under `spec.defaults` (bare rules are defaults already)";
      else
        fix = "To keep both, move " + bare +
              " into a second policy on the same target (as defaults), or under "
              "`spec.overrides` if it is meant to override";
      model::Finding& f = reportOn(
          ctx, p, p.resource->locate(key),
          rejected +
              ". A Kuadrant policy declares exactly one of `defaults`, `overrides` or bare "
              "rules, and bare rules are implicit atomic defaults (RFC 0009, \"Writing "
              "D/O-enabled Kuadrant Policies\"). " +
              fix);
      f.related.push_back({p.resource->locateField(spec, firstKey.str()),
                           "`spec." + std::string(firstKey.str()) + "` comes first"});
      f.discriminator = "blocks";
      continue;
    }

    // Point at the field at fault: the key of a whole field (a block, `unset`), the value of
    // a scalar (`strategy`).
    model::Location where = p.resource->locate(p.invalidAt ? p.invalidAt : spec);
    std::string fix;
    std::string discriminator = "spec";
    if (p.invalidAt && p.invalidAt == spec.get("unset")) {
      where = p.resource->locateField(spec, "unset");
      fix = "list the names of the inherited default rules to remove, e.g. `unset: [" +
            std::string(p.profile->rulesField == "rules" ? "authentication.a" : "api") + "]`";
      discriminator = "unset";
    } else {
      for (std::string_view name : {"defaults", "overrides"}) {
        yaml::NodeRef block = spec.get(name);
        if (!block) continue;
        if (p.invalidAt == block) {
          where = p.resource->locateField(spec, name);
          fix = "write `spec." + std::string(name) + "` as a mapping holding `" +
                p.profile->rulesField + "` and, optionally, `strategy`";
          discriminator = std::string(name);
        } else if (p.invalidAt == block.get("strategy")) {
          fix =
              "set `strategy` to `atomic` (the whole set of rules is taken or left, the "
              "default when omitted) or `merge` (rule by rule), RFC 0009 \"Atomic vs. "
              "individually merged policy rules\"";
          discriminator = std::string(name) + ".strategy";
        }
      }
    }
    reportOn(ctx, p, where, rejected + (fix.empty() ? "" : "; " + fix)).discriminator =
        discriminator;
  }
}

}  // namespace

PG_RULE(KD401, "mixed-defaults-and-rules", "kuadrant", Error,
        "A Kuadrant policy mixes defaults, overrides and bare rules, or has a malformed "
        "strategy or unset",
        kuadrantrules::kSubjects, check)

}  // namespace pg::rules
