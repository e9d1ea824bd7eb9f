#include "rules/linkerd/linkerd_rules.h"

namespace pg::rules {
namespace {

void check(Context& ctx) {
  const analysis::Analysis& a = ctx.analysis();
  for (std::string_view kind : {"HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute"})
    for (const model::Resource* r : a.store.ofKind(kind))
      if (linkerdrules::webhookSeesRoute(a, *r))
        linkerdrules::reportRefusals(ctx, *r, policy::linkerd::refuseRoute(*r));
}

}  // namespace

PG_RULE(LD606, "route-refused", "linkerd", Error,
        "Linkerd refuses a route: a relative path or redirect path, a regular-expression gRPC "
        "method, a Service backendRef without port, a TCPRoute or TLSRoute without exactly one "
        "rule",
        "HTTPRoute,GRPCRoute,TLSRoute,TCPRoute", check)

}  // namespace pg::rules
