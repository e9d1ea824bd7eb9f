// The status Envoy Gateway writes on its policies. The translator walks the targets from the
// most specific level to the least (route rules, routes, listeners, ListenerSets, Gateways),
// each level in policy order; the first policy to resolve a target holds it and later ones
// are Conflicted. policygraph orders policies as GEP-713 does (`established`), never by
// document order: in a cluster the informer's order is the creation order.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "lib/model/ascii.h"
#include "lib/policy/envoygateway/envoygateway.h"
#include "lib/policy/family.h"

namespace pg::policy::envoygateway {

namespace {

constexpr std::string_view kDefaultController = "gateway.envoyproxy.io/gatewayclass-controller";

bool isGatewaySide(std::string_view kind) {
  return kind == "Gateway" || kind == "ListenerSet" || kind == "XListenerSet";
}

// How the translator names the kind in status messages: `backendTrafficPolicies`.
std::string pluralOf(std::string_view kind) {
  std::string out(kind);
  if (out.empty()) return out;
  out[0] = model::lowerAscii(out[0]);
  if (out.back() == 'y') {
    out.pop_back();
    out += "ies";
  } else {
    out += 's';
  }
  return out;
}

std::string qualified(std::string_view namespace_, std::string_view name) {
  return std::string(namespace_) + "/" + std::string(name);
}

std::string bracketed(const std::set<std::string>& items) {
  std::string out = "[";
  for (const std::string& item : items) {
    if (out.size() > 1) out += ' ';
    out += item;
  }
  return out + "]";
}

// The order the translator truncates ancestors in: by reference, as text.
std::string sortKey(const AncestorRef& ref) {
  return ref.namespace_ + "/" + ref.name + "/" + ref.sectionName + "/" + ref.kind;
}

class StatusWriter {
 public:
  StatusWriter(FamilyContext& context, const Profile& profile)
      : context_(context), profile_(profile), model_(context.model) {}

  void run() {
    for (Policy& p : model_.policies)
      if (p.profile == &profile_) policies_.push_back(&p);
    std::stable_sort(policies_.begin(), policies_.end(),
                     [](const Policy* a, const Policy* b) { return established(*a, *b); });
    const config::EnvoyGatewaySettings settings =
        controllerSettings(context_.store, context_.config);
    for (Policy* p : policies_) {
      if (!p->invalidMessage.empty()) continue;
      std::vector<Problem> problems =
          validate(*p, context_.store, context_.topology, context_.config.external, settings);
      if (problems.empty()) continue;
      // One message, as errors.Join and Error2ConditionMsg write it: one line per problem,
      // a period only at the end.
      for (std::size_t i = 0; i < problems.size(); ++i) {
        std::string_view line = problems[i].message;
        if (i + 1 < problems.size()) {
          if (line.ends_with('.')) line.remove_suffix(1);
          p->invalidMessage.append(line).append("\n");
        } else {
          p->invalidMessage.append(line);
        }
      }
      p->invalidAt = problems.front().at;
      for (Problem& problem : problems)
        p->invalidProblems.push_back(
            {std::move(problem.message), problem.at, std::move(problem.missing)});
    }
    // Routes some policy of the kind names: they override the Gateway-side policies, even
    // when that route policy is itself rejected.
    for (const Policy* p : policies_)
      for (const Target& t : p->targets)
        if (t.resource && !isGatewaySide(t.kind))
          if (const graph::Route* r = context_.model.routeOf(*t.resource))
            targetedRoutes_.insert(r);

    for (Level level :
         {Level::RouteRule, Level::Route, Level::Listener, Level::ListenerSet, Level::Gateway})
      for (Policy* p : policies_)
        for (const Target& t : p->targets)
          if (t.level == level) writeTarget(*p, t);
    for (Policy* p : policies_) truncateAncestors(*p);
  }

 private:
  // The policy of the kind that holds `object` (or one section of it), if any.
  const Policy* holder(const model::Resource& object, std::string_view section) const {
    return model_.firstAttached(profile_, object, section);
  }

