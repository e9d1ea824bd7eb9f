#include "lib/policy/engine.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>

#include "lib/graph/namespace_labels.h"
#include "lib/graph/topology.h"
#include "lib/model/hash.h"
#include "lib/model/parallel.h"
#include "lib/policy/family.h"

namespace pg::policy {

namespace {

constexpr std::string_view kGatewayGroup = graph::kGatewayGroup;

bool isRouteKind(std::string_view kind) {
  return graph::routeKindOf(kind).has_value();
}

bool isListenerSet(std::string_view kind) {
  return kind == "ListenerSet" || kind == "XListenerSet";
}

bool isBackendKind(std::string_view kind) {
  return kind == "Service" || kind == "ServiceImport" || kind == "Backend";
}

// A targetRef without a group: Gateway API kinds default to their group, the rest to core.
std::string defaultGroup(std::string_view kind) {
  if (kind == "Gateway" || kind == "GatewayClass" || isRouteKind(kind) || isListenerSet(kind))
    return std::string(kGatewayGroup);
  return {};
}

Level levelOf(std::string_view kind, bool hasSection) {
  if (kind == "GatewayClass") return Level::GatewayClass;
  if (kind == "Namespace") return Level::Namespace;
  if (kind == "Gateway") return hasSection ? Level::Listener : Level::Gateway;
  if (isListenerSet(kind)) return hasSection ? Level::Listener : Level::ListenerSet;
  if (isRouteKind(kind)) return hasSection ? Level::RouteRule : Level::Route;
  return hasSection ? Level::BackendPort : Level::Backend;
}

class Resolver {
 public:
  Resolver(const model::Store& store, const graph::Topology& topology, const PolicyModel& model)
      : store_(store), topology_(topology), model_(model) {}

  // Fills a target read from `ref` (a targetRef entry) relative to `policy`.
  Target read(const Policy& policy, yaml::NodeRef ref) const {
    Target t;
    t.node = ref;
    t.at = ref;
    t.kind = std::string(ref.get("kind").str());
    yaml::NodeRef group = ref.get("group");
    t.group = group ? std::string(group.str()) : defaultGroup(t.kind);
    t.name = std::string(ref.get("name").str());
    t.sectionName = std::string(ref.get("sectionName").str());
    yaml::NodeRef ns = ref.get("namespace");
    t.namespace_ =
        ns && !ns.str().empty() ? std::string(ns.str()) : std::string(policy.resource->namespace_);
    resolve(policy, t, ns);
    return t;
  }

  // Whether a ReferenceGrant lets `policy` reach an object in another namespace.
  bool granted(const Policy& policy, std::string_view group, std::string_view kind,
               std::string_view namespace_, std::string_view name) const {
    return topology_.grants.permits(policy.resource->group, policy.resource->kind,
                                    policy.resource->namespace_, group, kind, namespace_, name);
  }

  void resolve(const Policy& policy, Target& t, yaml::NodeRef namespaceNode) const {
    t.level = levelOf(t.kind, !t.sectionName.empty());
    if (store_.isClusterScoped(t.group, t.kind)) t.namespace_.clear();
    if (t.kind.empty() || t.name.empty()) {
      fail(t, TargetProblem::Malformed, "Invalid", "the target reference needs a kind and a name",
           t.node);
      return;
    }
    if (!policy.profile->allowsTarget(t.kind) && !controllerTakes(policy, t)) {
      std::string allowed;
      for (const std::string& k : policy.profile->targetKinds)
        allowed += (allowed.empty() ? "" : ", ") + k;
      fail(t, TargetProblem::KindNotAllowed, "Invalid",
           policy.profile->kind + " cannot target " + t.kind + " objects (it targets " + allowed +
               ")",
           t.node.get("kind"));
      return;
    }
    if (!t.namespace_.empty() && t.namespace_ != policy.resource->namespace_ &&
        !policy.resource->namespace_.empty()) {
      bool granted = topology_.grants.permits(policy.resource->group, policy.resource->kind,
                                              policy.resource->namespace_, t.group, t.kind,
                                              t.namespace_, t.name);
      if (!granted) {
        fail(t, TargetProblem::OtherNamespace, "Invalid",
             "a policy may only target objects in its own namespace \"" +
                 std::string(policy.resource->namespace_) + "\" (no ReferenceGrant in \"" +
                 t.namespace_ + "\" allows it)",
             namespaceNode ? namespaceNode : t.node);
        return;
      }
    }
    t.resource = store_.find(t.group, t.kind, t.namespace_, t.name);
    if (!t.resource) {
      const model::Store::Refusal* refused = store_.refusal(t.group, t.kind, t.namespace_, t.name);
      fail(t, TargetProblem::NotFound, "TargetNotFound",
           refused ? refused->notApplied() : t.kind + " " + qualified(t) + " does not exist",
           t.node.get("name"));
      return;
    }
    if (!t.sectionName.empty() && !sectionExists(t)) {
      fail(t, TargetProblem::SectionNotFound, "TargetNotFound",
           t.kind + " " + qualified(t) + " has no " + sectionWord(t.kind) + " named \"" +
               t.sectionName + "\"",
           t.node.get("sectionName"));
    }
  }

