#include <algorithm>
#include <map>
#include <set>

#include "lib/graph/workloads.h"
#include "rules/linkerd/linkerd_rules.h"

namespace pg::rules {
namespace {

// Whether Linkerd denies every request on the port but the kubelet's probes: no authorization on
// the port, none on any route other than the probe route.
bool deniesAll(const policy::linkerd::InboundPort& p) {
  if (!p.authorizations.empty()) return false;
  for (const auto* routes : {&p.httpRoutes, &p.grpcRoutes})
    for (const policy::linkerd::InboundRoute& r : *routes)
      if (!r.authorizations.empty() && !(r.isDefault() && r.name == "probe")) return false;
  return true;
}

void check(Context& ctx) {
  const analysis::Analysis& a = ctx.analysis();
  // Only a workload with a port that denies everything can give a finding: the Services of
  // the others are never matched against them (most repositories have no such port).
  std::map<std::string_view, std::vector<graph::Workload>> byNamespace;
  for (graph::Workload& w : graph::collectWorkloads(a.store)) {
    const policy::linkerd::WorkloadInbound* inbound = a.linkerd.inboundOf(w.resource);
    if (inbound && std::any_of(inbound->ports.begin(), inbound->ports.end(), deniesAll))
      byNamespace[w.namespace_].push_back(std::move(w));
  }
  std::set<std::pair<const yaml::Tree*, std::uint32_t>> reported;  // one finding a Service port
  for (const model::Resource* service : a.store.ofKind("", "Service")) {
    auto here = byNamespace.find(service->namespace_);
    if (here == byNamespace.end()) continue;
    for (const graph::Workload& w : here->second) {
      if (!graph::serviceSelects(*service, w)) continue;
      const policy::linkerd::WorkloadInbound* inbound = a.linkerd.inboundOf(w.resource);
      if (!inbound) continue;
      for (yaml::NodeRef sp : service->spec().get("ports").items()) {
        std::optional<std::int64_t> target = graph::serviceTargetPort(sp, w.podSpec);
        if (!target) continue;
        for (const policy::linkerd::InboundPort& p : inbound->ports) {
          if (p.port != *target || !deniesAll(p)) continue;
          if (!reported.insert({sp.tree(), sp.index()}).second) continue;
          std::string server = p.server ? "Server " + std::string(p.server->display()) +
                                              ", which no authorization names"
                                        : "the default policy " + p.serverName;
          model::Finding& f = ctx.report(
              service->locateField(sp, sp.get("targetPort") ? "targetPort" : "port"),
              "Linkerd denies every request " + service->display() + " sends to port " +
                  std::to_string(p.port) + " of " + w.resource->display() + ": " + server +
                  "; authorize its clients with an AuthorizationPolicy on the Server, or "
                  "change the default policy",
              service);
          if (p.server)
            f.related.push_back({p.server->locateField(p.server->metadata(), "name"),
                                 p.server->display() + " has no authorization"});
          f.discriminator = "port " + std::to_string(p.port);
        }
      }
    }
  }
}

}  // namespace

PG_RULE(LD655, "service-port-denied", "linkerd", Warning,
        "A Service sends traffic to a workload port where Linkerd denies every request", "Service",
        check)

}  // namespace pg::rules
