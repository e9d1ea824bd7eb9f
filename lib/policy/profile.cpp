#include "lib/policy/profile.h"

#include <algorithm>

#include "lib/model/ascii.h"

namespace pg::policy {

namespace {

constexpr std::string_view kKuadrant = "kuadrant.io";
constexpr std::string_view kEnvoyGateway = "gateway.envoyproxy.io";
constexpr std::string_view kGatewayApi = "gateway.networking.k8s.io";
constexpr std::string_view kGatewayApiExperimental = "gateway.networking.x-k8s.io";

using model::equalsIgnoringCase;

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

bool policyLabelClass(std::string_view value, bool& inherited) {
  inherited = equalsIgnoringCase(value, "inherited");
  return inherited || equalsIgnoringCase(value, "direct");
}

namespace {

// The quoted words a CEL rule compares `kind` with: `kind == 'Gateway'`, `kind=='X'`,
// `kind in ['HTTPRoute', 'GRPCRoute']`.
void kindsCompared(std::string_view rule, std::vector<std::string>& out) {
  auto word = [&](std::size_t& i) -> std::string {
    if (i >= rule.size() || (rule[i] != '\'' && rule[i] != '"')) return {};
    const char quote = rule[i];
    std::size_t end = rule.find(quote, i + 1);
    if (end == std::string_view::npos) return {};
    std::string w(rule.substr(i + 1, end - i - 1));
    i = end + 1;
    return w;
  };
  auto skipSpaces = [&](std::size_t& i) {
    while (i < rule.size() && rule[i] == ' ') ++i;
  };
  for (std::size_t at = rule.find("kind"); at != std::string_view::npos;
       at = rule.find("kind", at + 4)) {
    if (at > 0 && (std::isalnum(static_cast<unsigned char>(rule[at - 1])) || rule[at - 1] == '_'))
      continue;
    std::size_t i = at + 4;
    skipSpaces(i);
    if (rule.compare(i, 2, "==") == 0) {
      i += 2;
      skipSpaces(i);
      if (std::string w = word(i); !w.empty()) out.push_back(std::move(w));
    } else if (rule.compare(i, 3, "in ") == 0) {
      i += 3;
      skipSpaces(i);
      if (i >= rule.size() || rule[i] != '[') continue;
      ++i;
      while (i < rule.size() && rule[i] != ']') {
        skipSpaces(i);
        if (std::string w = word(i); !w.empty())
          out.push_back(std::move(w));
        else
          break;
        skipSpaces(i);
        if (i < rule.size() && rule[i] == ',') ++i;
      }
    }
  }
}

void targetKindsAt(const schema::Node* ref, std::vector<std::string>& out) {
  if (!ref) return;
  for (const schema::CelRule& r : ref->rules) kindsCompared(r.rule, out);
  if (const schema::Node* kind = ref->property("kind"))
    for (yaml::NodeRef v : kind->enumValues) out.emplace_back(v.str());
}

}  // namespace

std::vector<std::string> targetKindsOf(const schema::KindSchema& schema) {
  std::vector<std::string> out;
  const schema::VersionSchema* version = nullptr;
  for (const schema::VersionSchema& v : schema.versions)
    if (v.served && v.root) version = &v;  // the last served one: the newest, as CRDs list them
  if (!version) return out;
  const schema::Node* spec = version->root->property("spec");
  if (!spec) return out;
  targetKindsAt(spec->property("targetRef"), out);
  if (const schema::Node* refs = spec->property("targetRefs")) {
    for (const schema::CelRule& r : refs->rules) kindsCompared(r.rule, out);
    targetKindsAt(refs->items, out);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

ProfileSet collectProfiles(const model::Store& store, const config::Config& config,
                           schema::Channel channel) {
  ProfileSet set;
  set.profiles = builtinProfiles();
  // Policy kinds the bundled CRDs label, for the kinds the input holds objects of; a kind a
  // built-in profile covers keeps it.
  for (const schema::Registry::PolicyLabel& label :
       schema::Registry::builtinPolicyLabels(channel)) {
    bool inherited = false;
    if (!policyLabelClass(label.value, inherited) || set.find(label.group, label.kind) ||
        store.ofKind(label.group, label.kind).empty())
      continue;
    Profile p;
    p.group = label.group;
    p.kind = label.kind;
    p.policyClass = inherited ? PolicyClass::Inherited : PolicyClass::Direct;
    p.family = Family::GatewayApi;
    if (const schema::KindSchema* schema =
            schema::Registry::builtin(label.group, label.kind, channel))
      p.targetKinds = targetKindsOf(*schema);
    p.origin = "the bundled " + std::string(label.kind) + " CRD";
    set.profiles.push_back(std::move(p));
  }
  for (const model::Resource* crd : store.ofKind("CustomResourceDefinition")) {
    std::string_view label = crd->label(kPolicyLabel);
    bool inherited = false;
    if (!policyLabelClass(label, inherited)) continue;
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