 private:
  static std::string qualified(const Target& t) {
    return t.namespace_.empty() ? t.name : t.namespace_ + "/" + t.name;
  }

  static std::string sectionWord(std::string_view kind) {
    if (kind == "Gateway" || isListenerSet(kind)) return "listener";
    if (isRouteKind(kind)) return "rule";
    return "port";
  }

  static void fail(Target& t, TargetProblem problem, std::string reason, std::string message,
                   yaml::NodeRef at) {
    t.problem = problem;
    t.reason = std::move(reason);
    t.message = std::move(message);
    t.at = at ? at : t.node;
  }

  bool sectionExists(const Target& t) const {
    if (t.kind == "Gateway" || isListenerSet(t.kind)) {
      const graph::Gateway* g = topology_.findGateway(t.namespace_, t.name, t.kind);
      if (!g) return false;
      return std::any_of(g->listeners.begin(), g->listeners.end(),
                         [&](const graph::Listener& l) { return l.name == t.sectionName; });
    }
    if (isRouteKind(t.kind)) {
      const graph::Route* r = model_.routeOf(*t.resource);
      if (!r) return false;
      return std::any_of(r->rules.begin(), r->rules.end(),
                         [&](const graph::RouteRule& rule) { return rule.name == t.sectionName; });
    }
    if (t.kind == "Service" || (t.group == "networking.istio.io" && t.kind == "ServiceEntry")) {
      for (yaml::NodeRef port : t.resource->spec().get("ports").items())
        if (port.get("name").str() == t.sectionName) return true;
      return false;
    }
    return true;  // a kind whose sections policygraph does not model
  }

  // A kind of the controller's own that it lets a Gateway API policy target beyond the
  // specification's (Istio: a BackendTLSPolicy on a ServiceEntry).
  bool controllerTakes(const Policy& policy, const Target& t) const {
    return policy.profile->kind == "BackendTLSPolicy" &&
           policy.profile->family == Family::GatewayApi &&
           topology_.backendPolicyProfile().takesBackendTlsTarget(t.group, t.kind);
  }

