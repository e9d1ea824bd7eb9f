#include "rules/gateway/gateway_rules.h"

namespace pg::rules {
namespace {

using namespace gateway;

// The field listing a backend's ports: a Service's `ports`, an XBackend's one `port`.
std::string_view portsField(const model::Resource& backend) {
  return backend.spec().get("ports") || !backend.spec().get("port") ? "ports" : "port";
}

std::string servicePorts(const model::Resource& backend) {
  if (portsField(backend) == "port")
    return std::string(backend.spec().get("port").get("port").str());
  std::string out;
  for (yaml::NodeRef p : backend.spec().get("ports").items()) {
    if (!out.empty()) out += ", ";
    out += std::string(p.get("port").str());
  }
  return out.empty() ? "none" : out;
}

void check(Context& ctx) {
  forEachUnresolvedBackend(
      ctx, {"BackendNotFound", "PortNotFound"},
      [&](const graph::Route& route, const graph::RouteRule& rule, const graph::BackendRef& b) {
        std::string consequence = route.kind == graph::RouteKind::HTTP
                                      ? "requests this backend would receive get HTTP 500"
                                      : "traffic this backend would receive is dropped";
        std::string fix;
        const model::Store::Refusal* refused =
            b.target ? nullptr : ctx.store().refusal(b.group, b.kind, b.namespace_, b.name);
        if (refused) {
          fix = "fix the " + b.kind + "'s schema violations";
        } else if (!b.target) {
          fix = "create the " + b.kind + " or fix the backendRef's name and namespace";
        } else if (!b.port) {
          fix = "set port to one the " + b.kind + " exposes (" + servicePorts(*b.target) + ")";
        } else {
          fix = "use a port the " + b.kind + " exposes (" + servicePorts(*b.target) + ")";
        }
        model::Finding& f = reportBackend(
            ctx, route, rule, b,
            (refused ? refused->notApplied() : b.message) + ": " + consequence + "; " + fix);
        if (!refused && !b.target)
          f.missing = model::Missing{b.group, b.kind, b.namespace_, b.name};
        if (refused)
          f.related.push_back({refused->object->locate(refused->object->node),
                               refused->object->display() + " is defined here"});
        if (b.target) {
          f.objects.push_back(b.target->display());
          f.related.push_back({b.target->locateField(b.target->spec(), portsField(*b.target)),
                               b.target->display() + " exposes ports " + servicePorts(*b.target)});
        }
      });
}

}  // namespace

PG_RULE(GW203, "backend-not-found", "gateway", Error,
        "A backendRef names a Service or port that does not exist", gateway::kRouteKinds, check)

}  // namespace pg::rules
