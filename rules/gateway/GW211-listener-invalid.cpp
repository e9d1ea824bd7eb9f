#include "rules/gateway/gateway_rules.h"

namespace pg::rules {
namespace {

using namespace gateway;

// The allowedRoutes.kinds item naming `kind`, for the finding to point at.
yaml::NodeRef kindItem(const graph::Listener& l, const graph::GroupKind& kind) {
  for (yaml::NodeRef item : l.node.get("allowedRoutes").get("kinds").items()) {
    yaml::NodeRef group = item.get("group");
    std::string_view g = group ? group.str() : graph::kGatewayGroup;
    if (item.get("kind").str() == kind.kind && g == kind.group) return item;
  }
  return {};
}

std::string supportedKinds(const graph::Listener& l) {
  std::string out;
  for (const graph::GroupKind& k : l.kinds) {
    out += out.empty() ? "" : ", ";
    out += k.kind;
  }
  return out;
}

// Returns whether it reported: a listener with an unknown protocol admits no kind at all, and
// saying so once is enough.
bool checkProtocol(Context& ctx, const graph::Listener& l) {
  const graph::Condition* accepted = findCondition(l.conditions, "Accepted");
  if (!accepted || accepted->status != "False") return false;
  if (accepted->reason == "UnsupportedValue" &&
      !l.gateway->profile->onlyTlsModesOf(l.protocol).empty()) {
    // The protocol in a TLS mode the controller does not take it in.
    yaml::NodeRef tls = l.node.get("tls");
    reportListener(ctx, l,
                   tls.get("mode") ? l.gateway->resource->locateField(tls, "mode")
                                   : listenerField(l, "protocol"),
                   listenerName(l) + " is not accepted (UnsupportedValue): " + accepted->message +
                       ", so no route can attach to the listener (" + listenerTraits(l) +
                       "); set tls.mode to " + l.gateway->profile->onlyTlsModesOf(l.protocol) +
                       ", or use another protocol");
    return true;
  }
  if (accepted->reason != "UnsupportedProtocol") return false;
  reportListener(ctx, l, listenerField(l, "protocol"),
                 listenerName(l) + " is not accepted (UnsupportedProtocol): " + accepted->message +
                     ", so no route can attach to the listener (" + listenerTraits(l) +
                     "); use HTTP, HTTPS, TLS, TCP or UDP, or a protocol the Gateway's "
                     "implementation documents");
  return true;
}

void checkKinds(Context& ctx, const graph::Listener& l) {
  const model::Resource& owner = *l.gateway->resource;
  for (const graph::GroupKind& kind : l.invalidKinds) {
    yaml::NodeRef item = kindItem(l, kind);
    std::string supported = supportedKinds(l);
    model::Finding& f = reportListener(
        ctx, l, item ? owner.locateField(item, "kind") : listenerField(l, "allowedRoutes"),
        listenerName(l) + " lists a route kind it cannot carry: allowedRoutes.kinds names " +
            kind.group + "/" + kind.kind + ", which " + std::string(l.protocol) +
            " listeners cannot carry (InvalidRouteKinds), so the listener's (" + listenerTraits(l) +
            ") ResolvedRefs condition is False; " +
            (supported.empty() ? "it admits no route kind at all; "
                               : "it admits only " + supported + "; ") +
            "remove the entry or correct its group and kind");
    f.discriminator += " kind " + kind.group + "/" + kind.kind;
  }
}

void check(Context& ctx) {
  forEachListener(ctx, [&](const graph::Listener& l) {
    if (!checkProtocol(ctx, l)) checkKinds(ctx, l);
  });
}

}  // namespace

PG_RULE(GW211, "listener-invalid", "gateway", Error,
        "A listener has an unsupported protocol or allows route kinds its protocol cannot carry",
        gateway::kListenerKinds, check)

}  // namespace pg::rules