  const model::Store& store_;
  const graph::Topology& topology_;
  const PolicyModel& model_;
};

void readTargets(Policy& policy, const Resolver& resolver, const model::Store& store) {
  yaml::NodeRef spec = policy.resource->spec();
  if (yaml::NodeRef one = spec.get("targetRef"); one.isMapping())
    policy.targets.push_back(resolver.read(policy, one));
  for (yaml::NodeRef ref : spec.get("targetRefs").items())
    if (ref.isMapping()) policy.targets.push_back(resolver.read(policy, ref));
  // Envoy Gateway: targetSelectors pick objects of a kind by label, in the policy's namespace
  // unless `namespaces` says otherwise (from: All, or Selector over Namespace labels); an
  // object in another namespace is picked only where a ReferenceGrant allows the policy. With
  // `from: Selector`, the policy's own namespace is picked only if its labels match too
  // (Envoy Gateway's targetSelectorNamespacesMatch); every Namespace has the
  // kubernetes.io/metadata.name label, and one not in the input is assumed to match a
  // selector on other labels, as listeners' `from: Selector` is (graph/namespace_labels.h).
  std::string_view ownNamespace = policy.resource->namespace_;
  for (yaml::NodeRef selector : spec.get("targetSelectors").items()) {
    std::string kind(selector.get("kind").str());
    yaml::NodeRef groupNode = selector.get("group");
    std::string group = groupNode ? std::string(groupNode.str()) : defaultGroup(kind);
    model::LabelSelector::Error error;
    std::optional<model::LabelSelector> labels = model::LabelSelector::parse(selector, &error);
    if (!labels) continue;
    yaml::NodeRef namespaces = selector.get("namespaces");
    std::string_view from = namespaces.get("from").str();
    std::optional<model::LabelSelector> namespaceLabels;
    if (from == "Selector") {
      namespaceLabels = model::LabelSelector::parse(namespaces.get("selector"), &error);
      if (!namespaceLabels) continue;
    }
    bool anyNamespace = from == "All" || from == "Selector";
    for (const model::Resource* r :
         store.select(kind, anyNamespace ? std::string_view() : ownNamespace, *labels)) {
      if (r->group != group) continue;
      if (namespaceLabels) {
        const model::Resource* ns = store.find("", "Namespace", "", r->namespace_);
        const bool matches =
            ns ? namespaceLabels->matches(ns->labels(), graph::kNamespaceNameLabel, r->namespace_)
               : namespaceLabels->matches(yaml::NodeRef(), graph::kNamespaceNameLabel,
                                          r->namespace_) ||
                     graph::selectsOnUnknownLabels(*namespaceLabels);
        if (!matches) continue;
      }
      if (r->namespace_ != ownNamespace &&
          !resolver.granted(policy, group, kind, r->namespace_, r->name))
        continue;
      Target t;
      t.node = selector;
      t.at = selector;
      t.group = group;
      t.kind = kind;
      t.namespace_ = std::string(r->namespace_);
      t.name = std::string(r->name);
      t.fromSelector = true;
      resolver.resolve(policy, t, {});
      policy.targets.push_back(std::move(t));
    }
  }
}

}  // namespace

std::size_t PolicyModel::AttachmentHash::operator()(const AttachmentKey& k) const {
  // Most keys have no section: spare hashing an empty string for every lookup.
  std::size_t h = std::hash<const void*>()(k.first);
  return k.second.empty() ? h : h ^ (std::hash<std::string_view>()(k.second) << 1);
}

void PolicyModel::indexAttachments() {
  attachments_.clear();
  for (const Policy& p : policies) {
    // A policy its controller rejects for its content attaches nowhere: it neither applies
    // nor makes a valid newer policy Conflicted.
    if (!p.invalidMessage.empty()) continue;
    for (const Target& t : p.targets) {
      if (!t.attached()) continue;
      std::vector<const Policy*>& at = attachments_[{t.resource, t.sectionName}];
      if (std::find(at.begin(), at.end(), &p) == at.end()) at.push_back(&p);
    }
  }
  for (auto& [key, list] : attachments_)
    std::stable_sort(list.begin(), list.end(),
                     [](const Policy* a, const Policy* b) { return established(*a, *b); });
}

void PolicyModel::indexTopology(const graph::Topology& topology, unsigned jobs) {
  // Two indexes that share nothing: each built by a thread of its own when there are two.
  auto build = [&](std::size_t index, unsigned) {
    if (index == 0) {
      routes_.clear();
      routes_.reserve(topology.routes.size());
      for (const graph::Route& r : topology.routes) routes_.emplace(r.resource, &r);
      return;
    }
    backendUses_.clear();
    for (const graph::Route& r : topology.routes)
      for (const graph::RouteRule& rule : r.rules)
        for (std::size_t b = 0; b < rule.backends.size(); ++b)
          if (rule.backends[b].target)
            backendUses_[rule.backends[b].target].push_back({&r, &rule, b});
  };
  unsigned workers = jobs > 1 && topology.routes.size() >= kParallelMinItems ? 2 : 1;
  pg::model::parallelFor(workers, 2, build);
}

const graph::Route* PolicyModel::routeOf(const model::Resource& resource) const {
  auto it = routes_.find(&resource);
  return it == routes_.end() ? nullptr : it->second;
}

std::span<const BackendUse> PolicyModel::usesOf(const model::Resource& backend) const {
  auto it = backendUses_.find(&backend);
  if (it == backendUses_.end()) return {};
  return it->second;
}

std::span<const Policy* const> PolicyModel::attachedAll(const model::Resource& object,
                                                        std::string_view section) const {
  auto it = attachments_.find({&object, section});
  if (it == attachments_.end()) return {};
  return it->second;
}

const Policy* PolicyModel::firstAttached(const Profile& profile, const model::Resource& object,
                                         std::string_view section) const {
  for (const Policy* p : attachedAll(object, section))
    if (p->profile == &profile) return p;
  return nullptr;
}

bool PolicyModel::hasAttached(const Profile& profile, const model::Resource& object,
                              std::string_view section) const {
  return firstAttached(profile, object, section) != nullptr;
}

std::vector<const Policy*> PolicyModel::attachedTo(const Profile& profile,
                                                   const model::Resource& object,
                                                   std::string_view section) const {
  std::vector<const Policy*> out;
  for (const Policy* p : attachedAll(object, section))
    if (p->profile == &profile) out.push_back(p);
  return out;
}

const Policy* PolicyModel::find(const model::Resource& resource) const {
  for (const Policy& p : policies)
    if (p.resource == &resource) return &p;
  return nullptr;
}

std::vector<Contribution> contributionsAlong(const PolicyModel& model, const Profile& profile,
                                             const Path& path) {
  std::vector<Contribution> out;
  // A policy its controller rejects as invalid takes part in no merge.
  for (std::size_t i = 0; i < path.size(); ++i)
    for (const Policy* p : model.attachedAll(*path[i].object, path[i].section))
      if (p->profile == &profile && p->invalidMessage.empty()) out.push_back({p, i});
  return out;
}

AncestorRef ancestorRefOf(const graph::RouteParent& parent) {
  AncestorRef ref;
  ref.group = parent.ref.group;
  ref.kind = parent.ref.kind;
  ref.namespace_ = parent.ref.namespace_;
  ref.name = parent.ref.name;
  ref.sectionName = std::string(parent.ref.sectionName);
  ref.port = parent.ref.port;
  return ref;
}

AncestorRef ancestorRefOf(const Target& target) {
  AncestorRef ref;
  ref.group = target.group;
  ref.kind = target.kind;
  ref.namespace_ = target.namespace_;
  ref.name = target.name;
  ref.sectionName = target.sectionName;
  return ref;
}

std::vector<AncestorRef> ancestorsOf(const Target& target, const PolicyModel& model) {
  std::vector<AncestorRef> out;
  auto add = [&](AncestorRef ref) {
    if (std::find(out.begin(), out.end(), ref) == out.end()) out.push_back(std::move(ref));
  };
  auto fromParent = [&](const graph::RouteParent& p) { add(ancestorRefOf(p)); };
  if (target.kind == "Gateway" || isListenerSet(target.kind) || target.kind == "GatewayClass" ||
      target.kind == "Namespace") {
    add(ancestorRefOf(target));
    return out;
  }
  if (!target.resource) return out;
  if (isRouteKind(target.kind)) {
    if (const graph::Route* r = model.routeOf(*target.resource))
      for (const graph::RouteParent& p : r->parents)
        if (p.gateway || p.service) fromParent(p);
    return out;
  }
  for (const BackendUse& use : model.usesOf(*target.resource))
    for (const graph::RouteParent& p : use.route->parents)
      if (p.gateway) fromParent(p);
  return out;
}

namespace {

Effective effectiveFor(const Profile& profile, const Path& path,
                       const std::vector<Contribution>& contributions) {
  switch (profile.family) {
    case Family::GatewayApi:
      return gatewayapi::effective(profile, path, contributions);
    case Family::Kuadrant:
      return kuadrant::effective(profile, path, contributions);
    case Family::EnvoyGateway:
      return envoygateway::effective(profile, path, contributions);
  }
  return {};
}

}  // namespace

// The merges already made, by what decides them: every family's effective() reads of its
// path only the length and the level of each step a contribution comes from, so the routes
// behind one Gateway, whose contributions come from the same policies at the same steps,
// share one merge. One per thread.
class EffectiveMemo {
 public:
  const Effective& get(const Profile& profile, const Path& path,
                       const std::vector<Contribution>& contributions) {
    Key key;
    key.reserve(2 + contributions.size() * 3);
    key.push_back(reinterpret_cast<std::uintptr_t>(&profile));
    key.push_back(path.size());
    for (const Contribution& c : contributions) {
      key.push_back(reinterpret_cast<std::uintptr_t>(c.policy));
      key.push_back(c.step);
      key.push_back(static_cast<std::uintptr_t>(path[c.step].level));
    }
    auto it = merges_.find(key);
    if (it == merges_.end())
      it = merges_.emplace(std::move(key), effectiveFor(profile, path, contributions)).first;
    return it->second;
  }

