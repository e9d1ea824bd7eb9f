#include "rules/gateway/gateway_rules.h"

namespace pg::rules {
namespace {

using namespace gateway;

// The ReferenceGrant that would permit the reference, as the fix to paste.
std::string grantAdvice(std::string_view toNamespace, const model::Resource& from,
                        std::string_view toGroup, std::string_view toKind,
                        std::string_view toName) {
  std::string_view fromKind = from.kind, fromNamespace = from.namespace_;
  std::string out = "add a ReferenceGrant in namespace " + std::string(toNamespace) +
                    " with from {group: " + std::string(from.group) +
                    ", kind: " + std::string(fromKind) +
                    ", namespace: " + std::string(fromNamespace) + "} and to {group: \"" +
                    std::string(toGroup) + "\", kind: " + std::string(toKind);
  if (!toName.empty()) out += ", name: " + std::string(toName);
  return out + "}, or move the object into the referring namespace";
}

void checkBackends(Context& ctx) {
  forEachUnresolvedBackend(
      ctx, "RefNotPermitted",
      [&](const graph::Route& route, const graph::RouteRule& rule, const graph::BackendRef& b) {
        const model::Resource& r = *route.resource;
        model::Finding& f = reportBackend(
            ctx, route, rule, b,
            b.message +
                ": a route may refer to another namespace only where a ReferenceGrant "
                "there allows it, so this backend gets no traffic; " +
                grantAdvice(b.namespace_, r, b.group, b.kind, b.name));
        f.objects.push_back(b.kind + "/" + b.namespace_ + "/" + b.name);
        relateGrants(ctx.store(), b.namespace_, f);
      });
}

void checkCertificates(Context& ctx) {
  forEachListener(ctx, [&](const graph::Listener& l) {
    const graph::Condition* resolved = findCondition(l.conditions, "ResolvedRefs");
    if (!resolved || resolved->status != "False" || resolved->reason != "RefNotPermitted") return;
    const model::Resource& owner = *l.gateway->resource;
    if (caCertificateProblem(l, resolved->reason)) {
      reportListener(ctx, l, caCertificateLocation(l),
                     describeListener(l) + ": " + resolved->message +
                         ": the listener cannot validate client certificates and is not "
                         "programmed; add a ReferenceGrant in the CA certificate's namespace "
                         "that permits " + std::string(owner.kind) + "s of namespace " +
                         std::string(owner.namespace_) + " to refer to it");
      return;
    }
    yaml::NodeRef ref = soleCertificateRef(l);
    std::string_view toNamespace = ref.get("namespace").str();
    std::string advice = ref ? grantAdvice(toNamespace, owner, "", "Secret", ref.get("name").str())
                             : "add a ReferenceGrant in the Secret's namespace that permits " +
                                   std::string(owner.kind) + "s of namespace " +
                                   std::string(owner.namespace_) + " to refer to it";
    model::Finding& f = reportListener(
        ctx, l, certificateLocation(l, "namespace"),
        describeListener(l) + " may not use its certificate (" + resolved->message + ")" +
            ": the listener has no usable certificate and is not programmed; " + advice);
    if (ref) relateGrants(ctx.store(), toNamespace, f);
  });
}

void check(Context& ctx) {
  checkBackends(ctx);
  checkCertificates(ctx);
}

}  // namespace

PG_RULE(GW204, "ref-not-permitted", "gateway", Error,
        "A cross-namespace backendRef or certificateRef has no ReferenceGrant",
        "HTTPRoute,GRPCRoute,TLSRoute,TCPRoute,UDPRoute,Gateway,ListenerSet,XListenerSet", check)

}  // namespace pg::rules
