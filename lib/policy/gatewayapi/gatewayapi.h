// Internal to lib/policy/gatewayapi: the parts of the family with kind-specific rules.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lib/policy/family.h"

namespace pg::policy::gatewayapi {

// The controller written in ancestors[] when neither --controller-name nor a Gateway's class
// names one.
inline constexpr std::string_view kDefaultController = "policygraph.dev/policy-controller";

// BackendTLSPolicy (GEP-1897): ancestors are the Gateways whose routes use the targeted
// Service; a CA certificate reference that does not resolve rejects the policy
// (NoValidCACertificate) and makes those routes' backends unusable (ResolvedRefs False on
// the route, as Envoy Gateway writes it).
class ExternalUses;
void writeBackendTlsStatus(Policy& policy, FamilyContext& context, const ExternalUses& external);

// A backend policy as a controller that reports it on its targets writes it
// (BackendPolicyAncestors::Targets, Istio): one ancestor per target, under the profile's mesh
// controller, with `conditions` (Accepted False with the target's reason when it does not
// resolve; only the ignore annotation's condition when the policy carries it), then, with
// `gatewayAncestors`, one per simulated Gateway whose routes send traffic to a target, in
// namespace and name order.
void writeTargetAncestors(Policy& policy, FamilyContext& context,
                          const graph::ControllerProfile& profile,
                          const std::vector<graph::Condition>& conditions,
                          bool gatewayAncestors = true);

// What Envoy Gateway sends to outside of routes, collected once a run: every backendRef
// written in an Envoy Gateway policy's spec (ext auth, ext proc, JWKS, OIDC provider...), with
// the top-level field it is under (the feature Envoy Gateway reports problems under), keyed by
// the object it names, so that each BackendTLSPolicy target is one lookup; and the telemetry
// backendRefs of the EnvoyProxy of each managed Envoy Gateway Gateway.
class ExternalUses {
 public:
  ExternalUses(PolicyModel& model, const graph::Topology& topology, const model::Store& store);
  // The policies whose external services reach the target (its port, for a sectioned one),
  // each once, in policy order, with the first feature in spec order that does.
  std::vector<std::pair<Policy*, std::string_view>> reaching(const Target& target) const;

  // An EnvoyProxy Envoy Gateway builds a Gateway's data plane with, and where its access log,
  // tracing and metrics send to.
  struct Telemetry {
    const model::Resource* proxy;
    std::vector<yaml::NodeRef> backendRefs;
  };
  // Each EnvoyProxy once, in Gateway order.
  const std::vector<Telemetry>& telemetry() const { return telemetry_; }

 private:
  struct Use {
    Policy* policy;
    std::string_view feature;
    yaml::NodeRef ref;
  };
  std::unordered_map<std::string, std::vector<Use>> uses_;
  std::vector<Telemetry> telemetry_;
};

}  // namespace pg::policy::gatewayapi
