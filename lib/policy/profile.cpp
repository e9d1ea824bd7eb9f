#include "lib/policy/profile.h"

#include <algorithm>

namespace pg::policy {

namespace {

constexpr std::string_view kKuadrant = "kuadrant.io";
constexpr std::string_view kEnvoyGateway = "gateway.envoyproxy.io";
constexpr std::string_view kGatewayApi = "gateway.networking.k8s.io";
constexpr std::string_view kGatewayApiExperimental = "gateway.networking.x-k8s.io";

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

Profile make(std::string_view group, std::string_view kind, PolicyClass c, Family f,
             std::vector<std::string> targets, std::string rulesField = {},
             Strategy strategy = Strategy::FieldMerge) {
  Profile p;
  p.group = group;
  p.kind = kind;
  p.policyClass = c;
  p.family = f;
  p.targetKinds = std::move(targets);
  p.rulesField = std::move(rulesField);
  p.strategy = strategy;
  p.origin = "built in";
  return p;
}

Strategy strategyFromConfig(std::string_view text) {
  if (text == "atomic") return Strategy::Atomic;
  if (text == "patch") return Strategy::Patch;
  return Strategy::FieldMerge;
}

// A kind a profile already covers keeps its family: a CRD or the config may change its class
// or targets, never whose semantics compute it.
void upsert(std::vector<Profile>& profiles, Profile p) {
  for (Profile& existing : profiles) {
    if (existing.group == p.group && existing.kind == p.kind) {
      p.family = existing.family;
      if (p.rulesField.empty()) p.rulesField = existing.rulesField;
      if (p.targetKinds.empty()) p.targetKinds = existing.targetKinds;
      existing = std::move(p);
      return;
    }
  }
  profiles.push_back(std::move(p));
}

}  // namespace

std::string_view policyClassName(PolicyClass c) {
  return c == PolicyClass::Direct ? "direct" : "inherited";
}

std::string_view familyName(Family f) {
  switch (f) {
    case Family::GatewayApi:
      return "Gateway API";
    case Family::Kuadrant:
      return "Kuadrant";
    case Family::EnvoyGateway:
      return "Envoy Gateway";
  }
  return "";
}

std::string_view strategyName(Strategy s) {
  switch (s) {
    case Strategy::FieldMerge:
      return "merge";
    case Strategy::Atomic:
      return "atomic";
    case Strategy::Patch:
      return "patch";
  }
  return "";
}

bool Profile::allowsTarget(std::string_view targetKind) const {
  return targetKinds.empty() ||
         std::find(targetKinds.begin(), targetKinds.end(), targetKind) != targetKinds.end();
}

const Profile* ProfileSet::find(std::string_view group, std::string_view kind) const {
  for (const Profile& p : profiles)
    if (p.group == group && p.kind == kind) return &p;
  return nullptr;
}

const std::vector<Profile>& builtinProfiles() {
  static const std::vector<Profile> profiles = [] {
    using C = PolicyClass;
    using F = Family;
    const std::vector<std::string> egAll = {"Gateway",   "ListenerSet", "XListenerSet", "HTTPRoute",
                                            "GRPCRoute", "TLSRoute",    "TCPRoute",     "UDPRoute"};
    return std::vector<Profile>{
        // Kuadrant v1 attaches to Gateways (or a listener) and HTTPRoutes (or a rule); GRPCRoutes
        // (or a rule) too since Kuadrant v1.5.
        make(kKuadrant, "AuthPolicy", C::Inherited, F::Kuadrant,
             {"Gateway", "HTTPRoute", "GRPCRoute"}, "rules"),
        make(kKuadrant, "RateLimitPolicy", C::Inherited, F::Kuadrant,
             {"Gateway", "HTTPRoute", "GRPCRoute"}, "limits"),
        make(kKuadrant, "DNSPolicy", C::Direct, F::Kuadrant, {"Gateway"}),
        make(kKuadrant, "TLSPolicy", C::Direct, F::Kuadrant, {"Gateway"}),
        make(kEnvoyGateway, "BackendTrafficPolicy", C::Inherited, F::EnvoyGateway, egAll),
        make(kEnvoyGateway, "ClientTrafficPolicy", C::Inherited, F::EnvoyGateway,
             {"Gateway", "ListenerSet", "XListenerSet"}),
        make(kEnvoyGateway, "SecurityPolicy", C::Inherited, F::EnvoyGateway, egAll),
        make(kEnvoyGateway, "EnvoyExtensionPolicy", C::Inherited, F::EnvoyGateway, egAll),
        make(kGatewayApi, "BackendTLSPolicy", C::Direct, F::GatewayApi,
             {"Service", "ServiceImport", "Backend"}),
        make(kGatewayApi, "BackendLBPolicy", C::Direct, F::GatewayApi,
             {"Service", "ServiceImport"}),
        // BackendLBPolicy's successor in the experimental channel (Gateway API v1.3).
        make(kGatewayApiExperimental, "XBackendTrafficPolicy", C::Direct, F::GatewayApi,
             {"Service", "ServiceImport"}),
    };
  }();
  return profiles;
}

ProfileSet collectProfiles(const model::Store& store, const config::Config& config) {
  ProfileSet set;
  set.profiles = builtinProfiles();
  for (const model::Resource* crd : store.ofKind("CustomResourceDefinition")) {
    std::string_view label = crd->label(kPolicyLabel);
    bool inherited = equalsIgnoreCase(label, "inherited");
    if (!inherited && !equalsIgnoreCase(label, "direct")) continue;
    yaml::NodeRef spec = crd->spec();
    std::string_view group = spec.get("group").str();
    std::string_view kind = spec.get("names").get("kind").str();
    if (group.empty() || kind.empty()) continue;
    Profile p;
    p.group = group;
    p.kind = kind;
    p.policyClass = inherited ? PolicyClass::Inherited : PolicyClass::Direct;
    p.family = Family::GatewayApi;
    p.origin = "CustomResourceDefinition " + std::string(crd->name);
    p.where = crd->locate(crd->labels().get(kPolicyLabel));
    upsert(set.profiles, std::move(p));
  }
  for (const config::PolicyKind& k : config.policies) {
    Profile p;
    p.group = k.group;
    p.kind = k.kind;
    p.policyClass = k.policyClass == "direct" ? PolicyClass::Direct : PolicyClass::Inherited;
    p.family = Family::GatewayApi;
    p.targetKinds = k.targetKinds;
    p.strategy = strategyFromConfig(k.strategy);
    p.origin = "config";
    p.where = k.where;
    upsert(set.profiles, std::move(p));
  }
  return set;
}

}  // namespace pg::policy