 private:
  using Key = std::vector<std::uintptr_t>;
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      std::uint64_t h = pg::model::kHashSeed;
      for (std::uintptr_t w : k) h = pg::model::mixWord(h, w);
      return static_cast<std::size_t>(h);
    }
  };
  std::unordered_map<Key, Effective, KeyHash> merges_;
};

// effectiveOn(), sharing the merges made before through `memo` (none when null).
std::vector<Effective> effectiveOnWith(const PolicyModel& model, const graph::Topology& topology,
                                       const model::Store& store, const model::Resource& target,
                                       std::string_view section, EffectiveMemo* memo);

PolicyModel simulate(const model::Store& store, graph::Topology& topology,
                     const config::Config& config, const PolicyOptions& options) {
  PolicyModel model;
  model.profiles = collectProfiles(store, config, options.schemaChannel);
  model.indexTopology(topology, options.jobs);
  Resolver resolver(store, topology, model);
  for (const model::Resource& r : store.all()) {
    const Profile* profile = model.profiles.find(r.group, r.kind);
    if (!profile) continue;
    if (store.find(r.group, r.kind, r.namespace_, r.name) != &r) continue;  // a duplicate
    Policy p;
    p.resource = &r;
    p.profile = profile;
    p.creationTimestamp = r.metadata().get("creationTimestamp").str();
    model.policies.push_back(std::move(p));
  }
  // Each policy's targets and blocks: read from its own object, written to its own slot.
  pg::model::parallelFor(
      pg::model::workersFor(options.jobs, model.policies.size(), kParallelMinItems),
      model.policies.size(), [&](std::size_t i, unsigned) {
        Policy& p = model.policies[i];
        readTargets(p, resolver, store);
        switch (p.profile->family) {
          case Family::GatewayApi:
            gatewayapi::readBlocks(p);
            break;
          case Family::Kuadrant:
            kuadrant::readBlocks(p);
            break;
          case Family::EnvoyGateway:
            envoygateway::readBlocks(p);
            break;
        }
      });
  model.indexAttachments();
  model.indexRoutePaths(topology, store, options.jobs);
  FamilyContext context{store, topology, model, options, config};
  gatewayapi::writeStatus(context);
  kuadrant::writeStatus(context);
  envoygateway::writeStatus(context);
  for (const RouteCondition& rc : model.routeConditions) {
    auto index = static_cast<std::size_t>(rc.route - topology.routes.data());
    if (index >= topology.routes.size()) continue;
    graph::Route& route = topology.routes[index];
    if (rc.parent >= route.parents.size()) continue;
    std::vector<graph::Condition>& conditions = route.parents[rc.parent].conditions;
    auto same = std::find_if(conditions.begin(), conditions.end(), [&](const graph::Condition& c) {
      return c.type == rc.condition.type;
    });
    if (same == conditions.end())
      conditions.push_back(rc.condition);
    else if (same->status == "True")  // the first problem found stays the reason
      *same = rc.condition;
  }
  // The effective policies of every reached object: independent of each other and reading
  // only what is built above, so they are computed on `jobs` threads, each filling its own
  // slots (the result does not depend on the number of jobs).
  std::vector<const model::Resource*> reached =
      reachedObjects(model, topology, store, options.jobs);
  model.effective.resize(reached.size());
  unsigned workers = pg::model::workersFor(options.jobs, reached.size(), kParallelMinItems);
  std::vector<EffectiveMemo> memos(workers);
  pg::model::parallelFor(workers, reached.size(), [&](std::size_t i, unsigned worker) {
    model.effective[i] = {reached[i],
                          effectiveOnWith(model, topology, store, *reached[i], {}, &memos[worker])};
  });
  return model;
}

