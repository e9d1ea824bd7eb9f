#include "rules/gateway/gateway_rules.h"

namespace pg::rules {
namespace {

using namespace gateway;

// The field of a certificateRef that makes it unusable: its group or kind when it names
// something other than a core Secret, else its name (a Secret missing or without a key pair).
std::string_view faultyField(yaml::NodeRef ref) {
  if (!ref.get("group").str().empty()) return "group";
  if (ref.get("kind") && ref.get("kind").str() != "Secret") return "kind";
  return "name";
}

void check(Context& ctx) {
  forEachListener(ctx, [&](const graph::Listener& l) {
    const graph::Condition* resolved = findCondition(l.conditions, "ResolvedRefs");
    if (!resolved || resolved->status != "False") return;
    if (caCertificateProblem(l, resolved->reason) && resolved->reason != "RefNotPermitted") {
      reportListener(ctx, l, caCertificateLocation(l),
                     describeListener(l) + ": " + resolved->message +
                         ". The listener cannot validate client certificates" +
                         (l.accepted ? "" : ", so it is not accepted") +
                         "; refer to a core ConfigMap or Secret holding the CA certificate");
      return;
    }
    // PartiallyInvalidCertificateRef (Envoy Gateway): some references serve, the others
    // are left out of the listener.
    const bool partial = resolved->reason == "PartiallyInvalidCertificateRef";
    if (resolved->reason != "InvalidCertificateRef" && !partial) return;
    const model::Resource& owner = *l.gateway->resource;
    yaml::NodeRef ref = soleCertificateRef(l);
    model::Finding& f = reportListener(
        ctx, l, certificateLocation(l, ref ? faultyField(ref) : "name"),
        listenerName(l) + " has an unusable certificate: " + resolved->message +
            ". The listener (" + listenerTraits(l) +
            (partial ? ") serves only the certificates that are usable, and clients that "
                       "need the others fail the handshake"
                     : ") cannot terminate TLS, so it is not programmed") +
            "; refer to a Secret of type kubernetes.io/tls that holds a valid tls.crt and "
            "the matching tls.key" +
            (l.certificateProducersConsidered.empty()
                 ? std::string()
                 : " (nothing produces it: " + l.certificateProducersConsidered + ")"));
    if (!ref) return;
    yaml::NodeRef ns = ref.get("namespace");
    const model::Resource* secret =
        ctx.store().find("", "Secret", ns ? ns.str() : owner.namespace_, ref.get("name").str());
    if (!secret && faultyField(ref) == "name" && !partial)
      f.missing = model::Missing{"", "Secret", std::string(ns ? ns.str() : owner.namespace_),
                                 std::string(ref.get("name").str())};
    if (secret && faultyField(ref) == "name")
      f.related.push_back(
          {secret->locateField(secret->node, secret->node.get("data") ? "data" : "kind"),
           secret->display() + " is the Secret referred to"});
  });
}

}  // namespace

PG_RULE(GW210, "invalid-certificate-ref", "gateway", Error,
        "A TLS listener's certificateRef is missing, of the wrong kind or without a key pair",
        gateway::kListenerKinds, check)

}  // namespace pg::rules
