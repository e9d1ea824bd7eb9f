#include <string>

#include "rules/gateway/gateway_rules.h"

namespace pg::rules {
namespace {

using namespace gateway;

// What the Gateway's controller refuses in the parameters a GatewayClass or Gateway references
// (Envoy Gateway's EnvoyProxy): its own InvalidParameters status, and the telemetry that leaves
// every Gateway using it not accepted. Each points at the EnvoyProxy field at fault.
void check(Context& ctx) {
  for (const policy::ObjectProblem& p : ctx.analysis().policies.objectProblems) {
    const model::Resource& proxy = *p.object;
    if (!p.gateway) {
      ctx.report(proxy.locate(p.at ? p.at : proxy.spec()),
                 proxy.display() +
                     " is refused by its controller (status Accepted False, InvalidParameters): " +
                     p.message + "; fix the field, or the Gateways using it get none of it",
                 &proxy)
          .missing = p.missing;
      continue;
    }
    const model::Resource& gateway = *p.gateway;
    model::Finding& f = ctx.report(
        proxy.locate(p.at ? p.at : proxy.spec()),
        gateway.display() + " is not accepted (Accepted False, InvalidParameters) because of " +
            proxy.display() + ": " + p.message +
            "; fix the field (or create the object it names)",
        &proxy);
    f.discriminator = std::string(gateway.namespace_) + "/" + std::string(gateway.name);
    f.missing = p.missing;
    f.objects.push_back(gateway.display());
    f.related.push_back({gateway.locate(gateway.node), gateway.display() + " uses it"});
  }
}

}  // namespace

PG_RULE(GW217, "gateway-parameters-refused", "gateway", Error,
        "The Gateway's controller refuses the parameters its class or the Gateway references",
        "EnvoyProxy", check)

}  // namespace pg::rules
