// The policy stage: finds every policy of a profiled kind in the Store, resolves its targets
// against the topology, and runs each family's semantics to produce the status its
// controller would write and the effective policy on every target, per hierarchy path.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lib/config/config.h"
#include "lib/graph/topology.h"
#include "lib/model/store.h"
#include "lib/policy/policy.h"
#include "lib/policy/profile.h"
#include "lib/policy/value.h"

namespace pg::policy {

// The effective policy of one kind on one target through one hierarchy path.
struct Effective {
  const Profile* profile = nullptr;
  Path path;  // the steps an explanation shows (visiblePath); the last is the target
  // Every level; Origin::step indexes it. Shared by the entries of every kind on one path:
  // a large repository has tens of thousands of entries, and each path is hundreds of bytes.
  std::shared_ptr<const Path> fullPath;
  Value value;
  std::vector<Overridden> overridden;
  // Policies of the kind that reach the target on this path but contribute nothing
  // (a direct kind's rejected challenger, an atomic default another replaced).
  std::vector<const Policy*> ineffective;
};

// A condition the policy stage adds to a route's status for one parent: a BackendTLSPolicy
// whose CA certificate reference does not resolve makes the route's ResolvedRefs False.
struct RouteCondition {
  const graph::Route* route = nullptr;
  std::size_t parent = 0;  // index into route->parents
  graph::Condition condition;
};

// The effective policies on one object some policy reaches.
struct ObjectEffective {
  const model::Resource* object = nullptr;
  std::vector<Effective> effective;
};

// A backendRef of a route rule, found from the object it names.
struct BackendUse {
  const graph::Route* route = nullptr;
  const graph::RouteRule* rule = nullptr;
  std::size_t backend = 0;  // index into rule->backends
};

// The status of an object that is not a policy of a profile but gets one from its controller:
// ancestors for Envoy Gateway's EnvoyProxy (from the GatewayClass or Gateway that references
// it) and EnvoyPatchPolicy, conditions of its own for Envoy Gateway's Backend.
struct ObjectStatus {
  const model::Resource* object = nullptr;
  std::vector<AncestorStatus> ancestors;
  std::vector<graph::Condition> conditions;  // status.conditions
};

// A problem a controller finds in an object that is not a policy (Envoy Gateway's EnvoyProxy),
// at the field at fault. `gateway`: the Gateway the controller does not accept because of it;
// null when only the object's own status says so.
struct ObjectProblem {
  const model::Resource* object = nullptr;
  yaml::NodeRef at;
  std::string message;
  const model::Resource* gateway = nullptr;
  // The object whose absence is the problem (a telemetry backend not in the input): the rule
  // engine weighs whether the unit is its home.
  std::optional<model::Missing> missing = std::nullopt;
};

struct PolicyModel {
  ProfileSet profiles;
  std::vector<Policy> policies;  // Store order
  // Every object some policy reaches (reachedObjects), in Store order, with its effective
  // policies: what rules judge and snapshots record.
  std::vector<ObjectEffective> effective;
  std::vector<TargetCondition> targetConditions;
  std::vector<RouteCondition> routeConditions;
  std::vector<ObjectStatus> objectStatuses;  // Store order
  std::vector<ObjectProblem> objectProblems;

  // Policies of one kind (by profile) attached to `object` (and, when given, its section),
  // most established first.
  std::vector<const Policy*> attachedTo(const Profile& profile, const model::Resource& object,
                                        std::string_view section = {}) const;
  // The most established policy of the kind attached to `object` (and section), null when
  // none is: attachedTo's front without building the list.
  const Policy* firstAttached(const Profile& profile, const model::Resource& object,
                              std::string_view section = {}) const;
  // Whether a policy of the kind is attached to `object` (and section): attachedTo without
  // building the list.
  bool hasAttached(const Profile& profile, const model::Resource& object,
                   std::string_view section = {}) const;
  // Every policy attached to `object` (and section), whatever its kind.
  std::span<const Policy* const> attachedAll(const model::Resource& object,
                                             std::string_view section = {}) const;
  const Policy* find(const model::Resource& resource) const;