namespace {

// GatewayClass, Namespace, Gateway, Namespace, ListenerSet, Listener, Namespace, route,
// rule: the longest path to a route rule, reserved so that paths grow without copying.
constexpr std::size_t kStepsToRouteRule = 9;

class PathBuilder {
 public:
  PathBuilder(const PolicyModel& model, const model::Store& store) : model_(model), store_(store) {}

  // Appends the Namespace step of `object` unless the previous step is in the same one.
  void namespaceStep(Path& path, const model::Resource& object) const {
    if (object.namespace_.empty()) return;
    if (!path.empty() && path.back().object->namespace_ == object.namespace_) return;
    if (const model::Resource* ns = store_.find("", "Namespace", "", object.namespace_))
      path.push_back({Level::Namespace, ns, {}, nullptr, nullptr, nullptr});
  }

  Path gatewayPath(const graph::Gateway& g, std::string_view listener) const {
    Path path;
    path.reserve(kStepsToRouteRule);
    const graph::Gateway& root = g.parent ? *g.parent : g;
    if (root.gatewayClass)
      path.push_back({Level::GatewayClass, root.gatewayClass, {}, nullptr, nullptr, nullptr});
    namespaceStep(path, *root.resource);
    path.push_back({Level::Gateway, root.resource, {}, &root, nullptr, nullptr});
    if (g.parent) {
      namespaceStep(path, *g.resource);
      path.push_back({Level::ListenerSet, g.resource, {}, &g, nullptr, nullptr});
    }
    if (!listener.empty())
      path.push_back({Level::Listener, g.resource, listener, &g, nullptr, nullptr});
    return path;
  }

