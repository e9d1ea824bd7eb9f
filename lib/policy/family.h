// Internal to lib/policy: what the generic engine asks of each family. Each family's
// semantics live in its own folder (gatewayapi/, kuadrant/, envoygateway/) behind these
// three functions.
#pragma once

#include <vector>

#include "lib/policy/engine.h"

namespace pg::policy {

// Below this many items (routes, objects) the policy stage works on one thread: threads cost
// more than they save.
inline constexpr std::size_t kParallelMinItems = 64;

// A policy attached at one step of a path.
struct Contribution {
  const Policy* policy = nullptr;
  std::size_t step = 0;  // index into the path
};

struct FamilyContext {
  const model::Store& store;
  graph::Topology& topology;
  PolicyModel& model;
  const PolicyOptions& options;
  const config::Config& config;
};

// The contributions of one kind along a path, least specific step first and, within a step,
// the most established policy first.
std::vector<Contribution> contributionsAlong(const PolicyModel& model, const Profile& profile,
                                             const Path& path);

// Ancestors for status: the Gateway-level objects a target hangs under, as their routes'
// parentRefs name them (Gateways themselves for Gateway targets).
std::vector<AncestorRef> ancestorsOf(const Target& target, const PolicyModel& model);
// One ancestorRef: a route's parentRef as written, or a target itself.
AncestorRef ancestorRefOf(const graph::RouteParent& parent);
AncestorRef ancestorRefOf(const Target& target);

// Caps ancestors[] at the 16 entries the Gateway API allows.
inline constexpr std::size_t kMaxAncestors = 16;

// Each family's `effective` fills the value, `overridden` and `ineffective` of the effective
// policy of `profile` along `path`; the paths are the caller's to set (effectiveOn keeps the
// full and visible ones), as Kuadrant's enforcement tally needs neither.

namespace gatewayapi {
void readBlocks(Policy& policy);
void writeStatus(FamilyContext& context);
Effective effective(const Profile& profile, const Path& path,
                    const std::vector<Contribution>& contributions);
}  // namespace gatewayapi

namespace kuadrant {
void readBlocks(Policy& policy);
void writeStatus(FamilyContext& context);
Effective effective(const Profile& profile, const Path& path,
                    const std::vector<Contribution>& contributions);
}  // namespace kuadrant

namespace envoygateway {
void readBlocks(Policy& policy);
void writeStatus(FamilyContext& context);
Effective effective(const Profile& profile, const Path& path,
                    const std::vector<Contribution>& contributions);
}  // namespace envoygateway

}  // namespace pg::policy
