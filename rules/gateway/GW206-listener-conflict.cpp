#include "rules/gateway/gateway_rules.h"

namespace pg::rules {
namespace {

using namespace gateway;

// How a port tells connections apart: HTTP by Host header, HTTPS and TLS both by SNI.
std::string_view protocolFamily(std::string_view protocol) {
  return protocol == "HTTPS" || protocol == "TLS" ? std::string_view("tls") : protocol;
}

bool conflictsWith(const graph::Listener& a, const graph::Listener& b) {
  if (&a == &b || a.port != b.port || (a.protocol == "UDP") != (b.protocol == "UDP")) return false;
  if (a.conflictReason == "ProtocolConflict")
    return protocolFamily(a.protocol) != protocolFamily(b.protocol);
  return protocolFamily(a.protocol) == protocolFamily(b.protocol) && a.hostname == b.hostname;
}

// The listeners `l` competes with: on its Gateway, and on the Gateway's ListenerSets, which
// share its ports (GEP-1713).
std::vector<const graph::Listener*> rivals(const graph::Topology& topology,
                                           const graph::Listener& l) {
  const graph::Gateway* root = l.gateway->parent ? l.gateway->parent : l.gateway;
  std::vector<const graph::Listener*> out;
  for (const graph::Gateway& g : topology.gateways) {
    if (&g != root && g.parent != root) continue;
    for (const graph::Listener& other : g.listeners)
      if (conflictsWith(l, other)) out.push_back(&other);
  }
  return out;
}

void check(Context& ctx) {
  forEachListener(ctx, [&](const graph::Listener& l) {
    if (l.conflictReason.empty()) return;
    const bool hostname = l.conflictReason == "HostnameConflict";
    std::vector<const graph::Listener*> others = rivals(ctx.analysis().topology, l);
    std::string with;
    for (const graph::Listener* other : others) {
      with += with.empty() ? "" : ", ";
      with += describeListener(*other);
    }
    if (with.empty()) with = "another listener";
    std::string message = listenerName(l) + " is Conflicted (" + l.conflictReason +
                          "): the listener (" + listenerTraits(l) + ") ";
    if (hostname) {
      message += "shares port " + std::to_string(l.port) +
                 (l.hostname.empty() ? std::string() : " and hostname " + std::string(l.hostname)) +
                 " with " + with + (l.hostname.empty() ? ", and neither sets a hostname" : "") +
                 ", so the Gateway cannot tell their traffic apart; give each listener its own "
                 "hostname or port";
    } else {
      message += "shares port " + std::to_string(l.port) + " with " + with +
                 ", whose protocol cannot share a port with " + std::string(l.protocol) +
                 "; move one of them to another port";
    }
    message += " (a conflicted listener is not programmed and routes cannot use it)";
    const bool atHostname = hostname && l.node.get("hostname");
    model::Finding& f = reportListener(ctx, l, listenerField(l, atHostname ? "hostname" : "port"),
                                       std::move(message));
    for (const graph::Listener* other : others) {
      if (other->gateway != l.gateway) f.objects.push_back(other->gateway->resource->display());
      f.related.push_back(relatedListener(*other, "conflicting " + describeListener(*other)));
    }
  });
}

}  // namespace

PG_RULE(GW206, "listener-conflict", "gateway", Error,
        "Listeners on one port conflict by protocol or hostname", gateway::kListenerKinds, check)

}  // namespace pg::rules