  // The paths to `route` (to its rule `rule` when set): the whole route's, from the index
  // when there is one, each with the rule's step appended.
  std::vector<Path> routePaths(const graph::Route& route, std::string_view rule) const {
    std::vector<Path> built;
    std::vector<Path> out = wholeRoutePaths(route, built);
    if (!rule.empty())
      for (Path& path : out) {
        const graph::RouteParent* parent = path.back().parent;
        path.push_back({Level::RouteRule, route.resource, rule, nullptr, &route, parent});
      }
    return out;
  }

  // The whole route's paths: the index's, else built into `storage`.
  const std::vector<Path>& wholeRoutePaths(const graph::Route& route,
                                           std::vector<Path>& storage) const {
    const std::vector<Path>* indexed = model_.pathsOfRoute(route);
    if (indexed) return *indexed;
    storage = wholeRoutePaths(route);
    return storage;
  }

  std::vector<Path> wholeRoutePaths(const graph::Route& route) const {
    std::vector<Path> out;
    auto finish = [&](Path path, const graph::RouteParent* parent) {
      namespaceStep(path, *route.resource);
      path.push_back({Level::Route, route.resource, {}, nullptr, &route, parent});
      out.push_back(std::move(path));
    };
    for (const graph::RouteParent& p : route.parents) {
      if (p.gateway && p.accepted()) {
        for (const graph::Listener* l : p.listeners) finish(gatewayPath(*l->gateway, l->name), &p);
      } else if (p.service && p.accepted()) {
        finish({}, &p);
      }
    }
    if (out.empty()) finish({}, nullptr);
    return out;
  }

