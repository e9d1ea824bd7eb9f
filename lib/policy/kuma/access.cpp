// Kuma's answer to `policygraph access`. Kuma turns an inbound's MeshTrafficPermission `from`
// rules into Envoy's RBAC filter on the inbound's mTLS filter chains (the HTTP filter when the
// inbound speaks HTTP, so a denied request gets 403; the network filter otherwise, so the
// connection is closed): the rules whose action is Allow or AllowWithShadowDeny become the
// principals of one ALLOW policy, each the rule's tag subset (a positive tag must be among the
// client certificate's URIs, `spiffe://<mesh>/<service>` for kuma.io/service and
// `kuma://<key>/<value>` for the others; a negated one must not; the empty subset is `any`).
// AllowWithShadowDeny also puts the subset in the shadow rules, which log a denial without
// enforcing it. A PERMISSIVE mesh's plaintext filter chain gets no RBAC filter at all.
#include "lib/policy/kuma/access.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

namespace pg::policy::kuma {

namespace {

constexpr std::string_view kPermission = "MeshTrafficPermission";

bool hasTag(const std::vector<AccessTag>& tags, std::string_view key, std::string_view value) {
  return std::any_of(tags.begin(), tags.end(),
                     [&](const AccessTag& t) { return t.first == key && t.second == value; });
}

void addTags(std::vector<AccessTag>& out, const graph::kuma::Tags& tags) {
  for (const auto& [k, v] : tags)
    if (!hasTag(out, k, v)) out.emplace_back(std::string(k), std::string(v));
}

std::string identityOf(std::string_view mesh, const std::vector<AccessTag>& tags) {
  std::string out;
  for (const auto& [k, v] : tags)
    if (k == graph::kuma::kServiceTag)
      out += (out.empty() ? "" : ", ") + ("spiffe://" + std::string(mesh) + "/" + v);
  return out;
}

// The `from` item of each policy by the node of its `default.action`: the rules name the node
// their action came from, and a policy may have thousands of items.
class ActionItems {
 public:
  explicit ActionItems(const std::vector<Policy>& policies) {
    for (const Policy& p : policies)
      for (const Item& item : p.from)
        if (yaml::NodeRef action = item.conf ? item.conf.get("action") : yaml::NodeRef())
          items_.try_emplace({p.resource, action.tree(), action.index()}, item.index);
  }
  // The `from` item of `policy` whose `default.action` is `node`.
  std::optional<std::size_t> of(const model::Resource* policy, yaml::NodeRef node) const {
    if (!node) return std::nullopt;
    auto it = items_.find({policy, node.tree(), node.index()});
    return it == items_.end() ? std::nullopt : std::optional<std::size_t>(it->second);
  }

