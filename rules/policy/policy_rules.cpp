#include "rules/policy/policy_rules.h"

#include <algorithm>
#include <span>

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

std::string describeTargets(const policy::Target& first, std::size_t count) {
  std::string out = describeTarget(first);
  if (count > 1)
    out += " and " + std::to_string(count - 1) + " other target" + (count == 2 ? "" : "s");
  return out;
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

namespace {

// The first step of `path` the policy is attached to (path.size() when none).
std::size_t stepOf(const policy::PolicyModel& model, const policy::Path& path,
                   const policy::Policy* p) {
  for (std::size_t i = 0; i < path.size(); ++i) {
    std::span<const policy::Policy* const> at = model.attachedAll(*path[i].object, path[i].section);
    if (std::find(at.begin(), at.end(), p) != at.end()) return i;
  }
  return path.size();
}

Relation relationOf(const policy::PolicyModel& model, const policy::Path& path,
                    const policy::Policy* replaced, const policy::Policy* by) {
  if (replaced == by) return Relation::Self;
  std::size_t a = stepOf(model, path, replaced), b = stepOf(model, path, by);
  if (a == b) return Relation::SameTarget;
  return b < a ? Relation::Above : Relation::Below;
}

}  // namespace

bool Reach::onlyOverrides() const {
  return !replacedBy.empty() &&
         std::all_of(replacedBy.begin(), replacedBy.end(), [](const Replacement& r) {
           return r.byRole == policy::Role::Override && r.relation != Relation::Self &&
                  r.relation != Relation::Below;
         });
}

bool Reach::dependsOnNameOrder(const policy::Policy& p) const {
  return std::any_of(replacedBy.begin(), replacedBy.end(), [&](const Replacement& r) {
    return r.relation == Relation::SameTarget && r.role == r.byRole &&
           policy::decidedByName(*r.by, p);
  });
}

std::string describeReplacements(const policy::Policy& p, const Reach& reach,
                                 std::optional<policy::Role> role) {
  std::string out;
  std::vector<std::string> seen;
  for (const Replacement& r : reach.replacedBy) {
    if (role && r.role != *role) continue;
    std::string part;
    switch (r.relation) {
      case Relation::Self:
        part = "its own " + std::string(policy::roleName(r.byRole));
        break;
      case Relation::Above:
        part = "the " + std::string(policy::roleName(r.byRole)) + " of " + r.by->display() +
               " (attached above it)";
        break;
      case Relation::Below:
        part = "the " + std::string(policy::roleName(r.byRole)) + " of " + r.by->display() +
               " (attached below it)";
        break;
      case Relation::SameTarget:
        if (r.byRole == policy::Role::Override && r.role != policy::Role::Override)
          part = "the override of " + r.by->display() + " (on the same target)";
        else
          part = r.by->display() +
                 ", on the same target and established first (creationTimestamp " +
                 (r.by->creationTimestamp.empty() ? std::string("none")
                                                  : std::string(r.by->creationTimestamp)) +
                 " against " +
                 (p.creationTimestamp.empty() ? std::string("none")
                                              : std::string(p.creationTimestamp)) +
                 ")";
        break;
    }
    if (std::find(seen.begin(), seen.end(), part) != seen.end()) continue;
    seen.push_back(part);
    out += (out.empty() ? "" : "; ") + part;
  }
  return out;
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
      for (const policy::Policy* p : policy::contributorsOf(e.value, policy::Role::Default))
        out[p].defaultTakesEffect = true;
      for (const policy::Overridden& o : e.overridden) {
        Replacement rep{o.by, o.role, o.byRole, relationOf(a.policies, *e.fullPath, o.policy, o.by)};
        // A block replacing an earlier block of the same policy is the merge itself at work
        // (a policy on two levels of one path), not a loss.
        if (rep.relation == Relation::Self && o.role == o.byRole) continue;
        Reach& r = out[o.policy];
        if (std::find(r.replacedBy.begin(), r.replacedBy.end(), rep) == r.replacedBy.end())
          r.replacedBy.push_back(rep);
      }
    }
  }
  return out;
}

const std::map<const policy::Policy*, Reach>& reachOf(Context& ctx) {
  static const char key = 0;
  const analysis::Analysis& a = ctx.analysis();
  return ctx.shared().get<std::map<const policy::Policy*, Reach>>(&key, [&] { return reachOf(a); });
}

}  // namespace pg::rules::policyrules
