#include <algorithm>

#include "rules/gateway/gateway_rules.h"

namespace pg::rules {
namespace {

using namespace gateway;

void check(Context& ctx) {
  forEachUnresolvedBackend(
      ctx, "InvalidKind",
      [&](const graph::Route& route, const graph::RouteRule& rule, const graph::BackendRef& b) {
        if (b.notSimulated) {
          // An implementation's own kind under a controller no profile describes it for, or
          // a kind the controller takes in a way policygraph does not model (kgateway's route
          // delegation): whether and how it resolves is not known, so this is a note.
          const std::string_view because = route.profile->notSimulatedBecause;
          model::Finding& f = reportBackend(
              ctx, route, rule, b,
              "backend kind " + b.group + "/" + b.kind + " is not simulated: " +
                  (because.empty() ? std::string("policygraph does not model how the Gateway's "
                                                 "controller takes it")
                                   : std::string(because)) +
                  ", so the route's status assumes the controller refuses it (ResolvedRefs "
                  "False, InvalidKind); check that the Gateway's implementation documents it as "
                  "a backend");
          f.severity = std::min(f.severity, model::Severity::Note);
          return;
        }
        reportBackend(
            ctx, route, rule, b,
            b.message +
                ": the route's ResolvedRefs condition is False and traffic this backend "
                "would receive is dropped; refer to a core Service (omit group and kind), "
                "or to a kind the Gateway's implementation documents as a backend");
      });
}

}  // namespace

PG_RULE(GW209, "invalid-backend-kind", "gateway", Error,
        "A backendRef names a kind that cannot be a backend", gateway::kRouteKinds, check)

}  // namespace pg::rules