  // The Gateway-side policy a route's policy merges with on one listener: the listener's,
  // else its ListenerSet's, else its Gateway's.
  const Policy* gatewaySideHolder(const graph::Listener& listener) const {
    const graph::Gateway& owner = *listener.gateway;
    if (const Policy* p = holder(*owner.resource, listener.name)) return p;
    if (const Policy* p = holder(*owner.resource, {})) return p;
    if (owner.parent) return holder(*owner.parent->resource, {});
    return nullptr;
  }

  std::vector<AncestorRef> ancestorsOf(const Target& t) const {
    std::vector<AncestorRef> out;
    auto add = [&](std::string_view group, std::string_view kind, std::string_view namespace_,
                   std::string_view name, std::string_view section) {
      AncestorRef ref;
      ref.group = group;
      ref.kind = kind;
      ref.namespace_ = namespace_;
      ref.name = name;
      ref.sectionName = section;
      // The translator writes ancestors without the parentRef's port.
      if (std::find(out.begin(), out.end(), ref) == out.end()) out.push_back(std::move(ref));
    };
    if (isGatewaySide(t.kind)) {
      const graph::Gateway* g = context_.topology.findGateway(t.namespace_, t.name, t.kind);
      if (g && g->managed) add(t.group, t.kind, t.namespace_, t.name, t.sectionName);
      return out;
    }
    if (const graph::Route* r = context_.model.routeOf(*t.resource))
      for (const graph::RouteParent& p : r->parents)
        if (p.gateway && p.gateway->managed)
          add(p.ref.group, p.ref.kind, p.ref.namespace_, p.ref.name, p.ref.sectionName);
    return out;
  }

  AncestorStatus& entry(Policy& policy, const AncestorRef& ref) {
    for (AncestorStatus& a : policy.ancestors)
      if (a.ref == ref) return a;
    std::string controller = context_.options.controllerName;
    if (controller.empty())
      if (const graph::Gateway* g =
              context_.topology.findGateway(ref.namespace_, ref.name, ref.kind))
        controller = std::string(g->controllerName);
    if (controller.empty()) controller = std::string(kDefaultController);
    policy.ancestors.push_back({ref, std::move(controller), {}});
    return policy.ancestors.back();
  }

  // A rejection replaces an earlier acceptance, never the other way round, and the first
  // rejection stays: one ancestor can be reached through several targets.
  static void set(AncestorStatus& ancestor, graph::Condition c) {
    for (graph::Condition& existing : ancestor.conditions) {
      if (existing.type != c.type) continue;
      if (c.type != "Accepted" || (existing.status == "True" && c.status != "True"))
        existing = std::move(c);
      return;
    }
    ancestor.conditions.push_back(std::move(c));
  }

  std::string conflictMessage(const Target& t) const {
    std::string what;
    if (t.sectionName.empty())
      what = t.kind + " " + t.name;
    else if (isGatewaySide(t.kind))
      what = "Listener " + qualified(t.namespace_, t.name) + "/" + t.sectionName;
    else
      what = "RouteRule " + t.name + "/" + t.sectionName;
    return "Unable to target " + what + ", another " + profile_.kind +
           " has already attached to it";
  }

