#include <algorithm>

#include "rules/policy/policy_rules.h"

namespace pg::rules {
namespace {

using namespace policyrules;

constexpr std::size_t kListed = 10;  // enough to spot the intended name

std::string listOf(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < kListed; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > kListed) out += " and " + std::to_string(names.size() - kListed) + " more";
  return out;
}

// What does exist where the reference looked, so the message shows the likely intent.
std::string candidates(const analysis::Analysis& a, const policy::Target& t) {
  std::vector<std::string> names;
  if (t.problem == policy::TargetProblem::NotFound) {
    for (const model::Resource* r : a.store.ofKind(t.kind))
      if (r->namespace_ == t.namespace_) names.push_back(std::string(r->name));
    if (names.empty())
      return t.namespace_.empty() ? "there are no " + t.kind + " objects"
                                  : "namespace " + t.namespace_ + " has no " + t.kind + " objects";
    return t.kind + " objects" + (t.namespace_.empty() ? "" : " in " + t.namespace_) + ": " +
           listOf(names);
  }
  if (t.kind == "Gateway" || t.kind == "ListenerSet" || t.kind == "XListenerSet") {
    if (const graph::Gateway* g = a.topology.findGateway(t.namespace_, t.name, t.kind))
      for (const graph::Listener& l : g->listeners) names.push_back(std::string(l.name));
    return "its listeners: " + (names.empty() ? "none" : listOf(names));
  }
  if (const graph::Route* r = a.policies.routeOf(*t.resource)) {
    for (const graph::RouteRule& rule : r->rules)
      if (!rule.name.empty()) names.push_back(std::string(rule.name));
    return names.empty() ? "none of its rules has a name (GEP-995 names them)"
                         : "its named rules: " + listOf(names);
  }
  for (yaml::NodeRef port : t.resource->spec().get("ports").items())
    if (!port.get("name").str().empty()) names.push_back(std::string(port.get("name").str()));
  return "its named ports: " + (names.empty() ? "none" : listOf(names));
}

void check(Context& ctx) {
  for (const policy::Policy& p : ctx.analysis().policies.policies) {
    for (const policy::Target& t : p.targets) {
      if (t.problem != policy::TargetProblem::NotFound &&
          t.problem != policy::TargetProblem::SectionNotFound)
        continue;
      const model::Store::Refusal* refused =
          t.problem == policy::TargetProblem::NotFound
              ? ctx.store().refusal(t.group, t.kind, t.namespace_, t.name)
              : nullptr;
      std::string message;
      if (refused) {
        message = p.profile->kind + " " + p.key() + " targets " + describeTarget(t) + ", but " +
                  refused->notApplied() +
                  ", so it applies nowhere (status Accepted False, TargetNotFound); fix the "
                  "target's schema violations";
      } else {
        std::string why =
            t.problem == policy::TargetProblem::NotFound ? std::string() : t.message + ", so ";
        message = p.profile->kind + " " + p.key() + " targets " + describeTarget(t) +
                  ", which does not exist: " + why +
                  "it applies nowhere (status Accepted False, TargetNotFound); fix the "
                  "targetRef or create the target (" +
                  candidates(ctx.analysis(), t) + ")";
      }
      model::Finding& f = reportOn(ctx, p, t.at, message);
      if (!refused && t.problem == policy::TargetProblem::NotFound)
        f.missing = model::Missing{t.group, t.kind, t.namespace_, t.name};
      if (refused)
        f.related.push_back({refused->object->locate(refused->object->node),
                             refused->object->display() + " is defined here"});
      f.discriminator = "target " + t.ref().display();
    }
  }
}

}  // namespace

PG_RULE(PA301, "target-not-found", "policy", Error,
        "A policy targets an object, listener, rule or port that does not exist",
        policyrules::kPolicySubjects, check)

}  // namespace pg::rules
