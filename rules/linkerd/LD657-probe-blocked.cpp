// The kubelet's HTTP probes as Linkerd's proxy sees them: an unauthenticated GET from an address
// of the probe networks, decided by the same function `policygraph access` uses.
#include <optional>
#include <string>

#include "lib/graph/workloads.h"
#include "lib/policy/linkerd/access.h"
#include "rules/linkerd/linkerd_rules.h"

namespace pg::rules {
namespace {

namespace ld = policy::linkerd;

// The kubelet: not meshed, from some address of the probe networks (every address when the
// policy controller is told of none).
policy::AccessClient kubelet(const config::LinkerdSettings& settings) {
  policy::AccessClient c;
  c.display = "the kubelet";
  c.meshedBecause = "the kubelet is not meshed";
  c.assumedNetworks = settings.probeNetworks;
  if (c.assumedNetworks.empty())
    c.assumedNetworks = {*model::Cidr::parse("0.0.0.0/0"), *model::Cidr::parse("::/0")};
  return c;
}

std::string serverText(const ld::InboundPort& p) {
  return p.server ? p.server->display() : "the default policy " + p.serverName;
}

// Why the proxy answers as it does, and what to change, in words.
std::string explanation(const policy::AccessResult& r, const ld::InboundPort& p,
                        const std::string& request, const config::LinkerdSettings& settings) {
  const std::string server = serverText(p);
  const std::string probeNetworks = settings.probeNetworks.empty()
                                        ? std::string("the nodes' addresses")
                                        : ld::cidrsText(settings.probeNetworks);
  const std::string authorize =
      "an AuthorizationPolicy whose requiredAuthenticationRefs name a NetworkAuthentication of "
      "the probe networks (" +
      probeNetworks + ")";
  if (r.decision == policy::AccessDecision::NoRoute) {
    std::string routes;
    for (const ld::InboundRoute& route : p.httpRoutes)
      routes += (routes.empty() ? "" : ", ") + route.kind + "/" + route.name;
    return "404: HTTP routes target " + server + " (" + routes +
           "), so Linkerd serves no default " + "probe route on it, and none of them matches " +
           request + ": add a rule matching it to one of them and authorize it with " + authorize +
           ", or detach the routes from the Server";
  }
  if (r.decision == policy::AccessDecision::Refused)
    return "the port is " + p.protocol + ", so the proxy authorizes the connection by " + server +
           " alone, and no authorization admits an unauthenticated client: add " + authorize +
           " targeting the Server";
  if (r.route && r.route->ref.resource)
    return "403: " + r.route->ref.kind + "/" + r.route->ref.name + " on " + server +
           " matches it, so the default probe route is gone, and no authorization of the route " +
           "or the Server admits an unauthenticated client: add " + authorize +
           " targeting the route (or the Server)";
  return "403: " + server + " admits no unauthenticated client and serves no probe route" +
         (settings.probeNetworks.empty() ? " (probeNetworks is empty)" : "") + ": add " +
         authorize + " targeting " + (p.server ? "the Server" : "a Server selecting the port");
}

void check(Context& ctx) {
  const analysis::Analysis& a = ctx.analysis();
  const config::LinkerdSettings& settings = a.config.linkerd;
  const policy::AccessClient client = kubelet(settings);
  for (const ld::WorkloadInbound& inbound : a.linkerd.workloads) {
    // Only a workload Linkerd injects has a proxy to refuse anything (pod template or
    // Namespace annotation): the policy controller serves every pod, but nobody asks for it.
    std::optional<graph::Workload> w = graph::workloadOf(*inbound.workload);
    if (!w || !ld::injected(a.store, *inbound.workload, nullptr)) continue;
    std::vector<graph::ContainerPort> containerPorts = graph::containerPorts(w->podSpec);
    for (const graph::HttpProbe& probe : graph::httpProbes(w->podSpec)) {
      std::optional<std::int64_t> number = ld::probePort(probe, containerPorts);
      if (!number) continue;
      const ld::InboundPort* port = nullptr;
      for (const ld::InboundPort& p : inbound.ports)
        if (p.port == *number) port = &p;
      if (!port) continue;
      std::optional<std::string> probed = ld::probePath(probe);
      if (!probed) continue;
      const std::string& path = *probed;
      std::optional<policy::AccessRequest> request = policy::parseAccessRequest("GET " + path);
      if (!request) continue;
      // The decision alone first (most probes pass); the words only for a refusal.
      policy::AccessResult result =
          ld::decideAccess(*port, client, *request, ld::AccessDetail::DecisionOnly);
      // Allowed, or allowed from some probe-network addresses: the kubelet's may be among them.
      if (policy::permitted(result.decision) || !result.condition.empty()) continue;
      result = ld::decideAccess(*port, client, *request);
      const model::Resource& workload = *w->resource;
      std::string what =
          std::string(probe.kind) + " GET " + path + " on port " + std::to_string(port->port);
      model::Finding& f =
          ctx.report(workload.locateField(probe.node, probe.path ? "path" : "port"),
                     "Linkerd's proxy on " + workload.display() + " refuses the kubelet's " + what +
                         ": " + explanation(result, *port, "GET " + path, settings),
                     &workload);
      if (port->server)
        f.related.push_back(
            {port->server->locateField(port->server->metadata(), "name"),
             port->server->display() + " serves port " + std::to_string(port->port)});
      if (result.route && result.route->ref.resource)
        f.related.push_back({result.route->ref.resource->locateField(
                                 result.route->ref.resource->metadata(), "name"),
                             result.route->ref.resource->display() + " matches the probe"});
      f.discriminator = std::string(probe.kind) + " " + std::to_string(port->port) + " " + path;
    }
  }
}

}  // namespace

PG_RULE(LD657, "probe-blocked", "linkerd", Warning,
        "Linkerd's inbound policy refuses a workload's HTTP probe (403 or 404)",
        "Pod,Deployment,StatefulSet,DaemonSet,ReplicaSet,Job,CronJob", check)

}  // namespace pg::rules