 private:
  std::map<std::tuple<const model::Resource*, const yaml::Tree*, std::uint32_t>, std::size_t>
      items_;
};

AccessTagRule tagRule(const SubsetRule& rule, const ActionItems& items,
                      const std::vector<AccessTag>& clientTags, bool clientHasCertificate) {
  AccessTagRule out;
  for (const Tag& t : rule.subset) out.subset.push_back({t.key, t.value, t.negated});
  if (const Conf* action = rule.conf.find("action"); action && !action->scalar.empty()) {
    out.action = action->scalar;
    if (const model::Resource* r = action->origin) {
      out.policy = {std::string(r->kind), std::string(r->display()), r};
      out.item = items.of(r, action->source);
      out.at = r->locate(action->source);
    }
  }
  for (const Policy* p : rule.origin) out.origin.push_back(p->resource->display());
  // Without a certificate the client has no URI: only negations and the empty subset hold.
  out.coversClient =
      covers(rule.subset, clientHasCertificate ? clientTags : std::vector<AccessTag>{});
  return out;
}

std::string ruleName(const AccessTagRule& r) {
  std::string out = r.policy.name;
  if (r.item) out += " from[" + std::to_string(*r.item) + "]";
  return out;
}

}  // namespace

bool covers(const Subset& subset, const std::vector<AccessTag>& tags) {
  return std::all_of(subset.begin(), subset.end(),
                     [&](const Tag& t) { return hasTag(tags, t.key, t.value) != t.negated; });
}

MeshTls meshTls(const graph::kuma::Topology& topology, std::string_view mesh) {
  MeshTls out;
  const graph::kuma::Mesh* m = topology.mesh(mesh);
  if (!m) return out;
  out.mesh = m->resource;
  yaml::NodeRef body = m->resource->universal ? m->resource->node : m->resource->spec();
  yaml::NodeRef mtls = body.get("mtls");
  out.backend = std::string(mtls.get("enabledBackend").str());
  out.enabled = !out.backend.empty();
  out.mode = "STRICT";
  for (yaml::NodeRef b : mtls.get("backends").items())
    if (b.get("name").str() == out.backend && b.get("mode").isString())
      out.mode = std::string(b.get("mode").str());
  for (yaml::NodeRef kind : body.get("skipCreatingInitialPolicies").items())
    if (kind.str() == "*" || kind.str() == kPermission) out.skipsInitialPermission = true;
  return out;
}

AccessClient dataplaneClient(const graph::kuma::Dataplane& dataplane, std::string display) {
  AccessClient c;
  c.display = std::move(display);
  c.meshed = true;
  for (const graph::kuma::Inbound& in : dataplane.inbounds)
    if (!in.ignored) addTags(c.tags, in.tags);
  addTags(c.tags, dataplane.gatewayTags);
  std::sort(c.tags.begin(), c.tags.end());
  c.identity = identityOf(dataplane.mesh, c.tags);
  c.meshedBecause =
      dataplane.derived
          ? "injected: a Kuma proxy in mesh " + std::string(dataplane.mesh)
          : "Dataplane " + std::string(dataplane.name) + " in mesh " + std::string(dataplane.mesh);
  return c;
}

AccessClient tagsClient(std::vector<AccessTag> tags, std::string display, std::string_view mesh) {
  AccessClient c;
  c.display = std::move(display);
  c.meshed = true;
  std::sort(tags.begin(), tags.end());
  tags.erase(std::unique(tags.begin(), tags.end()), tags.end());
  c.tags = std::move(tags);
  c.identity = identityOf(mesh, c.tags);
  c.meshedBecause = "a Kuma proxy with these tags";
  return c;
}

AccessResult decideAccess(const graph::kuma::Dataplane& destination,
                          const graph::kuma::Inbound& inbound, const AccessClient& client,
                          const std::vector<Policy>& policies, const model::Store& store,
                          const graph::kuma::Topology& topology, const Settings& settings) {
  AccessResult r;
  r.family = "kuma";
  r.decision = AccessDecision::Refused;
  r.server = {"Dataplane", std::string(destination.name), destination.resource};
  std::string_view protocol = graph::kuma::tagValue(inbound.tags, "kuma.io/protocol");
  r.protocol = protocol.empty() ? "tcp" : std::string(protocol);
  AccessInbound in{std::string(inbound.name), inbound.port, {}, {}};
  addTags(in.tags, inbound.tags);
  if (destination.resource) in.at = destination.resource->locate(inbound.node);
  r.inbound = std::move(in);
  if (client.identity.empty() && client.meshed && !client.tags.empty())
    r.notes.push_back("the client has no kuma.io/service tag, so no spiffe:// identity");

  MeshTls tls = meshTls(topology, destination.mesh);
  if (!tls.mesh) {
    tls.enabled = true;
    tls.mode = "STRICT";
    r.notes.push_back("Mesh " + std::string(destination.mesh) +
                      " is not in the repository: assumed to have mutual TLS (STRICT), without "
                      "which MeshTrafficPermission decides nothing");
  }
  r.mtls = tls.enabled ? tls.mode : "disabled";

  Proxy proxy{destination.resource, &destination, topology.gatewayOf(destination),
              destination.gatewayTags};
  std::vector<TypeRules> all = buildProxyRules(proxy, policies, store, topology, settings);
  const TypeRules* permissions = nullptr;
  for (const TypeRules& tr : all)
    if (tr.type == kPermission) permissions = &tr;
  const bool certificate = client.meshed;
  std::vector<std::string> withRules;
  if (permissions) {
    const ActionItems items(policies);
    for (const FromRules& fr : permissions->fromRules)
      if (fr.listener.port == inbound.port && fr.listener.address == inbound.address)
        for (const SubsetRule& rule : fr.rules)
          r.tagRules.push_back(tagRule(rule, items, client.tags, certificate));
    for (const InboundRules& ir : permissions->inboundRules) {
      if (ir.listener.port != inbound.port || ir.listener.address != inbound.address) continue;
      for (const InboundRules::Rule& rule : ir.rules)
        for (const RuleOrigin& o : rule.origin)
          if (!o.policy->rules.empty() &&
              std::find(withRules.begin(), withRules.end(), o.policy->resource->display()) ==
                  withRules.end())
            withRules.push_back(o.policy->resource->display());
    }
  }
  for (const std::string& p : withRules)
    r.notes.push_back(p +
                      " has `rules` (SPIFFE ID matchers, which need a MeshIdentity): not "
                      "evaluated; this answer comes from `from` rules only");

  const std::string where = "port " + std::to_string(inbound.port);
  if (!tls.enabled) {
    r.decision = AccessDecision::Allowed;
    r.condition = "Mesh " + std::string(destination.mesh) +
                  " has no mutual TLS (mtls.enabledBackend unset): MeshTrafficPermission is "
                  "not enforced, every client may connect";
    if (!r.tagRules.empty())
      r.advice.push_back("enable mutual TLS on Mesh " + std::string(destination.mesh) +
                         " (mtls.enabledBackend) for its MeshTrafficPermissions to take effect");
    return r;
  }
  if (!client.meshed) {
    if (tls.mode != "PERMISSIVE") {
      r.condition = "mutual TLS is STRICT on Mesh " + std::string(destination.mesh) +
                    ": a client without a Kuma proxy fails the TLS handshake before any "
                    "MeshTrafficPermission is read";
      r.advice.push_back(
          "run the client in the mesh (sidecar injection or a Dataplane), or set "
          "the mesh's mTLS backend to mode PERMISSIVE while migrating");
      return r;
    }
    r.decision = AccessDecision::Allowed;
    r.condition = "mutual TLS is PERMISSIVE on Mesh " + std::string(destination.mesh) +
                  ": a plaintext client reaches the inbound's plaintext filter chain, where "
                  "Kuma installs no RBAC filter; MeshTrafficPermission is not enforced for it";
    r.advice.push_back(
        "to have MeshTrafficPermission apply, run the client in the mesh and set the mTLS "
        "backend's mode to STRICT");
    return r;
  }

  // Envoy's RBAC: any Allow policy admits; otherwise the client is refused. The rules
  // are in Kuma's order (more positive tags first), so the first that covers the client is the
  // most specific one.
  auto admits = [](const AccessTagRule& t) {
    return t.coversClient && (t.action == "Allow" || t.action == "AllowWithShadowDeny");
  };
  auto allow = std::find_if(r.tagRules.begin(), r.tagRules.end(), admits);
  auto any = std::find_if(r.tagRules.begin(), r.tagRules.end(),
                          [](const AccessTagRule& t) { return t.coversClient; });
  if (allow != r.tagRules.end()) {
    r.decision = AccessDecision::Allowed;
    r.decidingRule = static_cast<std::size_t>(allow - r.tagRules.begin());
    if (allow->action == "AllowWithShadowDeny")
      r.notes.push_back(
          "AllowWithShadowDeny: allowed, and Envoy's shadow rules log the "
          "connection as denied (rbac shadow_denied)");
    return r;
  }
  // Refused: on an HTTP inbound Envoy's HTTP RBAC filter answers every request with 403.
  if (r.protocol == "http" || r.protocol == "http2" || r.protocol == "grpc") {
    r.decision = AccessDecision::Unauthorized;
    r.status = 403;
    if (r.protocol == "grpc") r.grpcStatus = "PERMISSION_DENIED";
  }
  if (any != r.tagRules.end()) {
    r.decidingRule = static_cast<std::size_t>(any - r.tagRules.begin());
    if (any->action.empty())
      r.condition = "the rule covering the client has no action: it admits nobody";
    r.advice.push_back("to let the client in, change " + ruleName(*any) +
                       " to action Allow, or add a `from` item for " + tagsText(client.tags) +
                       " with action Allow after it (or in a MeshTrafficPermission with a more "
                       "specific targetRef): the later item covering a client wins");
    return r;
  }
  std::string why = r.tagRules.empty()
                        ? "no MeshTrafficPermission `from` rule applies to the inbound on " + where
                        : "no MeshTrafficPermission `from` rule covers the client";
  r.condition = why + ": with mutual TLS on, Kuma denies what no rule allows";
  if (!tls.skipsInitialPermission)
    r.notes.push_back(
        "Kuma's control plane creates a MeshTrafficPermission allowing every "
        "client when it creates a Mesh, unless the Mesh lists it in "
        "skipCreatingInitialPolicies; that policy is not in the repository and "
        "is assumed absent");
  r.advice.push_back("add a MeshTrafficPermission selecting " + std::string(destination.name) +
                     " with a `from` item for " + tagsText(client.tags) + " and action Allow");
  return r;
}

}  // namespace pg::policy::kuma