  void writeTarget(Policy& policy, const Target& t) {
    // A target that does not exist (or that the kind may not name) gets no ancestor: another
    // controller may own it.
    if (!t.resource) return;
    std::vector<AncestorRef> ancestors = ancestorsOf(t);
    if (ancestors.empty()) return;

    bool sectionMissing = !t.attached();
    bool conflicted = !sectionMissing && holder(*t.resource, t.sectionName) != &policy;
    if (sectionMissing || conflicted) {
      graph::Condition rejected =
          sectionMissing
              ? graph::makeCondition("Accepted", false, "TargetNotFound",
                                     "No section name " + t.sectionName + " found for " + t.kind +
                                         " " + qualified(t.namespace_, t.name))
              : graph::makeCondition("Accepted", false, "Conflicted", conflictMessage(t));
      for (const AncestorRef& ref : ancestors) set(entry(policy, ref), rejected);
      return;
    }

    const bool invalid = !policy.invalidMessage.empty();
    std::optional<Strategy> merge = mergeStrategy(policy);
    bool routeLevel = !isGatewaySide(t.kind);
    if (routeLevel && merge) {
      writeMerge(policy, t);
    } else if (invalid) {
      for (const AncestorRef& ref : ancestors)
        set(entry(policy, ref),
            graph::makeCondition("Accepted", false, "Invalid", policy.invalidMessage));
    }
    for (const AncestorRef& ref : ancestors)
      set(entry(policy, ref),
          graph::makeCondition("Accepted", true, "Accepted", "Policy has been accepted."));

    std::string overridden =
        routeLevel ? overriddenRules(t) : overriddenBelow(policy, t, /*merged=*/false);
    if (!overridden.empty())
      for (const AncestorRef& ref : ancestors)
        set(entry(policy, ref),
            graph::makeCondition("Overridden", true, "Overridden",
                                 "This policy is being overridden by other " +
                                     pluralOf(profile_.kind) + " for " + overridden));
    if (!routeLevel) {
      std::string merged = overriddenBelow(policy, t, /*merged=*/true);
      if (!merged.empty())
        for (const AncestorRef& ref : ancestors)
          set(entry(policy, ref),
              graph::makeCondition("Merged", true, "Merged",
                                   "This policy is being merged by other " +
                                       pluralOf(profile_.kind) + " for " + merged));
    }
  }

  // A route policy with mergeType: on each listener the route is attached to, merged with the
  // Gateway-side policy there. The translator reports that listener as its own ancestor, and
  // what goes wrong in the merged result (or in the policy alone) there only.
  void writeMerge(Policy& policy, const Target& t) {
    const graph::Route* route = context_.model.routeOf(*t.resource);
    if (!route) return;
    std::string routeKey = qualified(route->resource->namespace_, route->resource->name);
    for (const graph::RouteParent& parent : route->parents) {
      if (!parent.gateway || !parent.gateway->managed) continue;
      for (const graph::Listener* l : parent.listeners) {
        const graph::Gateway& owner = *l->gateway;
        AncestorRef ref;
        ref.kind = std::string(owner.resource->kind);
        ref.namespace_ = std::string(owner.resource->namespace_);
        ref.name = std::string(owner.resource->name);
        ref.sectionName = std::string(l->name);
        const Policy* base = gatewaySideHolder(*l);
        const std::string& problem = !policy.invalidMessage.empty()
                                         ? policy.invalidMessage
                                         : (base ? base->invalidMessage : policy.invalidMessage);
        if (!problem.empty()) {
          set(entry(policy, ref), graph::makeCondition("Accepted", false, "Invalid", problem));
          continue;
        }
        if (!base) continue;
        set(entry(policy, ref),
            graph::makeCondition("Merged", true, "Merged", "Merged with policy " + base->key()));
        mergedRoutes_[base].insert(routeKey);
      }
    }
  }

  // A route policy is overridden, per rule, by the policies that hold the route's rules.
  std::string overriddenRules(const Target& t) const {
    if (!t.sectionName.empty()) return {};
    const graph::Route* route = context_.model.routeOf(*t.resource);
    if (!route) return {};
    std::set<std::string> rules;
    for (const graph::RouteRule& rule : route->rules)
      if (!rule.name.empty() && holder(*t.resource, rule.name)) rules.emplace(rule.name);
    return rules.empty() ? std::string() : "these route rules: " + bracketed(rules);
  }

  // Whether `parent` attaches its route within the scope of a Gateway-side target: the
  // Gateway (directly or through one of its ListenerSets), the ListenerSet, or one listener.
  static bool withinScope(const graph::RouteParent& parent, const graph::Gateway& scope,
                          std::string_view section) {
    if (!parent.gateway) return false;
    if (!section.empty()) {
      if (parent.gateway != &scope) return false;
      if (!parent.ref.sectionName.empty()) return parent.ref.sectionName == section;
      return std::any_of(parent.listeners.begin(), parent.listeners.end(),
                         [&](const graph::Listener* l) { return l->name == section; });
    }
    return parent.gateway == &scope || parent.gateway->parent == &scope;
  }