  std::vector<Path> backendPaths(const model::Resource& backend, std::string_view port) const {
    std::vector<Path> out;
    auto finish = [&](Path path) {
      namespaceStep(path, backend);
      path.push_back({Level::Backend, &backend, {}, nullptr, nullptr, nullptr});
      if (!port.empty())
        path.push_back({Level::BackendPort, &backend, port, nullptr, nullptr, nullptr});
      out.push_back(std::move(path));
    };
    const graph::RouteRule* previous = nullptr;
    for (const BackendUse& use : model_.usesOf(backend)) {
      if (use.rule == previous) continue;  // two backendRefs of one rule: one path
      previous = use.rule;
      for (Path path : routePaths(*use.route, use.rule->name)) finish(std::move(path));
    }
    if (out.empty()) finish({});
    return out;
  }

 private:
  const PolicyModel& model_;
  const model::Store& store_;
};

void dedupe(std::vector<Path>& paths) {
  std::vector<Path> unique;
  for (Path& p : paths)
    if (std::find(unique.begin(), unique.end(), p) == unique.end()) unique.push_back(std::move(p));
  paths = std::move(unique);
}

}  // namespace

void PolicyModel::indexRoutePaths(const graph::Topology& topology, const model::Store& store,
                                  unsigned jobs) {
  routePaths_.clear();
  firstRoute_ = nullptr;
  std::vector<std::vector<Path>> paths(topology.routes.size());
  PathBuilder builder(*this, store);
  pg::model::parallelFor(
      pg::model::workersFor(jobs, paths.size(), kParallelMinItems), paths.size(),
      [&](std::size_t i, unsigned) { paths[i] = builder.wholeRoutePaths(topology.routes[i]); });
  routePaths_ = std::move(paths);
  firstRoute_ = topology.routes.data();
}

const std::vector<Path>* PolicyModel::pathsOfRoute(const graph::Route& route) const {
  // std::less: a total order even for a route of another topology (built or copied apart).
  std::less<const graph::Route*> before;
  if (!firstRoute_ || before(&route, firstRoute_) ||
      !before(&route, firstRoute_ + routePaths_.size()))
    return nullptr;
  return &routePaths_[static_cast<std::size_t>(&route - firstRoute_)];
}

std::vector<Path> pathsTo(const PolicyModel& model, const graph::Topology& topology,
                          const model::Store& store, const model::Resource& target,
                          std::string_view section) {
  PathBuilder builder(model, store);
  std::vector<Path> paths;
  if (target.kind == "Gateway" || isListenerSet(target.kind)) {
    if (const graph::Gateway* g = topology.findGateway(target.namespace_, target.name, target.kind))
      paths.push_back(builder.gatewayPath(*g, section));
  } else if (const graph::Route* r = isRouteKind(target.kind) ? model.routeOf(target) : nullptr) {
    paths = builder.routePaths(*r, section);
  } else if (isBackendKind(target.kind)) {
    paths = builder.backendPaths(target, section);
  } else if (target.kind == "GatewayClass") {
    paths.push_back({{Level::GatewayClass, &target, {}, nullptr, nullptr, nullptr}});
  } else if (target.kind == "Namespace") {
    paths.push_back({{Level::Namespace, &target, {}, nullptr, nullptr, nullptr}});
  }
  if (paths.empty()) {
    Path path;
    builder.namespaceStep(path, target);
    path.push_back(
        {levelOf(target.kind, !section.empty()), &target, section, nullptr, nullptr, nullptr});
    paths.push_back(std::move(path));
  }
  dedupe(paths);
  return paths;
}

Path visiblePath(const PolicyModel& model, const Profile& profile, const Path& path) {
  Path out;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const Step& s = path[i];
    bool always = s.level == Level::Gateway || s.level == Level::Route || i + 1 == path.size();
    if (always || model.hasAttached(profile, *s.object, s.section)) out.push_back(s);
  }
  return out;
}

std::vector<Effective> effectiveOn(const PolicyModel& model, const graph::Topology& topology,
                                   const model::Store& store, const model::Resource& target,
                                   std::string_view section) {
  return effectiveOnWith(model, topology, store, target, section, nullptr);
}

