// Gateways and their listeners: class lookup, protocols, allowed routes, certificate
// references, and conflicts between listeners sharing a port.
#include "lib/graph/gateways.h"

#include <algorithm>
#include <cstdint>
#include <map>

#include "lib/graph/certificates.h"
#include "lib/graph/namespace_labels.h"
#include "lib/model/secret.h"

namespace pg::graph {

namespace {

// How the listener's controller takes its protocol (controller_profile.h), or null when it
// does not.
const ListenerProtocolSupport* protocolSupport(const Listener& l) {
  const Gateway& g = *l.gateway;
  return g.profile->protocol(l.protocol, l.node.get("tls").get("mode").str(), g.controllerName);
}

bool supportedProtocol(const Listener& l) {
  return protocolSupport(l) != nullptr;
}

// The route kinds the listener's protocol admits when allowedRoutes.kinds is empty.
std::vector<GroupKind> defaultKinds(const Listener& l) {
  std::vector<GroupKind> out;
  if (const ListenerProtocolSupport* support = protocolSupport(l))
    for (std::string_view kind : support->routeKinds)
      out.push_back({std::string(kGatewayGroup), std::string(kind)});
  return out;
}

// Listeners on one port must agree on how connections are told apart: HTTP by Host header,
// HTTPS and TLS by SNI, TCP and UDP not at all.
std::string_view protocolFamily(std::string_view protocol) {
  if (protocol == "HTTPS" || protocol == "TLS") return "tls";
  return protocol;
}

bool transportIsUdp(std::string_view protocol) {
  return protocol == "UDP";
}

void readAllowedRoutes(Listener& l) {
  yaml::NodeRef allowed = l.node.get("allowedRoutes");
  yaml::NodeRef namespaces = allowed.get("namespaces");
  std::string_view from = namespaces.get("from").str();
  if (from == "All")
    l.from = Listener::From::All;
  else if (from == "Selector")
    l.from = Listener::From::Selector;
  else if (from == "None")
    l.from = Listener::From::None;
  else
    l.from = Listener::From::Same;
  if (l.from == Listener::From::Selector) {
    model::LabelSelector::Error error;
    auto selector = model::LabelSelector::parse(namespaces.get("selector"), &error);
    // An unreadable selector admits no namespace rather than every one.
    if (selector)
      l.selector = std::move(*selector);
    else
      l.from = Listener::From::None;
  }
  std::vector<GroupKind> supported = defaultKinds(l);
  yaml::NodeRef kinds = allowed.get("kinds");
  if (!kinds.isSequence() || kinds.size() == 0) {
    l.kinds = supported;
    return;
  }
  for (yaml::NodeRef k : kinds.items()) {
    yaml::NodeRef group = k.get("group");
    GroupKind gk{group ? std::string(group.str()) : std::string(kGatewayGroup),
                 std::string(k.get("kind").str())};
    if (std::find(supported.begin(), supported.end(), gk) != supported.end()) {
      if (std::find(l.kinds.begin(), l.kinds.end(), gk) == l.kinds.end()) l.kinds.push_back(gk);
    } else {
      l.invalidKinds.push_back(gk);
    }
  }
}

bool namesTarget(yaml::NodeRef ref, const model::Resource& target, std::string_view section) {
  std::string_view group = ref.get("group").str();
  return (group.empty() || group == target.group) && ref.get("kind").str() == target.kind &&
         ref.get("name").str() == target.name &&
         (!ref.get("sectionName") || ref.get("sectionName").str() == section);
}

// What, in the input or the config, produces the certificate Secret `namespace_/name` of
// listener `l` when the Secret itself is not there; empty when nothing does. `considered`
// then lists what was looked for. cert-manager issues a Certificate's `spec.secretName`;
// its gateway-shim issues one for every listener with a hostname and a certificateRef in the
// Gateway's namespace when the Gateway carries an issuer annotation; a Kuadrant TLSPolicy
// does the same for the listeners of the Gateway (or the one section) it targets.
std::string certificateProducer(const Listener& l, const model::Store& store,
                                const TopologyOptions& options, std::string_view namespace_,
                                std::string_view name, std::string& considered) {
  for (const model::Resource* c : store.ofKind("cert-manager.io", "Certificate"))
    if (c->namespace_ == namespace_ && c->spec().get("secretName").str() == name)
      return "cert-manager " + c->display();
  const model::Resource& gw = *l.gateway->resource;
  const bool sameNamespace = namespace_ == gw.namespace_;
  std::string_view issuerAnnotation;
  for (std::string_view key : {"cert-manager.io/issuer", "cert-manager.io/cluster-issuer"})
    if (issuerAnnotation.empty() && !gw.annotation(key).empty()) issuerAnnotation = key;
  if (!issuerAnnotation.empty() && sameNamespace && !l.hostname.empty())
    return "cert-manager (annotation " + std::string(issuerAnnotation) + " on " + gw.display() +
           ")";
  for (const model::Resource* p : store.ofKind("kuadrant.io", "TLSPolicy")) {
    if (p->namespace_ != gw.namespace_ || !sameNamespace || l.hostname.empty()) continue;
    yaml::NodeRef single = p->spec().get("targetRef");
    bool targets = single && namesTarget(single, gw, l.name);
    for (yaml::NodeRef ref : p->spec().get("targetRefs").items())
      targets = targets || namesTarget(ref, gw, l.name);
    if (targets) return "Kuadrant " + p->display();
  }
  if (const config::ExternalObject* e =
          config::findExternal(options.external, "", "Secret", namespace_, name))
    return "external: entry at " + e->where.path + ":" + std::to_string(e->where.start.line);
  considered = "looked for a cert-manager Certificate with secretName " + std::string(name) +
               " in namespace " + std::string(namespace_) +
               ", a cert-manager.io/issuer or "
               "cluster-issuer annotation on " +
               gw.display();
  if (!issuerAnnotation.empty())
    considered +=
        " (present, but cert-manager issues only for listeners with a hostname and "
        "a certificateRef in the Gateway's namespace)";
  considered += ", a Kuadrant TLSPolicy targeting it, and external: in .policygraph.yaml";
  return {};
}

// HTTPS listeners, and TLS listeners that terminate, need certificates they can read.
std::string checkCertificates(Listener& l, const model::Store& store,
                              const ReferenceGrantIndex& grants, const TopologyOptions& options,
                              std::string& message, bool& partial) {
  if (!terminatesTls(l)) return {};
  const ControllerProfile& profile = *l.gateway->profile;
  yaml::NodeRef tls = l.node.get("tls");
  if (!profile.builtinCertificateOption.empty()) {
    std::string_view option = tls.get("options").get(profile.builtinCertificateOption).str();
    for (std::string_view value : profile.builtinCertificateValues)
      if (option == value) return {};  // the controller serves a certificate of its own
  }
  yaml::NodeRef refs = tls.get("certificateRefs");
  if (profile.maxCertificateRefs != 0 && refs.size() > profile.maxCertificateRefs) {
    message = std::string(profile.name) + " takes at most " +
              std::to_string(profile.maxCertificateRefs) + " certificateRefs on a listener";
    return "InvalidCertificateRef";
  }
  if (refs.size() == 0) {
    if (!profile.certificateRefsRequired) return {};  // served without a certificate of its own
    message = "Listener must have at least 1 TLS certificate ref";
    return "InvalidCertificateRef";
  }
  const model::Resource& gw = *l.gateway->resource;
  // Why one certificateRef cannot be used (its reason, and `refMessage`), or empty.
  auto checkRef = [&](yaml::NodeRef ref, std::string& refMessage) -> std::string {
    std::string_view group = ref.get("group").str();
    yaml::NodeRef kindNode = ref.get("kind");
    std::string_view kind = kindNode ? kindNode.str() : std::string_view("Secret");
    std::string_view name = ref.get("name").str();
    yaml::NodeRef nsNode = ref.get("namespace");
    std::string_view ns = nsNode ? nsNode.str() : gw.namespace_;
    if (!group.empty() || kind != "Secret") {
      refMessage = "Unsupported reference kind " + std::string(kind) + "; only core Secrets are";
      return "InvalidCertificateRef";
    }
    // The grant names the kind that holds the listener: a Gateway or a ListenerSet.
    if (ns != gw.namespace_ &&
        !grants.permits(gw.group, gw.kind, gw.namespace_, "", "Secret", ns, name)) {
      refMessage = "Certificate ref to secret " + std::string(ns) + "/" + std::string(name) +
                   " not permitted by any ReferenceGrant";
      return "RefNotPermitted";
    }
    const model::Resource* secret = store.find("", "Secret", ns, name);
    if (!secret) {
      std::string considered;
      std::string producer = certificateProducer(l, store, options, ns, name, considered);
      if (!producer.empty()) {
        l.certificateProducer += (l.certificateProducer.empty() ? "" : "; ") + producer;
        return {};
      }
      l.certificateProducersConsidered = std::move(considered);
      refMessage = "Secret " + std::string(ns) + "/" + std::string(name) + " does not exist";
      return "InvalidCertificateRef";
    }
    if (profile.takesSdsSecrets && secret->node.get("type").str() == "gateway.envoyproxy.io/sds") {
      // The certificate is fetched at run time: only the two keys that say where from.
      if (model::secretValue(*secret, "url").empty() ||
          model::secretValue(*secret, "secretName").empty()) {
        refMessage = "Secret " + std::string(ns) + "/" + std::string(name) +
                     " of type gateway.envoyproxy.io/sds must contain url and secretName";
        return "InvalidCertificateRef";
      }
      return {};
    }
    std::string certificate = model::secretValue(*secret, "tls.crt");
    std::string key = model::secretValue(*secret, "tls.key");
    if (certificate.empty() || key.empty()) {
      refMessage = "Secret " + std::string(ns) + "/" + std::string(name) +
                   " must contain tls.crt and tls.key";
      return "InvalidCertificateRef";
    }
    // The chain and key as the controller's TLS library reads them: a certificate that
    // parses (and, for some controllers, is within its validity period) and a key of a
    // supported format that matches it.
    CertificateCheck check =
        checkServingCertificate(certificate, key, profile.refusesExpiredCertificates, options.now);
    if (!check.problem.empty()) {
      refMessage = "Secret " + std::string(ns) + "/" + std::string(name) +
                   " must contain a valid and matching tls.crt and tls.key: " + check.problem;
      return "InvalidCertificateRef";
    }
    return {};
  };
  // Every reference must resolve, the first refusal is reported; or (a controller that leaves
  // unusable ones out) one usable reference is enough, and with none the first refusal's
  // reason is reported with every refusal's message.
  // Or (partialCertificateRefsReason) some usable references serve, and ResolvedRefs names
  // the others with that reason.
  std::string firstReason;
  std::string firstMessage;
  bool anyUsable = false;
  std::size_t index = 0;
  for (yaml::NodeRef ref : refs.items()) {
    std::string refMessage;
    std::string reason = checkRef(ref, refMessage);
    const std::size_t at = index++;
    if (reason.empty()) {
      anyUsable = true;
      continue;
    }
    if (!profile.partialCertificateRefsReason.empty()) {
      message += (message.empty() ? "" : "; ") +
                 ("certificate refs " + std::to_string(at) + ": " + refMessage);
      if (firstReason.empty()) {
        firstReason = std::move(reason);
        firstMessage = std::move(refMessage);
      }
      continue;
    }
    if (!profile.anyValidCertificateRefResolves) {
      message = std::move(refMessage);
      return reason;
    }
    message += (message.empty() ? "" : "; ") + refMessage;
    if (firstReason.empty()) firstReason = std::move(reason);
  }
  if (!profile.partialCertificateRefsReason.empty() && !firstReason.empty()) {
    if (anyUsable) {
      partial = true;
      message = "Some secrets are invalid: " + message;
      return std::string(profile.partialCertificateRefsReason);
    }
    // None usable: the first refusal, as for a single reference.
    message = refs.size() == 1 ? std::move(firstMessage) : "No valid secrets exist: " + message;
    return firstReason;
  }
  if (anyUsable) {
    message.clear();
    return {};
  }
  return firstReason;
}

// Why a listener's client certificate validation (GEP-91: the Gateway's
// spec.tls.frontend, the entry for the listener's port, else the default) cannot be used.
struct CaProblem {
  // ResolvedRefs: InvalidCACertificateKind, RefNotPermitted or InvalidCACertificateRef
  std::string reason;
  std::string message;
  bool noneValid = false;  // no caCertificateRef is usable: the listener is not Accepted
};

CaProblem checkFrontendValidation(const Listener& l, const model::Store& store,
                                  const ReferenceGrantIndex& grants) {
  CaProblem out;
  if (!terminatesTls(l)) return out;
  const Gateway& g = *l.gateway;
  // A ListenerSet's listeners are validated as its Gateway says.
  const model::Resource& owner = g.parent ? *g.parent->resource : *g.resource;
  yaml::NodeRef frontend = owner.spec().get("tls").get("frontend");
  yaml::NodeRef validation = frontend.get("default").get("validation");
  for (yaml::NodeRef perPort : frontend.get("perPort").items())
    if (perPort.get("port").asInt() == l.port) {
      validation = perPort.get("tls").get("validation");  // replaces the default, even absent
      break;
    }
  yaml::NodeRef refs = validation.get("caCertificateRefs");
  if (refs.size() == 0) return out;
  const ControllerProfile& profile = *g.profile;
  if (profile.maxFrontendCaCertificateRefs != 0 &&
      refs.size() > profile.maxFrontendCaCertificateRefs) {
    out.reason = "InvalidCACertificateRef";
    out.message = std::string(profile.name) + " takes at most " +
                  std::to_string(profile.maxFrontendCaCertificateRefs) +
                  " caCertificateRefs in a frontend validation";
    out.noneValid = true;
    return out;
  }
  std::size_t valid = 0;
  for (yaml::NodeRef ref : refs.items()) {
    std::string_view group = ref.get("group").str();
    std::string_view kind = ref.get("kind").str();
    std::string_view name = ref.get("name").str();
    yaml::NodeRef nsNode = ref.get("namespace");
    std::string_view ns = nsNode ? nsNode.str() : owner.namespace_;
    std::string reason;
    std::string message;
    if (!group.empty() || (kind != "ConfigMap" && kind != "Secret")) {
      reason = "InvalidCACertificateKind";
      message = "caCertificateRef kind " + std::string(kind) +
                " is not supported; use a core ConfigMap or Secret";
    } else if (ns != owner.namespace_ &&
               !grants.permits(owner.group, owner.kind, owner.namespace_, "", kind, ns, name)) {
      reason = "RefNotPermitted";
      message = "caCertificateRef to " + std::string(kind) + " " + std::string(ns) + "/" +
                std::string(name) + " not permitted by any ReferenceGrant";
    } else if (!store.find("", kind, ns, name)) {
      reason = "InvalidCACertificateRef";
      message = std::string(kind) + " " + std::string(ns) + "/" + std::string(name) +
                " of caCertificateRef does not exist";
    } else {
      ++valid;
      continue;
    }
    if (out.reason.empty()) {
      out.reason = std::move(reason);
      out.message = std::move(message);
    }
  }
  out.noneValid = !out.reason.empty() && valid == 0;
  return out;
}

// Whether the listener has a shape its controller requires (Istio's waypoints), and why not.
bool meetsRequirement(const Listener& l, std::string& message) {
  const Gateway& g = *l.gateway;
  const ListenerRequirement* requirement = g.profile->listenerRequirement(g.controllerName);
  if (!requirement) return true;
  std::string_view tlsMode = l.node.get("tls").get("mode").str();
  if (tlsMode.empty() && l.node.get("tls")) tlsMode = "Terminate";
  for (const ListenerShape& shape : requirement->shapes)
    if ((shape.port == 0 || shape.port == l.port) && shape.protocol == l.protocol &&
        (shape.tlsMode.empty() || shape.tlsMode == tlsMode))
      return true;
  message = std::string(requirement->message);
  return false;
}

// How listener `a` clashes with `b` on the same port: "" when it does not.
std::string_view clash(const Listener& a, const Listener& b) {
  if (a.port != b.port || transportIsUdp(a.protocol) != transportIsUdp(b.protocol)) return {};
  if (protocolFamily(a.protocol) != protocolFamily(b.protocol)) return "ProtocolConflict";
  if (a.hostname == b.hostname) return "HostnameConflict";
  return {};
}

// ListenerConflicts::FirstWins: how listener `a` clashes with an earlier one, `b`.
std::string_view clashFirstWins(const Listener& a, const Listener& b) {
  if (a.port != b.port) return {};
  auto layer4 = [](std::string_view p) { return p == "TCP" || p == "UDP"; };
  auto httpLike = [](std::string_view p) { return p == "HTTP" || p == "HTTPS" || p == "TLS"; };
  if (layer4(a.protocol) && (layer4(b.protocol) || httpLike(b.protocol))) return "ProtocolConflict";
  if (httpLike(a.protocol) && layer4(b.protocol)) return "ProtocolConflict";
  if (httpLike(a.protocol) && httpLike(b.protocol)) {
    auto host = [](const Listener& l) { return l.hostname.empty() ? "*" : l.hostname; };
    if (host(a) != host(b)) return {};
    return a.protocol != b.protocol ? "ProtocolConflict" : "HostnameConflict";
  }
  return a.protocol == b.protocol ? "HostnameConflict" : "";
}

// BothOfAPair: within one Gateway (or ListenerSet) both listeners of a clashing pair are
// conflicted; a listener that clashes with one of `higher` (GEP-1713: the Gateway's own
// listeners, then older ListenerSets) is conflicted alone. FirstWins: a listener is compared
// with the earlier ones that stand, `higher` first, and the first clash decides.
void markConflicts(Gateway& gateway, const std::vector<const Listener*>& higher) {
  const bool firstWins = gateway.profile->listenerConflicts == ListenerConflicts::FirstWins;
  for (Listener& a : gateway.listeners) {
    if (!supportedProtocol(a)) continue;
    auto consider = [&](const Listener& b) {
      if (firstWins) {
        if (a.conflictReason.empty()) a.conflictReason = std::string(clashFirstWins(a, b));
        return;
      }
      std::string_view reason = clash(a, b);
      if (reason == "ProtocolConflict" ||
          (reason == "HostnameConflict" && a.conflictReason.empty()))
        a.conflictReason = std::string(reason);
    };
    // `higher` first (BothOfAPair does not depend on the order; FirstWins compares with the
    // listeners that stand only).
    for (const Listener* b : higher)
      if (supportedProtocol(*b) && (!firstWins || b->conflictReason.empty())) consider(*b);
    // A ListenerSet's listeners take precedence in order (GEP-1713): one clashing with an
    // earlier listener of the set that stands is conflicted alone, as with `higher`.
    const bool ordered = firstWins || gateway.isListenerSet();
    for (const Listener& b : gateway.listeners) {
      if (ordered && &b == &a) break;
      if (&b != &a && supportedProtocol(b) && (!ordered || b.conflictReason.empty())) consider(b);
    }
  }
}

// Listeners, their conflicts and their conditions, for a Gateway or a ListenerSet. Returns
// how many listeners are valid.
std::size_t buildListeners(Gateway& gateway, const model::Store& store,
                           const ReferenceGrantIndex& grants, const TopologyOptions& options,
                           const std::vector<const Listener*>& higher = {}) {
  const model::Resource& gw = *gateway.resource;
  std::uint32_t index = 0;
  for (yaml::NodeRef node : gw.spec().get("listeners").items()) {
    Listener& l = gateway.listeners.emplace_back();
    l.gateway = &gateway;
    l.index = index++;
    l.node = node;
    l.name = node.get("name").str();
    l.protocol = node.get("protocol").str();
    l.port = node.get("port").asInt().value_or(0);
    l.hostname = node.get("hostname").str();
    readAllowedRoutes(l);
  }
  markConflicts(gateway, higher);

  std::size_t valid = 0;
  for (Listener& l : gateway.listeners) {
    std::string certificateMessage;
    bool certificatesPartial = false;  // some certificateRefs serve, ResolvedRefs names the rest
    std::string certificateReason =
        checkCertificates(l, store, grants, options, certificateMessage, certificatesPartial);
    CaProblem ca = checkFrontendValidation(l, store, grants);
    const ControllerProfile& profile = *gateway.profile;
    std::string requirementMessage;
    const std::string onlyMode = profile.onlyTlsModesOf(l.protocol);
    if (!supportedProtocol(l) && !onlyMode.empty()) {
      // The protocol in another TLS mode (gateway_listener.go: "Mode must be passthrough for
      // TLS listener").
      const std::string_view mode = l.node.get("tls").get("mode").str();
      l.accepted = false;
      l.conditions.push_back(makeCondition(
          "Accepted", false, "UnsupportedValue",
          std::string(profile.name) + " takes a " + std::string(l.protocol) + " listener in " +
              onlyMode + " mode only, not " +
              (mode.empty() ? std::string("without a TLS mode") : std::string(mode))));
    } else if (!supportedProtocol(l)) {
      l.accepted = false;
      l.conditions.push_back(makeCondition(
          "Accepted", false, "UnsupportedProtocol",
          "Protocol " + std::string(l.protocol) + " is unsupported" +
              (profile.id == ControllerId::Generic ? std::string()
                                                   : " by " + std::string(profile.name))));
    } else if (!meetsRequirement(l, requirementMessage)) {
      l.accepted = false;
      l.conditions.push_back(
          makeCondition("Accepted", false, "UnsupportedProtocol", requirementMessage));
    } else if (!l.conflictReason.empty()) {
      l.accepted = false;
      l.conditions.push_back(
          makeCondition("Accepted", false, l.conflictReason,
                        l.conflictReason == "ProtocolConflict"
                            ? "All listeners for a given port must use a compatible protocol"
                            : "All listeners for a given port must use a unique hostname"));
    } else if (profile.refusedTlsReferenceUnaccepts && certificateReason == "RefNotPermitted") {
      l.accepted = false;
      l.conditions.push_back(
          makeCondition("Accepted", false, "NoValidCACertificate", certificateMessage));
    } else if (ca.noneValid) {
      l.accepted = false;
      l.conditions.push_back(makeCondition("Accepted", false, "NoValidCACertificate", ca.message));
    } else {
      l.conditions.push_back(makeCondition("Accepted", true, "Accepted", "Listener is accepted"));
    }
    if (!certificateReason.empty()) {
      l.conditions.push_back(
          makeCondition("ResolvedRefs", false, certificateReason, certificateMessage));
    } else if (!ca.reason.empty()) {
      l.conditions.push_back(makeCondition("ResolvedRefs", false, ca.reason, ca.message));
    } else if (!l.invalidKinds.empty()) {
      l.conditions.push_back(makeCondition(
          "ResolvedRefs", false, "InvalidRouteKinds",
          "Route kind " + l.invalidKinds.front().kind + " is not supported by this listener"));
    } else {
      l.conditions.push_back(makeCondition("ResolvedRefs", true, "ResolvedRefs",
                                           "Resolved all the Object references"));
    }
    if (l.conflictReason.empty()) {
      l.conditions.push_back({"Conflicted", "False", "NoConflicts", "No conflicts"});
    } else {
      l.conditions.push_back({"Conflicted", "True", l.conflictReason,
                              l.conflictReason == "ProtocolConflict"
                                  ? "Listeners on this port use incompatible protocols"
                                  : "Another listener on this port has the same hostname"});
    }
    const bool programmed =
        l.accepted && (certificateReason.empty() || certificatesPartial) && ca.reason.empty();
    l.conditions.push_back(makeCondition("Programmed", programmed,
                                         programmed ? "Programmed" : "Invalid",
                                         programmed ? "Sending translated listener configuration"
                                                    : "Listener is invalid, see other conditions"));
    valid += programmed;
  }
  return valid;
}

}  // namespace

Condition makeCondition(std::string type, bool ok, std::string reason, std::string message) {
  return {std::move(type), ok ? "True" : "False", std::move(reason), std::move(message)};
}

bool isListenerSetKind(std::string_view group, std::string_view kind) {
  return (group == kGatewayGroup && kind == "ListenerSet") ||
         (group == "gateway.networking.x-k8s.io" && kind == "XListenerSet");
}

void buildGateway(Gateway& gateway, const model::Store& store, const ReferenceGrantIndex& grants,
                  const TopologyOptions& options) {
  const model::Resource& gw = *gateway.resource;
  gateway.className = gw.spec().get("gatewayClassName").str();
  gateway.gatewayClass = store.find(kGatewayGroup, "GatewayClass", "", gateway.className);
  if (gateway.gatewayClass) {
    gateway.classOrigin = ClassOrigin::Input;
    gateway.controllerName = gateway.gatewayClass->spec().get("controllerName").str();
  } else if (const DeclaredGatewayClass* declared =
                 gateway.className.empty()
                     ? nullptr
                     : findDeclaredGatewayClass(options.gatewayClasses, gateway.className)) {
    gateway.classOrigin = ClassOrigin::Declared;
    gateway.controllerName = declared->controllerName;
  } else if (const KnownGatewayClass* known = findWellKnownGatewayClass(gateway.className)) {
    gateway.classOrigin = ClassOrigin::WellKnown;
    gateway.controllerName = known->controllerName;
  } else {
    // Found nowhere. Where the input manages no GatewayClass at all, the controller installed
    // it; where it holds others, the name is more likely wrong (GW207). Both are simulated.
    gateway.classOrigin =
        !gateway.className.empty() && store.ofKind(kGatewayGroup, "GatewayClass").empty()
            ? ClassOrigin::Assumed
            : ClassOrigin::Missing;
    gateway.controllerName = options.controllerName.empty() ? std::string(kAssumedControllerName)
                                                            : options.controllerName;
    // An unknown class (a placeholder a harness fills in, a class installed elsewhere) on a
    // Gateway whose infrastructure parameters are an implementation's own kind: that
    // implementation's controller takes it.
    if (options.controllerName.empty())
      if (std::string_view c = controllerOfParameters(
              gw.spec().get("infrastructure").get("parametersRef").get("group").str());
          !c.empty())
        gateway.controllerName = std::string(c);
  }
  gateway.profile = &profileForController(gateway.controllerName);
  gateway.managed =
      options.controllerName.empty() || gateway.controllerName == options.controllerName;
  std::size_t valid = buildListeners(gateway, store, grants, options);
  if (!gateway.managed) return;
  if (valid == 0 && !gateway.listeners.empty()) {
    gateway.conditions.push_back(makeCondition("Accepted", false, "ListenersNotValid",
                                               "No listener of this Gateway is valid"));
  } else if (valid < gateway.listeners.size()) {
    gateway.conditions.push_back(makeCondition("Accepted", true, "ListenersNotValid",
                                               "Some listeners of this Gateway are not valid"));
  } else {
    gateway.conditions.push_back(
        makeCondition("Accepted", true, "Accepted", "The Gateway has been scheduled"));
  }
}

void buildListenerSet(Gateway& set, const std::vector<Gateway>& gateways, const model::Store& store,
                      const ReferenceGrantIndex& grants, const TopologyOptions& options) {
  const model::Resource& r = *set.resource;
  yaml::NodeRef ref = r.spec().get("parentRef");
  yaml::NodeRef ns = ref.get("namespace");
  std::string_view parentNamespace = ns ? ns.str() : r.namespace_;
  for (const Gateway& g : gateways)
    if (g.resource && !g.isListenerSet() && g.resource->namespace_ == parentNamespace &&
        g.resource->name == ref.get("name").str())
      set.parent = &g;
  // Listeners that take precedence: the Gateway's, then those of ListenerSets built before
  // this one (buildTopology builds them oldest first) and attached to the same Gateway.
  std::vector<const Listener*> higher;
  for (const Gateway& g : gateways) {
    if (&g == &set) break;
    if (!g.resource || (set.parent != &g && g.parent != set.parent) || !set.parent) continue;
    for (const Listener& l : g.listeners)
      if (l.accepted) higher.push_back(&l);
  }
  // Its listeners are its Gateway's controller's.
  if (set.parent) {
    set.controllerName = set.parent->controllerName;
    set.profile = set.parent->profile;
  }
  std::size_t valid = buildListeners(set, store, grants, options, higher);
  if (!set.parent) return;  // no Gateway: nobody writes status
  const_cast<Gateway*>(set.parent)->hasListenerSets = true;
  set.gatewayClass = set.parent->gatewayClass;
  set.className = set.parent->className;
  set.classOrigin = set.parent->classOrigin;
  set.managed = set.parent->managed;
  // The Gateway admits ListenerSets from no namespace unless spec.allowedListeners says so.
  yaml::NodeRef allowed = set.parent->resource->spec().get("allowedListeners").get("namespaces");
  std::string_view from = allowed.get("from").str();
  bool admitted = from == "All" || (from == "Same" && r.namespace_ == parentNamespace);
  if (from == "Selector") {
    model::LabelSelector::Error error;
    auto selector = model::LabelSelector::parse(allowed.get("selector"), &error);
    const model::Resource* namespaceObject = store.find("", "Namespace", "", r.namespace_);
    // As for routes: a Namespace not in the input has, as far as we know, only the label the
    // API server gives every Namespace; a selector on others is assumed to admit.
    admitted = selector &&
               (listenerSetAdmissionAssumed(set, store) ||
                selector->matches(namespaceObject ? namespaceObject->labels() : yaml::NodeRef(),
                                  kNamespaceNameLabel, r.namespace_));
  }
  if (!admitted) {
    // A ListenerSet the Gateway does not take has no listeners on it at all.
    set.listeners.clear();
    const std::string why =
        "The parent Gateway does not allow ListenerSets from this namespace "
        "(spec.allowedListeners)";
    set.conditions.push_back(makeCondition("Accepted", false, "NotAllowed", why));
    set.conditions.push_back(makeCondition("Programmed", false, "NotAllowed", why));
    return;
  }
  if (valid > 0 || set.listeners.empty()) const_cast<Gateway*>(set.parent)->attachedListeners += 1;
  if (valid == 0 && !set.listeners.empty()) {
    set.conditions.push_back(
        makeCondition("Accepted", false, "ListenersNotValid", "No listener is valid"));
    set.conditions.push_back(
        makeCondition("Programmed", false, "ListenersNotValid", "No listener is valid"));
  } else if (valid < set.listeners.size()) {
    set.conditions.push_back(
        makeCondition("Accepted", true, "ListenersNotValid",
                      "The ListenerSet is accepted; some of its listeners are not valid"));
    set.conditions.push_back(
        makeCondition("Programmed", true, "Programmed", "The valid listeners are programmed"));
  } else {
    set.conditions.push_back(
        makeCondition("Accepted", true, "Accepted", "All listeners are accepted"));
    set.conditions.push_back(
        makeCondition("Programmed", true, "Programmed", "All listeners are programmed"));
  }
}

bool listenerSetAdmissionAssumed(const Gateway& set, const model::Store& store) {
  if (!set.parent || !set.isListenerSet() || !set.parent->resource) return false;
  const model::Resource& r = *set.resource;
  yaml::NodeRef allowed = set.parent->resource->spec().get("allowedListeners").get("namespaces");
  if (allowed.get("from").str() != "Selector") return false;
  if (store.find("", "Namespace", "", r.namespace_)) return false;
  model::LabelSelector::Error error;
  auto selector = model::LabelSelector::parse(allowed.get("selector"), &error);
  return selector && selectsOnUnknownLabels(*selector);
}

bool terminatesTls(const Listener& l) {
  return l.protocol == "HTTPS" ||
         (l.protocol == "TLS" && l.node.get("tls").get("mode").str() != "Passthrough");
}

}  // namespace pg::graph
