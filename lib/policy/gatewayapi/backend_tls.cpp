// BackendTLSPolicy (GEP-1897) status. As Envoy Gateway writes it: a policy's ancestors are the
// EnvoyProxies whose telemetry sends to the target, then the parentRefs of the routes that
// send traffic to the targeted Service (port); its CA
// certificate references must resolve in its own namespace; two policies on the same Service
// and section conflict, and the established one keeps it. A policy on a whole Service and one
// on one of its ports do not conflict: the port's is the more specific. As Istio writes it
// (the profile's BackendPolicyAncestors::Targets): every target is an ancestor under the mesh
// controller, then every Gateway whose routes use it; only the first CA reference counts,
// which must be a ConfigMap holding a certificate; policies on one target merge, none
// conflicts.
#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>
#include <unordered_map>

#include "lib/model/ascii.h"
#include "lib/policy/envoygateway/envoygateway.h"
#include "lib/policy/gatewayapi/gatewayapi.h"

namespace pg::policy::gatewayapi {

namespace {

// Why the CA certificates of a policy cannot be used.
struct CaProblem {
  std::string reason;  // ResolvedRefs reason: InvalidCACertificateRef or InvalidKind
  std::string message;
  yaml::NodeRef at;      // the reference at fault
  std::string fix = {};  // what to do, when not the reference's object missing or of a wrong kind
  std::optional<model::Missing> missing = {};  // the object referred to, when it is not there
};

// What PA309 reports: the policy is rejected (NoValidCACertificate) for `problem`.
void recordUnresolved(Policy& policy, const CaProblem& problem) {
  policy.unresolvedReason = "NoValidCACertificate";
  policy.unresolvedMessage = problem.message;
  policy.unresolvedFix = !problem.fix.empty() ? problem.fix
                         : problem.reason == "InvalidKind"
                             ? "Name a kind the controller reads CA certificates from."
                             : "Add the object to the repository (or declare it under external: "
                               "in .policygraph.yaml when something else creates it, such as "
                               "trust-manager), or correct the reference.";
  policy.unresolvedAt = problem.at;
  policy.unresolvedMissing = problem.missing;
}

// Whether the configuration declares the object made outside the repository (`external:`).
bool declaredExternal(const config::Config& config, std::string_view kind, std::string_view ns,
                      std::string_view name) {
  return config::findExternal(config.external, "", kind, ns, name) != nullptr;
}

std::optional<CaProblem> checkCaCertificates(const Policy& policy, const model::Store& store,
                                             const config::Config& config) {
  yaml::NodeRef validation = policy.resource->spec().get("validation");
  if (validation.get("wellKnownCACertificates").str() == "System") return std::nullopt;
  std::string_view namespace_ = policy.resource->namespace_;
  for (yaml::NodeRef ref : validation.get("caCertificateRefs").items()) {
    std::string_view group = ref.get("group").str();
    std::string_view kind = ref.get("kind").str();
    std::string_view name = ref.get("name").str();
    if (group.empty() && (kind == "ConfigMap" || kind == "Secret")) {
      if (const model::Resource* object = store.find("", kind, namespace_, name)) {
        if (envoygateway::holdsCaCertificate(*object)) continue;
        return CaProblem{"InvalidCACertificateRef",
                         "No ca found in " +
                             std::string(kind == "Secret" ? "secret " : "configmap ") +
                             std::string(name) + ".",
                         ref.get("name"),
                         "Put the CA certificate under the key ca.crt (or keep it the only "
                         "entry)."};
      }
      if (declaredExternal(config, kind, namespace_, name)) continue;
      std::string word = kind == "ConfigMap" ? "Configmap" : "Secret";
      return CaProblem{
          "InvalidCACertificateRef",
          word + " " + std::string(name) + " not found in namespace " + std::string(namespace_) +
              ".",
          ref.get("name"),
          {},
          model::Missing{"", std::string(kind), std::string(namespace_), std::string(name)}};
    }
    if (kind == "ClusterTrustBundle") {
      // Envoy Gateway matches the bundle by name alone, whatever group the reference says.
      auto bundles = store.ofKind(kind);
      if (std::any_of(bundles.begin(), bundles.end(),
                      [&](const model::Resource* r) { return r->name == name; }) ||
          config::findExternal(config.external, group, kind, "", name))
        continue;
      return CaProblem{"InvalidCACertificateRef",
                       "ClusterTrustBundle " + std::string(name) + " not found.", ref.get("name")};
    }
    return CaProblem{"InvalidKind",
                     "Unsupported reference kind, supported kinds are ConfigMap, Secret, and "
                     "ClusterTrustBundle in caCertificateRefs.",
                     ref.get("kind") ? ref.get("kind") : ref};
  }
  return std::nullopt;
}

// Whether a target's sectionName names a port: a Service's, or an Istio ServiceEntry's.
bool sectionIsPort(const Target& target) {
  return !target.sectionName.empty() &&
         (target.kind == "Service" ||
          (target.kind == "ServiceEntry" && target.group == "networking.istio.io"));
}

// The number of the port of `service` (a Service or a ServiceEntry) a sectionName names,
// when it names one by name.
std::optional<std::int64_t> portNamed(const model::Resource& service, std::string_view section) {
  const std::string_view field = service.kind == "ServiceEntry" ? "number" : "port";
  for (yaml::NodeRef port : service.spec().get("ports").items())
    if (port.get("name").str() == section) return port.get(field).asInt();
  return std::nullopt;
}

// Whether a backendRef sends traffic to the target (the whole object, or its named port).
bool reaches(const graph::BackendRef& backend, const Target& target) {
  if (backend.target != target.resource) return false;
  if (!sectionIsPort(target)) return true;
  std::optional<std::int64_t> port = portNamed(*target.resource, target.sectionName);
  return port && backend.port == port;
}

bool isManagedParent(const graph::RouteParent& parent) {
  return parent.gateway && parent.gateway->managed;
}

// The policy of the kind that applies to one backendRef: the established policy on its port,
// else the established one on the whole object.
const Policy* applyingTo(const PolicyModel& model, const Profile& profile,
                         const graph::BackendRef& backend) {
  if (!backend.target) return nullptr;
  if (backend.kind == "Service" && backend.port) {
    for (yaml::NodeRef port : backend.target->spec().get("ports").items()) {
      if (port.get("port").asInt() != backend.port) continue;
      std::string_view name = port.get("name").str();
      if (name.empty()) break;
      if (const Policy* onPort = model.firstAttached(profile, *backend.target, name)) return onPort;
      break;
    }
  }
  return model.firstAttached(profile, *backend.target);
}

// Whether a backendRef written in an Envoy Gateway object (a policy's external service: ext
// auth, ext proc, JWKS, OIDC provider...; an EnvoyProxy's telemetry) sends traffic to the
// target. A reference without a namespace is to the writer's.
bool refersTo(yaml::NodeRef ref, std::string_view writerNamespace, const Target& target) {
  std::string_view kind =
      envoygateway::goField(ref, "kind") ? envoygateway::goField(ref, "kind").str() : "Service";
  std::string_view ns = envoygateway::goField(ref, "namespace")
                            ? envoygateway::goField(ref, "namespace").str()
                            : writerNamespace;
  if (kind != target.kind || ns != target.namespace_ ||
      envoygateway::goField(ref, "name").str() != target.name)
    return false;
  if (!sectionIsPort(target)) return true;
  std::optional<std::int64_t> port = portNamed(*target.resource, target.sectionName);
  return port && envoygateway::goField(ref, "port").asInt() == port;
}

std::string controllerOf(const FamilyContext& context) {
  if (!context.options.controllerName.empty()) return context.options.controllerName;
  for (const graph::Gateway& g : context.topology.gateways)
    if (g.managed && !g.controllerName.empty()) return std::string(g.controllerName);
  return std::string(kDefaultController);
}

std::string externalKey(std::string_view kind, std::string_view ns, std::string_view name) {
  std::string key(kind);
  key += '/';
  key += ns;
  key += '/';
  key += name;
  return key;
}

// Istio's conditions for a BackendTLSPolicy (backend_policies.go getBackendTLSCredentialName):
// a wellKnownCACertificates other than System is Invalid; the first caCertificateRef must be a
// ConfigMap in the policy's namespace with a PEM certificate under ca.crt.
std::vector<graph::Condition> targetProfileConditions(Policy& policy, const model::Store& store,
                                                      const config::Config& config) {
  yaml::NodeRef validation = policy.resource->spec().get("validation");
  graph::Condition accepted =
      graph::makeCondition("Accepted", true, "Accepted", "Configuration is valid");
  graph::Condition resolved =
      graph::makeCondition("ResolvedRefs", true, "ResolvedRefs", "Configuration is valid");
  if (yaml::NodeRef known = validation.get("wellKnownCACertificates")) {
    if (known.str() != "System")
      accepted =
          graph::makeCondition("Accepted", false, "Invalid",
                               "Unknown wellKnownCACertificates: " + std::string(known.str()));
    return {accepted, resolved};
  }
  yaml::NodeRef refs = validation.get("caCertificateRefs");
  if (refs.size() == 0) return {accepted, resolved};
  yaml::NodeRef ref = refs.at(0);
  std::string_view kind = ref.get("kind").str();
  std::string_view name = ref.get("name").str();
  std::string_view ns = policy.resource->namespace_;
  std::optional<CaProblem> problem;
  if (!ref.get("group").str().empty() || kind != "ConfigMap") {
    problem =
        CaProblem{"InvalidKind",
                  "only a ConfigMap is supported as caCertificateRef, not " + std::string(kind),
                  ref.get("kind") ? ref.get("kind") : ref};
  } else if (const model::Resource* map = store.find("", "ConfigMap", ns, name)) {
    std::string_view ca = map->node.get("data").get("ca.crt").str();
    if (ca.find("-----BEGIN CERTIFICATE-----") == std::string_view::npos)
      problem =
          CaProblem{"InvalidCACertificateRef",
                    "ConfigMap " + std::string(name) + " holds no PEM certificate under ca.crt",
                    ref.get("name")};
  } else if (!declaredExternal(config, "ConfigMap", ns, name)) {
    problem =
        CaProblem{"InvalidCACertificateRef",
                  "ConfigMap " + std::string(name) + " not found in namespace " + std::string(ns),
                  ref.get("name"),
                  {},
                  model::Missing{"", "ConfigMap", std::string(ns), std::string(name)}};
  }
  if (problem) {
    resolved = graph::makeCondition("ResolvedRefs", false, problem->reason, problem->message);
    accepted = graph::makeCondition("Accepted", false, "NoValidCACertificate", problem->message);
    recordUnresolved(policy, *problem);
  } else if (refs.size() > 1)
    accepted.message += "; only the first caCertificateRef is used";
  return {accepted, resolved};
}

}  // namespace

void writeTargetAncestors(Policy& policy, FamilyContext& context,
                          const graph::ControllerProfile& profile,
                          const std::vector<graph::Condition>& conditions, bool gatewayAncestors) {
  const bool ignored = !profile.ignorePolicyAnnotation.empty() &&
                       policy.resource->annotation(profile.ignorePolicyAnnotation) == "true";
  std::vector<const graph::Gateway*> gateways;
  for (const Target& t : policy.targets) {
    std::vector<graph::Condition> own = conditions;
    if (ignored) {
      own = {graph::makeCondition("Accepted", false, std::string(profile.ignoredPolicyReason),
                                  "Ignored by " + std::string(profile.name) + " (annotation " +
                                      std::string(profile.ignorePolicyAnnotation) + "=true)")};
    } else if (!t.attached()) {
      own.front() = graph::makeCondition("Accepted", false, "TargetNotFound", t.message);
    } else if (policy.profile->kind == "BackendTLSPolicy"
                   ? !profile.takesBackendTlsTarget(t.group, t.kind)
                   : t.kind != "Service" || !t.group.empty()) {
      own.front() = graph::makeCondition("Accepted", false, "TargetNotFound",
                                         "unsupported target kind " + t.kind);
    }
    AncestorRef ref = ancestorRefOf(t);
    if (std::none_of(policy.ancestors.begin(), policy.ancestors.end(),
                     [&](const AncestorStatus& a) { return a.ref == ref; }))
      policy.ancestors.push_back({std::move(ref), std::string(profile.meshControllerName), own});
    if (ignored || !t.attached() || !gatewayAncestors) continue;
    for (const BackendUse& use : context.model.usesOf(*t.resource)) {
      if (!reaches(use.rule->backends[use.backend], t)) continue;
      for (const graph::RouteParent& parent : use.route->parents)
        if (isManagedParent(parent) && !parent.gateway->isListenerSet() &&
            std::find(gateways.begin(), gateways.end(), parent.gateway) == gateways.end())
          gateways.push_back(parent.gateway);
    }
  }
  std::sort(gateways.begin(), gateways.end(), [](const graph::Gateway* a, const graph::Gateway* b) {
    return std::make_pair(a->resource->namespace_, a->resource->name) <
           std::make_pair(b->resource->namespace_, b->resource->name);
  });
  for (const graph::Gateway* g : gateways) {
    AncestorRef ref;
    ref.namespace_ = std::string(g->resource->namespace_);
    ref.name = std::string(g->resource->name);
    policy.ancestors.push_back({std::move(ref), g->controllerName, conditions});
  }
}

ExternalUses::ExternalUses(PolicyModel& model, const graph::Topology& topology,
                           const model::Store& store) {
  for (const graph::Gateway& g : topology.gateways) {
    if (!g.managed || g.isListenerSet() || !g.profile ||
        g.profile->id != graph::ControllerId::EnvoyGateway)
      continue;
    const model::Resource* proxy = envoygateway::envoyProxyOf(store, g);
    if (proxy && std::none_of(telemetry_.begin(), telemetry_.end(),
                              [&](const Telemetry& t) { return t.proxy == proxy; }))
      telemetry_.push_back({proxy, envoygateway::telemetryBackendRefs(*proxy)});
  }
  for (Policy& policy : model.policies) {
    if (policy.profile->family != Family::EnvoyGateway) continue;
    auto add = [&](yaml::NodeRef ref, std::string_view feature) {
      yaml::NodeRef kind = envoygateway::goField(ref, "kind");
      yaml::NodeRef ns = envoygateway::goField(ref, "namespace");
      uses_[externalKey(kind ? kind.str() : "Service", ns ? ns.str() : policy.resource->namespace_,
                        envoygateway::goField(ref, "name").str())]
          .push_back({&policy, feature, ref});
    };
    std::function<void(yaml::NodeRef, std::string_view)> walk = [&](yaml::NodeRef node,
                                                                    std::string_view feature) {
      if (node.isSequence()) {
        for (yaml::NodeRef item : node.items()) walk(item, feature);
        return;
      }
      for (auto [k, value] : node.entries()) {
        if (k.str() == "backendRef" && value.isMapping()) add(value, feature);
        if (k.str() == "backendRefs")
          for (yaml::NodeRef ref : value.items())
            if (ref.isMapping()) add(ref, feature);
        walk(value, feature);
      }
    };
    for (auto [k, value] : policy.resource->spec().entries())
      if (k.str() != "targetRef" && k.str() != "targetRefs") walk(value, k.str());
  }
}

std::vector<std::pair<Policy*, std::string_view>> ExternalUses::reaching(
    const Target& target) const {
  std::vector<std::pair<Policy*, std::string_view>> out;
  auto it = uses_.find(externalKey(target.kind, target.namespace_, target.name));
  if (it == uses_.end()) return out;
  for (const Use& use : it->second) {
    if (!refersTo(use.ref, use.policy->resource->namespace_, target)) continue;
    bool seen =
        std::any_of(out.begin(), out.end(), [&](const auto& u) { return u.first == use.policy; });
    if (!seen) out.emplace_back(use.policy, use.feature);
  }
  return out;
}

void writeBackendTlsStatus(Policy& policy, FamilyContext& context, const ExternalUses& external) {
  const graph::ControllerProfile& profile = context.topology.backendPolicyProfile();
  if (profile.backendPolicyAncestors == graph::BackendPolicyAncestors::Targets) {
    writeTargetAncestors(policy, context, profile,
                         targetProfileConditions(policy, context.store, context.config));
    return;
  }
  const PolicyModel& model = context.model;
  std::optional<CaProblem> ca = checkCaCertificates(policy, context.store, context.config);
  if (ca) recordUnresolved(policy, *ca);

  // A target another policy of the kind holds is Conflicted; otherwise the CA decides.
  auto conflictHolder = [&](const Target& t) -> const Policy* {
    const Policy* holder = model.firstAttached(*policy.profile, *t.resource, t.sectionName);
    return holder != &policy ? holder : nullptr;
  };
  auto conditionsFor = [&](const Policy* holder) {
    std::vector<graph::Condition> conditions;
    if (holder) {
      conditions.push_back(graph::makeCondition(
          "Accepted", false, "Conflicted",
          "Policy conflicts with " + policy.profile->kind + " " + holder->key() + "."));
    } else if (ca) {
      conditions.push_back(
          graph::makeCondition("Accepted", false, "NoValidCACertificate", ca->message));
      conditions.push_back(graph::makeCondition("ResolvedRefs", false, ca->reason, ca->message));
    } else {
      conditions.push_back(graph::makeCondition("ResolvedRefs", true, "ResolvedRefs",
                                                "Resolved all the Object references."));
      conditions.push_back(
          graph::makeCondition("Accepted", true, "Accepted", "Policy has been accepted."));
    }
    return conditions;
  };

  // The translator builds each Gateway's telemetry (listener.go processProxyObservability)
  // before its routes: an EnvoyProxy whose access log, tracing or metrics send to a target
  // through the policy comes first among the ancestors, as the EnvoyProxy itself.
  for (const auto& telemetry : external.telemetry()) {
    const auto& [proxy, refs] = telemetry;
    const std::string_view proxyNamespace = proxy->namespace_;
    for (const Target& t : policy.targets) {
      if (!t.attached()) continue;
      if (std::none_of(refs.begin(), refs.end(),
                       [&](yaml::NodeRef ref) { return refersTo(ref, proxyNamespace, t); }))
        continue;
      AncestorRef ref;
      ref.group = std::string(envoygateway::kGroup);
      ref.kind = "EnvoyProxy";
      ref.namespace_ = std::string(proxy->namespace_);
      ref.name = std::string(proxy->name);
      if (std::none_of(policy.ancestors.begin(), policy.ancestors.end(),
                       [&](const AncestorStatus& a) { return a.ref == ref; }))
        policy.ancestors.push_back(
            {std::move(ref), controllerOf(context), conditionsFor(conflictHolder(t))});
    }
  }

  for (const Target& t : policy.targets) {
    if (!t.attached()) continue;
    const Policy* holder = conflictHolder(t);
    const bool conflicted = holder != nullptr;
    const std::vector<graph::Condition> conditions = conditionsFor(holder);

    for (const BackendUse& use : model.usesOf(*t.resource)) {
      const graph::Route& route = *use.route;
      const graph::RouteRule& rule = *use.rule;
      const std::size_t b = use.backend;
      const graph::BackendRef& backend = rule.backends[b];
      if (!reaches(backend, t)) continue;
      for (std::size_t i = 0; i < route.parents.size(); ++i) {
        const graph::RouteParent& parent = route.parents[i];
        if (!isManagedParent(parent)) continue;
        AncestorRef ref = ancestorRefOf(parent);
        auto existing = std::find_if(policy.ancestors.begin(), policy.ancestors.end(),
                                     [&](const AncestorStatus& a) { return a.ref == ref; });
        if (existing == policy.ancestors.end()) {
          std::string controller = context.options.controllerName;
          if (controller.empty()) controller = std::string(parent.gateway->controllerName);
          if (controller.empty()) controller = std::string(kDefaultController);
          policy.ancestors.push_back({std::move(ref), std::move(controller), conditions});
        }
        // The routes that send traffic through the policy cannot use the backend.
        if (ca && !conflicted && !parent.conditions.empty() &&
            applyingTo(model, *policy.profile, backend) == &policy) {
          graph::Condition resolved =
              graph::makeCondition("ResolvedRefs", false, "InvalidBackendTLS",
                                   "Failed to process route rule " + std::to_string(rule.index) +
                                       " backendRef " + std::to_string(b) + ": " + ca->message);
          context.model.routeConditions.push_back({&route, i, std::move(resolved)});
        }
      }
    }

    // Envoy Gateway policies whose external services (ext auth, ext proc, JWKS...) connect
    // to the target through the policy are ancestors too; a CA that does not resolve makes
    // them Invalid, as it makes routes' backends unusable.
    for (const auto& [userPolicy, feature] : external.reaching(t)) {
      Policy& user = *userPolicy;
      AncestorRef ref;
      ref.group = user.profile->group;
      ref.kind = user.profile->kind;
      ref.namespace_ = std::string(user.resource->namespace_);
      ref.name = std::string(user.resource->name);
      if (std::none_of(policy.ancestors.begin(), policy.ancestors.end(),
                       [&](const AncestorStatus& a) { return a.ref == ref; }))
        policy.ancestors.push_back({std::move(ref), controllerOf(context), conditions});
      if (ca && !conflicted && user.invalidMessage.empty()) {
        std::string message = ca->message;
        if (!message.empty()) message[0] = model::lowerAscii(message[0]);
        std::string name(feature);
        name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
        user.invalidMessage = name + ": " + message;
      }
    }
  }
  envoygateway::truncateAncestors(policy);
}

}  // namespace pg::policy::gatewayapi
