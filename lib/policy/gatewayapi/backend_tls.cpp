// BackendTLSPolicy (GEP-1897) status, as Envoy Gateway writes it: a policy's ancestors are the
// parentRefs of the routes that send traffic to the targeted Service (port); its CA
// certificate references must resolve in its own namespace; two policies on the same Service
// and section conflict, and the established one keeps it. A policy on a whole Service and one
// on one of its ports do not conflict: the port's is the more specific.
#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>
#include <unordered_map>

#include "lib/policy/envoygateway/envoygateway.h"
#include "lib/policy/gatewayapi/gatewayapi.h"

namespace pg::policy::gatewayapi {

namespace {

// Why the CA certificates of a policy cannot be used.
struct CaProblem {
  std::string reason;  // ResolvedRefs reason: InvalidCACertificateRef or InvalidKind
  std::string message;
};

std::optional<CaProblem> checkCaCertificates(const Policy& policy, const model::Store& store) {
  yaml::NodeRef validation = policy.resource->spec().get("validation");
  if (validation.get("wellKnownCACertificates").str() == "System") return std::nullopt;
  std::string_view namespace_ = policy.resource->namespace_;
  for (yaml::NodeRef ref : validation.get("caCertificateRefs").items()) {
    std::string_view group = ref.get("group").str();
    std::string_view kind = ref.get("kind").str();
    std::string_view name = ref.get("name").str();
    if (group.empty() && (kind == "ConfigMap" || kind == "Secret")) {
      if (store.find("", kind, namespace_, name)) continue;
      std::string word = kind == "ConfigMap" ? "Configmap" : "Secret";
      return CaProblem{"InvalidCACertificateRef", word + " " + std::string(name) +
                                                      " not found in namespace " +
                                                      std::string(namespace_) + "."};
    }
    if (kind == "ClusterTrustBundle") {
      // Envoy Gateway matches the bundle by name alone, whatever group the reference says.
      auto bundles = store.ofKind(kind);
      if (std::any_of(bundles.begin(), bundles.end(),
                      [&](const model::Resource* r) { return r->name == name; }))
        continue;
      return CaProblem{"InvalidCACertificateRef",
                       "ClusterTrustBundle " + std::string(name) + " not found."};
    }
    return CaProblem{"InvalidKind",
                     "Unsupported reference kind, supported kinds are ConfigMap, Secret, and "
                     "ClusterTrustBundle in caCertificateRefs."};
  }
  return std::nullopt;
}

// The port of `service` a sectionName names, when it names one by name.
std::optional<std::int64_t> portNamed(const model::Resource& service, std::string_view section) {
  for (yaml::NodeRef port : service.spec().get("ports").items())
    if (port.get("name").str() == section) return port.get("port").asInt();
  return std::nullopt;
}

// Whether a backendRef sends traffic to the target (the whole object, or its named port).
bool reaches(const graph::BackendRef& backend, const Target& target) {
  if (backend.target != target.resource) return false;
  if (target.sectionName.empty() || target.kind != "Service") return true;
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
      std::vector<const Policy*> onPort = model.attachedTo(profile, *backend.target, name);
      if (!onPort.empty()) return onPort.front();
      break;
    }
  }
  std::vector<const Policy*> whole = model.attachedTo(profile, *backend.target);
  return whole.empty() ? nullptr : whole.front();
}

// Whether a backendRef written in `policy` (an Envoy Gateway policy's external service: ext
// auth, ext proc, JWKS, OIDC provider...) sends traffic to the target.
bool refersTo(yaml::NodeRef ref, const Policy& policy, const Target& target) {
  std::string_view kind =
      envoygateway::goField(ref, "kind") ? envoygateway::goField(ref, "kind").str() : "Service";
  std::string_view ns = envoygateway::goField(ref, "namespace")
                            ? envoygateway::goField(ref, "namespace").str()
                            : policy.resource->namespace_;
  if (kind != target.kind || ns != target.namespace_ ||
      envoygateway::goField(ref, "name").str() != target.name)
    return false;
  if (target.sectionName.empty() || target.kind != "Service") return true;
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

}  // namespace

ExternalUses::ExternalUses(PolicyModel& model) {
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
    if (!refersTo(use.ref, *use.policy, target)) continue;
    bool seen =
        std::any_of(out.begin(), out.end(), [&](const auto& u) { return u.first == use.policy; });
    if (!seen) out.emplace_back(use.policy, use.feature);
  }
  return out;
}

void writeBackendTlsStatus(Policy& policy, FamilyContext& context, const ExternalUses& external) {
  const PolicyModel& model = context.model;
  std::optional<CaProblem> ca = checkCaCertificates(policy, context.store);

  for (const Target& t : policy.targets) {
    if (!t.attached()) continue;
    std::vector<const Policy*> holders =
        model.attachedTo(*policy.profile, *t.resource, t.sectionName);
    bool conflicted = !holders.empty() && holders.front() != &policy;
    std::vector<graph::Condition> conditions;
    if (conflicted) {
      conditions.push_back(graph::makeCondition(
          "Accepted", false, "Conflicted",
          "Policy conflicts with " + policy.profile->kind + " " + holders.front()->key() + "."));
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

    for (const BackendUse& use : model.usesOf(*t.resource)) {
      const graph::Route& route = *use.route;
      const graph::RouteRule& rule = *use.rule;
      {
        {
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
              graph::Condition resolved = graph::makeCondition(
                  "ResolvedRefs", false, "InvalidBackendTLS",
                  "Failed to process route rule " + std::to_string(rule.index) + " backendRef " +
                      std::to_string(b) + ": " + ca->message);
              context.model.routeConditions.push_back({&route, i, std::move(resolved)});
            }
          }
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
        if (!message.empty()) message[0] = static_cast<char>(std::tolower(message[0]));
        std::string name(feature);
        name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
        user.invalidMessage = name + ": " + message;
      }
    }
  }
  envoygateway::truncateAncestors(policy);
}

}  // namespace pg::policy::gatewayapi
