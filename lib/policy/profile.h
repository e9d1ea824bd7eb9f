// What policygraph knows about a policy kind: a profile. Built in for the kinds of the
// families it simulates, read from CRDs in the input that carry the GEP-713 label
// `gateway.networking.k8s.io/policy: inherited|direct`, and declared in `.policygraph.yaml`.
// A GEP-713-style kind needs a profile, not code.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/config/config.h"
#include "lib/model/source.h"
#include "lib/model/store.h"
#include "lib/schema/schema.h"

namespace pg::policy {

inline constexpr std::string_view kPolicyLabel = "gateway.networking.k8s.io/policy";

enum class PolicyClass : std::uint8_t { Direct, Inherited };

// Whose semantics compute a kind's effective policy and status: each family lives in one
// sub-folder of lib/policy.
enum class Family : std::uint8_t { GatewayApi, Kuadrant, EnvoyGateway };

// How GEP-713 `default`/`override` blocks of different levels combine.
//  FieldMerge: maps merge key by key, scalars and lists are replaced (the seed's CDN example).
//  Atomic:     a block is taken or left whole.
//  Patch:      RFC 7386 JSON merge patch (a null removes the field).
enum class Strategy : std::uint8_t { FieldMerge, Atomic, Patch };

std::string_view policyClassName(PolicyClass c);
std::string_view familyName(Family f);
std::string_view strategyName(Strategy s);

struct Profile {
  std::string group;
  std::string kind;
  PolicyClass policyClass = PolicyClass::Inherited;
  Family family = Family::GatewayApi;
  // Kinds a targetRef may name (any group of the hierarchy); empty: every kind of it.
  std::vector<std::string> targetKinds;
  Strategy strategy = Strategy::FieldMerge;
  // Kuadrant: the map of named rules under spec (or under defaults/overrides): "rules"
  // (AuthPolicy), "limits" (RateLimitPolicy). Empty for kinds without named rules.
  std::string rulesField;
  // Where the profile comes from: "built in", "CustomResourceDefinition <name>", or
  // "config"; `where` points at the CRD label or the config entry.
  std::string origin;
  model::Location where;

  bool allowsTarget(std::string_view kind) const;
};

struct ProfileSet {
  std::vector<Profile> profiles;  // built-in first, then CRDs, then config (later wins)
  const Profile* find(std::string_view group, std::string_view kind) const;
};

// The built-in profiles: Kuadrant AuthPolicy, RateLimitPolicy, DNSPolicy, TLSPolicy; Envoy
// Gateway BackendTrafficPolicy, ClientTrafficPolicy, SecurityPolicy, EnvoyExtensionPolicy;
// Gateway API BackendTLSPolicy, BackendLBPolicy.
const std::vector<Profile>& builtinProfiles();

// Built-in profiles; then, for the kinds the input has objects of, one per built-in schema
// whose CRD carries the GEP-713 label (NGINX Gateway Fabric, kgateway, GKE...: generic
// Gateway API semantics, the target kinds their schema allows); then one per labelled CRD of
// the input; then the config's declarations.
ProfileSet collectProfiles(const model::Store& store, const config::Config& config,
                           schema::Channel channel = schema::Channel::Experimental);

// Whether a `gateway.networking.k8s.io/policy` label value makes a policy kind (Direct or
// Inherited, any case); `inherited` says which.
bool policyLabelClass(std::string_view value, bool& inherited);

// The kinds a policy's targetRef may name, as its schema says: the enum of
// spec.targetRef(s).kind, else the kinds its CEL rules there compare `kind` with. Empty when
// the schema does not restrict them.
std::vector<std::string> targetKindsOf(const schema::KindSchema& schema);

}  // namespace pg::policy
