// The status Kuadrant writes (RFC 0009 "Status reporting", RFC 0004): on each policy
// `Accepted` and, for inherited kinds, `Enforced`; on each Gateway and route an enforced
// policy affects, `kuadrant.io/<Kind>Affected`.
//
// Whether a policy is enforced is a question about traffic, so it is answered per route:
// the effective policy is computed on every path a request can take through a Gateway to a
// route (or to a route rule that has policies of its own, the rest of the route being one
// more path, the RFC's "virtual route"), and each of the policy's rules either survived
// there or was overridden by someone.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "lib/model/parallel.h"
#include "lib/policy/kuadrant/kuadrant.h"

namespace pg::policy::kuadrant {

namespace {

graph::Condition acceptedCondition(const Policy& policy, const PolicyModel& model) {
  if (!policy.invalidMessage.empty())
    return graph::makeCondition("Accepted", false, "Invalid",
                                "Policy is invalid: " + policy.invalidMessage);
  if (policy.targets.empty())
    return graph::makeCondition("Accepted", false, "Invalid",
                                "Policy is invalid: spec.targetRef is missing");
  for (const Target& t : policy.targets) {
    if (t.attached()) continue;
    if (t.reason != "TargetNotFound")
      return graph::makeCondition("Accepted", false, t.reason, "Policy is invalid: " + t.message);
    std::string message = "Policy target " + t.name + " was not found";
    if (t.resource) message += ": " + t.message;  // the object exists, its section does not
    return graph::makeCondition("Accepted", false, "TargetNotFound", message);
  }
  if (policy.profile->policyClass == PolicyClass::Direct) {
    for (const Target& t : policy.targets) {
      for (const Policy* rival : model.attachedTo(*policy.profile, *t.resource, t.sectionName)) {
        if (rival == &policy) break;
        if (usable(*rival))
          return graph::makeCondition("Accepted", false, "Conflicted",
                                      "Policy is conflicted by " + rival->key());
      }
    }
  }
  return graph::makeCondition("Accepted", true, "Accepted", "Policy has been accepted");
}

bool throughGateway(const Path& path) {
  return std::any_of(path.begin(), path.end(),
                     [](const Step& s) { return s.level == Level::Gateway; });
}

// Every path traffic to `route` takes through a Gateway, split by the route's rules that
// policies of the kind target.
std::vector<Path> trafficPaths(const FamilyContext& context, const Profile& profile,
                               const graph::Route& route) {
  std::vector<Path> out;
  bool wholeRoute = route.rules.empty();
  for (const graph::RouteRule& rule : route.rules) {
    if (rule.name.empty() || !context.model.hasAttached(profile, *route.resource, rule.name)) {
      wholeRoute = true;
      continue;
    }
    for (Path& p :
         pathsTo(context.model, context.topology, context.store, *route.resource, rule.name))
      out.push_back(std::move(p));
  }
  if (wholeRoute)
    for (Path& p : pathsTo(context.model, context.topology, context.store, *route.resource))
      out.push_back(std::move(p));
  std::erase_if(out, [](const Path& p) { return !throughGateway(p); });
  return out;
}

// What the effective policies say about one policy, over every path it reaches.
struct Outcome {
  bool reached = false;
  std::set<std::string> kept;  // rule names that survived somewhere
  std::set<std::string> lost;  // rule names overridden somewhere
  std::set<std::string> by;    // who overrode them (policy keys, sorted)
  // Rule names of blocks whose constraint (`when` on the lower policy) did not hold.
  std::set<std::string> unmet;
};

std::string bracketed(const std::set<std::string>& keys) {
  std::string out = "[";
  for (const std::string& k : keys) out += (out.size() > 1 ? " " : "") + k;
  return out + "]";
}

std::string joined(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

const Value* lookup(const Value& value, const std::vector<std::string>& id) {
  const Value* v = &value;
  for (const std::string& part : id)
    if (!(v = v->find(part))) return nullptr;
  return v;
}

bool affectable(Level level) {
  return level == Level::Gateway || level == Level::ListenerSet || level == Level::Listener ||
         level == Level::Route || level == Level::RouteRule;
}

// What the routes say about the policies of one kind: unions, so the tallies of routes
// taken in any order and split in any way merge into the same.
struct Tally {
  explicit Tally(std::size_t objects) : affected(objects) {}

  std::map<const Policy*, Outcome> outcomes;
  // By the object's index in the Store: the policies that affect it, each once.
  std::vector<std::vector<const Policy*>> affected;

  void merge(Tally&& other) {
    for (auto& [policy, theirs] : other.outcomes) {
      Outcome& o = outcomes[policy];
      o.reached = o.reached || theirs.reached;
      o.kept.merge(theirs.kept);
      o.lost.merge(theirs.lost);
      o.by.merge(theirs.by);
      o.unmet.merge(theirs.unmet);
    }
  }
};

void tallyRoute(const FamilyContext& context, const Profile& profile, const graph::Route& route,
                Tally& tally) {
  if (!profile.allowsTarget(route.resource->kind)) return;
  for (const Path& path : trafficPaths(context, profile, route)) {
    std::vector<Contribution> contributions = contributionsAlong(context.model, profile, path);
    if (contributions.empty()) continue;
    Effective e = effective(profile, path, contributions);
    std::set<const Policy*> seen;
    for (const Contribution& c : contributions) {
      if (!usable(*c.policy) || !seen.insert(c.policy).second) continue;
      Outcome& o = tally.outcomes[c.policy];
      o.reached = true;
      bool keptHere = false;
      for (const Block& b : c.policy->blocks) {
        for (const NamedRule& r : rulesOf(profile, b.node)) {
          std::string name = ruleName(profile, r.id);
          const Value* v = lookup(e.value, r.id);
          if (v && v->isNode() && v->origin.policy == c.policy) {
            o.kept.insert(name);
            keptHere = true;
            continue;
          }
          std::string field = fieldOf(r.id);
          bool overridden = false;
          for (const Overridden& lost : e.overridden)
            if (lost.policy == c.policy && lost.field == field && lost.by) {
              o.by.insert(lost.by->key());
              overridden = true;
            }
          // Not overridden and absent: its block's constraint did not hold on this path.
          if (!overridden && constraintWhen(b.node))
            o.unmet.insert(name);
          else
            o.lost.insert(name);
        }
      }
      if (!keptHere) continue;
      for (std::size_t i = c.step; i < path.size(); ++i) {
        auto object = static_cast<std::size_t>(path[i].object - context.store.all().data());
        if (!affectable(path[i].level) || object >= tally.affected.size()) continue;
        std::vector<const Policy*>& by = tally.affected[object];
        if (std::find(by.begin(), by.end(), c.policy) == by.end()) by.push_back(c.policy);
      }
    }
  }
}

void writeEnforced(FamilyContext& context, const Profile& profile) {
  PolicyModel& model = context.model;
  // Routes are independent here (each reads the attachments, writes only its tally): they
  // are tallied on `jobs` threads, a tally per thread, merged after.
  const std::vector<graph::Route>& routes = context.topology.routes;
  const std::vector<model::Resource>& objects = context.store.all();
  unsigned workers = pg::model::workersFor(context.options.jobs, routes.size(), kParallelMinItems);
  std::vector<Tally> tallies;
  tallies.reserve(workers);
  for (unsigned w = 0; w < workers; ++w) tallies.emplace_back(objects.size());
  pg::model::parallelFor(workers, routes.size(), [&](std::size_t i, unsigned worker) {
    tallyRoute(context, profile, routes[i], tallies[worker]);
  });
  for (unsigned w = 1; w < workers; ++w) tallies[0].merge(std::move(tallies[w]));
  std::map<const Policy*, Outcome>& outcomes = tallies[0].outcomes;

  for (Policy& p : model.policies) {
    if (p.profile != &profile || p.conditions.empty() || p.conditions.front().status != "True")
      continue;
    const Outcome& o = outcomes[&p];
    if (!o.reached) {
      p.conditions.push_back(graph::makeCondition(
          "Enforced", false, "Unknown", "Policy is not in the path to any existing routes"));
    } else if (o.lost.empty() && o.kept.empty()) {
      // Only constraints, and none held: the policy applies nowhere, and nobody beat it.
      p.conditions.push_back(graph::makeCondition(
          "Enforced", false, "Unknown",
          "Policy is not enforced: the condition of its `when` holds on no path it reaches"));
    } else if (o.lost.empty()) {
      p.conditions.push_back(graph::makeCondition("Enforced", true, "Enforced",
                                                  "Policy has been successfully enforced"));
    } else if (o.kept.empty()) {
      p.conditions.push_back(graph::makeCondition("Enforced", false, "Overridden",
                                                  "Policy is overridden by " + bracketed(o.by)));
    } else {
      p.conditions.push_back(graph::makeCondition(
          "Enforced", true, "PartiallyEnforced",
          "Policy has been successfully enforced. The following rules have been overridden by " +
              bracketed(o.by) + ": " + joined(o.lost)));
    }
  }

  // The Affected condition of each object, from every thread's tally: built on the threads,
  // added in Store order.
  auto affected = pg::model::parallelCollect(
      pg::model::workersFor(context.options.jobs, objects.size(), kParallelMinItems),
      objects.size(), [&](std::size_t i) -> std::optional<graph::Condition> {
        std::set<std::string> keys;
        for (const Tally& t : tallies)
          for (const Policy* p : t.affected[i]) keys.insert(p->key());
        if (keys.empty()) return std::nullopt;
        return graph::makeCondition("kuadrant.io/" + profile.kind + "Affected", true, "Affected",
                                    "Object affected by " + profile.kind + " " + bracketed(keys));
      });
  model.targetConditions.reserve(model.targetConditions.size() + affected.size());
  for (auto& [i, condition] : affected)
    model.targetConditions.push_back({&objects[i], std::move(condition)});
}

}  // namespace

void writeStatus(FamilyContext& context) {
  PolicyModel& model = context.model;
  for (Policy& p : model.policies)
    if (p.profile->family == Family::Kuadrant) p.conditions.push_back(acceptedCondition(p, model));
  // Direct kinds (DNSPolicy, TLSPolicy) are enforced by DNS providers and certificate
  // issuers, which an offline simulation cannot observe: they get Accepted only.
  if (!context.options.enforcementStatus) return;
  for (const Profile& profile : model.profiles.profiles)
    if (profile.family == Family::Kuadrant && profile.policyClass == PolicyClass::Inherited)
      writeEnforced(context, profile);
}

}  // namespace pg::policy::kuadrant