  // Rebuilds the index behind `attachedTo` after `policies` changed.
  void indexAttachments();

  // The topology from the objects' side, so that no question about one object walks every
  // route: the route of a route object, and the backendRefs naming an object (the two built
  // side by side when `jobs` > 1).
  void indexTopology(const graph::Topology& topology, unsigned jobs = 1);
  const graph::Route* routeOf(const model::Resource& resource) const;
  std::span<const BackendUse> usesOf(const model::Resource& backend) const;

  // Every hierarchy path to each route of `topology` (the whole route, no rule), built once
  // on `jobs` threads: Kuadrant's enforcement, the reach of inherited policies and the
  // effective policies all walk them. Route attachment must be final (the paths go through
  // the listeners that accepted the route).
  void indexRoutePaths(const graph::Topology& topology, const model::Store& store,
                       unsigned jobs = 1);
  // The indexed paths of `route`; nullptr when routes were not indexed.
  const std::vector<Path>* pathsOfRoute(const graph::Route& route) const;

 private:
  std::vector<std::vector<Path>> routePaths_;  // by index in the topology's routes
  const graph::Route* firstRoute_ = nullptr;
  std::unordered_map<const model::Resource*, const graph::Route*> routes_;
  std::unordered_map<const model::Resource*, std::vector<BackendUse>> backendUses_;
  // The section is a view of the Target's sectionName: `policies` no longer changes once
  // indexed.
  using AttachmentKey = std::pair<const model::Resource*, std::string_view>;
  struct AttachmentHash {
    std::size_t operator()(const AttachmentKey& k) const;
  };
  std::unordered_map<AttachmentKey, std::vector<const Policy*>, AttachmentHash> attachments_;
};

struct PolicyOptions {
  std::string controllerName;  // written in ancestors[]; empty: each family's own
  unsigned jobs = 1;           // threads for per-route and per-object work
  // Kuadrant's `Enforced` condition and the `kuadrant.io/<Kind>Affected` conditions on
  // Gateways and routes: what every path through every route makes of each policy. `status`
  // and `diff` show them; no rule reads them, so `lint` and the other commands turn them off
  // (a twentieth of lint's time on a large repository). Policies still get `Accepted`.
  bool enforcementStatus = true;
  // The Gateway API channel of the built-in schemas, whose policy-labelled CRDs are policy
  // kinds out of the box.
  schema::Channel schemaChannel = schema::Channel::Experimental;
};

// `topology` is taken by reference because route conditions are folded into it: the policy
// stage is the one that knows a BackendTLSPolicy makes a backend unusable.
PolicyModel simulate(const model::Store& store, graph::Topology& topology,
                     const config::Config& config, const PolicyOptions& options = {});

// Every hierarchy path from the least specific object down to `target` (a section of it when
// `section` is set): through each Gateway (and listener) a route is attached to, through
// each route that uses a Service. Paths hold every level; `visiblePath` drops the ones
// nothing is attached to.
std::vector<Path> pathsTo(const PolicyModel& model, const graph::Topology& topology,
                          const model::Store& store, const model::Resource& target,
                          std::string_view section = {});

// The effective policies on `target`: one entry per policy kind and distinct path that
// some policy of the kind reaches. Paths that only differ in levels without policies of
// the kind are one entry.
std::vector<Effective> effectiveOn(const PolicyModel& model, const graph::Topology& topology,
                                   const model::Store& store, const model::Resource& target,
                                   std::string_view section = {});

// The steps of `path` an explanation shows: Gateways and routes, the target, and any level
// a policy of the kind is attached to.
Path visiblePath(const PolicyModel& model, const Profile& profile, const Path& path);

// Every object some policy reaches (targets and what lies below them), in Store order; the
// routes are judged on `jobs` threads.
std::vector<const model::Resource*> reachedObjects(const PolicyModel& model,
                                                   const graph::Topology& topology,
                                                   const model::Store& store, unsigned jobs = 1);

}  // namespace pg::policy