  // What the policy on a Gateway-side target is overridden by (or, with `merged`, merged
  // with): the listeners, ListenerSets and their listeners below it that hold a policy of
  // their own, and the routes below it that have one.
  std::string overriddenBelow(const Policy& policy, const Target& t, bool merged) const {
    const graph::Gateway* scope = context_.topology.findGateway(t.namespace_, t.name, t.kind);
    if (!scope) return {};
    std::set<std::string> routes;
    auto mergedIt = mergedRoutes_.find(&policy);
    for (const graph::Route* r : targetedRoutes_) {
      bool below = std::any_of(r->parents.begin(), r->parents.end(), [&](const auto& p) {
        return withinScope(p, *scope, t.sectionName);
      });
      if (!below) continue;
      std::string key = qualified(r->resource->namespace_, r->resource->name);
      bool mergedHere = mergedIt != mergedRoutes_.end() && mergedIt->second.count(key);
      if (mergedHere == merged) routes.insert(key);
    }
    if (merged) return routes.empty() ? std::string() : "these routes: " + bracketed(routes);

    std::set<std::string> listeners, listenerSets, listenerSetListeners;
    if (t.sectionName.empty()) {
      auto listenersOf = [&](const graph::Gateway& g, std::set<std::string>& into) {
        for (const graph::Listener& l : g.listeners)
          if (holder(*g.resource, l.name))
            into.insert(qualified(g.resource->namespace_, g.resource->name) + "/" +
                        std::string(l.name));
      };
      if (scope->isListenerSet()) {
        listenersOf(*scope, listenerSetListeners);
      } else {
        listenersOf(*scope, listeners);
        for (const graph::Gateway& child : context_.topology.gateways) {
          if (child.parent != scope) continue;
          if (holder(*child.resource, {}))
            listenerSets.insert(qualified(child.resource->namespace_, child.resource->name));
          listenersOf(child, listenerSetListeners);
        }
      }
    }
    std::vector<std::string> parts;
    if (!listeners.empty()) parts.push_back("these gateway listeners: " + bracketed(listeners));
    if (!listenerSets.empty()) parts.push_back("these listenersets: " + bracketed(listenerSets));
    if (!listenerSetListeners.empty())
      parts.push_back("these listenerset listeners: " + bracketed(listenerSetListeners));
    if (!routes.empty()) parts.push_back("these routes: " + bracketed(routes));
    std::string out;
    for (const std::string& part : parts) out += (out.empty() ? "" : " and ") + part;
    return out;
  }

  FamilyContext& context_;
  const Profile& profile_;
  PolicyModel& model_;
  std::vector<Policy*> policies_;
  std::set<const graph::Route*> targetedRoutes_;
  // Routes whose policy merged with a Gateway-side policy, by that policy.
  std::map<const Policy*, std::set<std::string>> mergedRoutes_;
};

}  // namespace

void truncateAncestors(Policy& policy) {
  if (policy.ancestors.size() <= kMaxAncestors) return;
  std::stable_sort(policy.ancestors.begin(), policy.ancestors.end(),
                   [](const AncestorStatus& a, const AncestorStatus& b) {
                     return sortKey(a.ref) < sortKey(b.ref);
                   });
  policy.ancestors.resize(kMaxAncestors);
  policy.ancestors.back().conditions.push_back(
      graph::makeCondition("Aggregated", true, "Aggregated",
                           "Ancestors have been truncated because the number of policy ancestors "
                           "exceeds 16."));
}

void writeStatus(FamilyContext& context) {
  for (const Profile& profile : context.model.profiles.profiles)
    if (profile.family == Family::EnvoyGateway) StatusWriter(context, profile).run();
  writeObjectStatus(context);
}

}  // namespace pg::policy::envoygateway
