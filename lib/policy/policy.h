// Policies as the simulation sees them: each object of a profiled kind, its target
// references resolved against the topology, its blocks (override, default, intent), and the
// status its family's controller would write. The generic part lives here; what a kind
// means lives in its family's folder.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/graph/topology.h"
#include "lib/model/finding.h"
#include "lib/model/store.h"
#include "lib/policy/profile.h"

namespace pg::policy {

// Levels of the hierarchy, least specific first (GEP-713, with the Namespace level gwctl
// adds above each object, and the sections a targetRef's sectionName can name).
enum class Level : std::uint8_t {
  GatewayClass,
  Namespace,
  Gateway,
  ListenerSet,
  Listener,
  Route,
  RouteRule,
  Backend,
  BackendPort,
};
std::string_view levelName(Level level);

// What a block of a policy is to the merge.
enum class Role : std::uint8_t { Override, Default, Intent };
std::string_view roleName(Role role);

// Why a target reference does not attach.
enum class TargetProblem : std::uint8_t {
  None,
  Malformed,        // no kind or no name
  KindNotAllowed,   // the profile does not accept the kind
  OtherNamespace,   // another namespace, and no ReferenceGrant allows it
  NotFound,         // no such object in the input
  SectionNotFound,  // the object has no listener, rule or port of that name
};

// One entry of `targetRef`, `targetRefs` or (Envoy Gateway) an object a `targetSelectors`
// entry selects, resolved.
struct Target {
  yaml::NodeRef node;  // the reference, for findings
  std::string group;   // "" for the core group
  std::string kind;
  std::string namespace_;  // "" for cluster-scoped kinds
  std::string name;
  std::string sectionName;
  bool fromSelector = false;
  const model::Resource* resource = nullptr;  // null: not in the input
  Level level = Level::Gateway;               // where the policy attaches
  // Empty when the target and its section exist; else TargetNotFound (missing object or
  // section), Invalid (a kind the profile does not accept, another namespace).
  std::string reason;
  std::string message;
  yaml::NodeRef at;  // the field at fault
  TargetProblem problem = TargetProblem::None;

  bool attached() const { return problem == TargetProblem::None; }
  model::ObjectRef ref() const;
};

// A `default`/`override` block (GEP-713), a `defaults`/`overrides` block or the bare rules
// (Kuadrant), or the whole spec (direct kinds, Envoy Gateway).
struct Block {
  Role role = Role::Intent;
  yaml::NodeRef node;  // the block's content: a mapping
  // Kuadrant: `strategy` of the block (atomic when absent); GEP-713 kinds: the profile's.
  Strategy strategy = Strategy::Atomic;
  yaml::NodeRef strategyNode;
};

// One ancestorRef entry of GEP-713 status.
struct AncestorRef {
  std::string group = "gateway.networking.k8s.io";
  std::string kind = "Gateway";
  std::string namespace_;
  std::string name;
  std::string sectionName;
  std::optional<std::int64_t> port;
  bool operator==(const AncestorRef&) const = default;
};

struct AncestorStatus {
  AncestorRef ref;
  std::string controllerName;
  std::vector<graph::Condition> conditions;
};

// A status condition a policy's controller writes on one of its targets
// (`kuadrant.io/AuthPolicyAffected`).
struct TargetCondition {
  const model::Resource* target = nullptr;
  graph::Condition condition;
};

struct Policy {
  const model::Resource* resource = nullptr;
  const Profile* profile = nullptr;
  std::vector<Target> targets;
  std::vector<Block> blocks;
  std::string_view creationTimestamp;  // metadata.creationTimestamp; usually absent
  // A structural problem that makes the whole policy invalid (status Invalid).
  std::string invalidMessage;
  yaml::NodeRef invalidAt;
  // Each problem the controller reports in `invalidMessage` (Envoy Gateway joins every
  // feature's), at its field, with the object it says is missing when that is the problem;
  // empty when the policy has only `invalidMessage`.
  struct Problem {
    std::string message;
    yaml::NodeRef at;
    std::optional<model::Missing> missing = std::nullopt;
  };
  std::vector<Problem> invalidProblems;
  // A reference its controller cannot resolve, with the reason the status gives (a
  // BackendTLSPolicy's CA certificates: NoValidCACertificate). Unlike an invalid policy, it
  // still holds its targets: the controller picks it, and the backends cannot be used.
  std::string unresolvedReason;
  std::string unresolvedMessage;
  std::string unresolvedFix;  // what to do about it
  yaml::NodeRef unresolvedAt;
  std::optional<model::Missing> unresolvedMissing;  // when an object not in the input is why
  yaml::NodeRef unset;                              // Kuadrant `spec.unset` (a list of rule names)

  // Status, written by the family: GEP-713 and Envoy Gateway kinds fill `ancestors`
  // (at most 16), Kuadrant kinds `conditions`.
  std::vector<AncestorStatus> ancestors;
  std::vector<graph::Condition> conditions;

  std::string display() const { return resource->display(); }
  // `namespace/name` (`name` when cluster-scoped), as conflict messages name policies.
  std::string key() const;
  const Block* block(Role role) const;
};

// GEP-713 conflict resolution: the older creationTimestamp is established, then
// `{namespace}/{name}` alphabetically. True when `a` takes precedence over `b`.
bool established(const Policy& a, const Policy& b);
// Whether `established` decided between the two by name alone: in a cluster the winner is
// whichever was created first, which the manifests do not say.
bool decidedByName(const Policy& a, const Policy& b);

// One object (or section of one) on a hierarchy path.
struct Step {
  Level level = Level::Gateway;
  const model::Resource* object = nullptr;
  std::string_view section;  // Listener, RouteRule, BackendPort: the listener/rule/port name
  const graph::Gateway* gateway = nullptr;  // Gateway, ListenerSet, Listener
  const graph::Route* route = nullptr;      // Route, RouteRule
  // The route's parentRef this path goes through (Route steps), for status ancestors.
  const graph::RouteParent* parent = nullptr;

  std::string display() const;  // Kind/namespace/name, `#section` for sections
  bool operator==(const Step& other) const {
    return level == other.level && object == other.object && section == other.section;
  }
};

using Path = std::vector<Step>;

}  // namespace pg::policy
