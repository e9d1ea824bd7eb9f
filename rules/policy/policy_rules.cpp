#include "rules/policy/policy_rules.h"

#include <algorithm>

namespace pg::rules::policyrules {

std::string describeTarget(const policy::Target& t) {
  std::string object = t.namespace_.empty() ? t.name : t.namespace_ + "/" + t.name;
  if (t.sectionName.empty()) return t.kind + " " + object;
  std::string section = t.kind == "Gateway" || t.kind == "ListenerSet" || t.kind == "XListenerSet"
                            ? "listener"
                        : graph::routeKindOf(t.kind) ? "rule"
                                                     : "port";
  return section + " " + t.sectionName + " of " + t.kind + " " + object;
}

model::Finding& reportOn(Context& ctx, const policy::Policy& p, yaml::NodeRef at,
                         std::string message) {
  return ctx.report(p.resource->locate(at), std::move(message), p.resource);
}

model::Location targetLocation(const policy::Policy& p, const policy::Target& t) {
  return p.resource->locate(t.node ? t.node : p.resource->node);
}

bool conflicted(const policy::Policy& p) {
  auto isConflicted = [](const graph::Condition& c) {
    return c.type == "Accepted" && c.status == "False" && c.reason == "Conflicted";
  };
  for (const policy::AncestorStatus& a : p.ancestors)
    if (std::any_of(a.conditions.begin(), a.conditions.end(), isConflicted)) return true;
  return std::any_of(p.conditions.begin(), p.conditions.end(), isConflicted);
}

std::map<const policy::Policy*, Reach> reachOf(const analysis::Analysis& a) {
  std::map<const policy::Policy*, Reach> out;
  for (const policy::ObjectEffective& object : a.policies.effective) {
    bool isRoute = graph::routeKindOf(object.object->kind).has_value();
    for (const policy::Effective& e : object.effective) {
      std::vector<const policy::Policy*> setters = policy::contributorsOf(e.value);
      std::vector<const policy::Policy*> onPath = setters;
      onPath.insert(onPath.end(), e.ineffective.begin(), e.ineffective.end());
      for (const policy::Policy* p : onPath) {
        Reach& r = out[p];
        ++r.paths;
        r.reachesRoute = r.reachesRoute || isRoute;
        if (std::find(setters.begin(), setters.end(), p) != setters.end()) ++r.effectiveOn;
      }
      for (const policy::Provenance& prov : policy::provenanceOf(e.value))
        if (prov.origin.role == policy::Role::Default)
          out[prov.origin.policy].defaultTakesEffect = true;
      for (const policy::Overridden& o : e.overridden) {
        if (o.by == o.policy) continue;
        Reach& r = out[o.policy];
        if (std::find(r.overriddenBy.begin(), r.overriddenBy.end(), o.by) == r.overriddenBy.end())
          r.overriddenBy.push_back(o.by);
        if (o.byRole != policy::Role::Override) r.onlyOverrides = false;
      }
    }
  }
  return out;
}

}  // namespace pg::rules::policyrules