std::vector<Effective> effectiveOnWith(const PolicyModel& model, const graph::Topology& topology,
                                       const model::Store& store, const model::Resource& target,
                                       std::string_view section, EffectiveMemo* memo) {
  std::vector<Path> paths = pathsTo(model, topology, store, target, section);
  // A route without a section: its named rules that have rule-level policies get paths too.
  if (section.empty() && isRouteKind(target.kind)) {
    if (const graph::Route* r = model.routeOf(target)) {
      for (const graph::RouteRule& rule : r->rules) {
        if (rule.name.empty()) continue;
        bool targeted = false;
        for (const Policy* p : model.attachedAll(target, rule.name))
          targeted = targeted || p->invalidMessage.empty();
        if (!targeted) continue;
        for (Path& p : pathsTo(model, topology, store, target, rule.name))
          paths.push_back(std::move(p));
      }
    }
  }
  std::vector<Effective> out;
  using VisibleKey = std::vector<std::pair<const model::Resource*, std::string_view>>;
  std::set<std::pair<const Profile*, VisibleKey>> seen;
  // Only the kinds attached somewhere on a path can reach the target through it.
  std::vector<std::vector<const Profile*>> present(paths.size());
  for (std::size_t i = 0; i < paths.size(); ++i)
    for (const Step& s : paths[i])
      for (const Policy* p : model.attachedAll(*s.object, s.section))
        if (std::find(present[i].begin(), present[i].end(), p->profile) == present[i].end())
          present[i].push_back(p->profile);
  // Each path once, for the entries of every kind on it.
  std::vector<std::shared_ptr<const Path>> shared;
  shared.reserve(paths.size());
  for (Path& p : paths) shared.push_back(std::make_shared<const Path>(std::move(p)));
  for (const Profile& profile : model.profiles.profiles) {
    for (std::size_t i = 0; i < shared.size(); ++i) {
      if (std::find(present[i].begin(), present[i].end(), &profile) == present[i].end()) continue;
      const Path& path = *shared[i];
      std::vector<Contribution> contributions = contributionsAlong(model, profile, path);
      if (contributions.empty()) continue;
      // Paths that differ only in levels without policies of the kind have one entry: a
      // path whose visible steps an earlier entry has is not merged again.
      Path visible = visiblePath(model, profile, path);
      VisibleKey key;
      for (const Step& s : visible) key.emplace_back(s.object, s.section);
      if (seen.count({&profile, key})) continue;
      Effective e = memo != nullptr ? memo->get(profile, path, contributions)
                                    : effectiveFor(profile, path, contributions);
      if (e.value.empty() && e.ineffective.empty()) continue;
      seen.insert({&profile, std::move(key)});
      e.profile = &profile;
      e.fullPath = shared[i];
      e.path = std::move(visible);
      out.push_back(std::move(e));
    }
  }
  return out;
}

std::vector<const model::Resource*> reachedObjects(const PolicyModel& model,
                                                   const graph::Topology& topology,
                                                   const model::Store& store, unsigned jobs) {
  std::set<const model::Resource*> reached;
  for (const Policy& p : model.policies)
    for (const Target& t : p.targets)
      if (t.attached()) reached.insert(t.resource);
  // Inherited policies reach every route below their target: one walk over the routes,
  // whatever the number of policies; each route is judged on its own, on `jobs` threads.
  PathBuilder builder(model, store);
  const std::vector<graph::Route>& routes = topology.routes;
  std::vector<char> below(routes.size(), 0);
  pg::model::parallelFor(pg::model::workersFor(jobs, routes.size(), kParallelMinItems),
                         routes.size(), [&](std::size_t i, unsigned) {
                           std::vector<Path> built;
                           for (const Path& path : builder.wholeRoutePaths(routes[i], built))
                             for (const Step& s : path)
                               for (const Policy* p : model.attachedAll(*s.object, s.section))
                                 if (p->profile->policyClass == PolicyClass::Inherited) {
                                   below[i] = 1;
                                   return;
                                 }
                         });
  for (std::size_t i = 0; i < routes.size(); ++i)
    if (below[i]) reached.insert(routes[i].resource);
  std::vector<const model::Resource*> out;
  for (const model::Resource& r : store.all())
    if (reached.count(&r)) out.push_back(&r);
  return out;
}

}  // namespace pg::policy
