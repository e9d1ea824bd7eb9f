#include <set>

#include "rules/linkerd/linkerd_rules.h"

namespace pg::rules {
namespace {

// Reported once per losing Server and winner, at the loser's port, naming the first workload.
void check(Context& ctx) {
  std::set<std::pair<const model::Resource*, const model::Resource*>> seen;
  for (const policy::linkerd::WorkloadInbound& w : ctx.analysis().linkerd.workloads) {
    for (const policy::linkerd::InboundPort& p : w.ports) {
      for (const model::Resource* loser : p.shadowed) {
        if (linkerdrules::refused(ctx.analysis(), *loser) || !seen.insert({loser, p.server}).second)
          continue;
        bool stamped = !loser->metadata().get("creationTimestamp").str().empty() &&
                       !p.server->metadata().get("creationTimestamp").str().empty();
        std::string why = stamped ? "it is older"
                                  : "without creationTimestamps Linkerd takes the one without, "
                                    "then the first name; in a cluster the first created wins";
        model::Finding& f = ctx.report(
            loser->locateField(loser->spec(), "port"),
            loser->display() + " also selects port " + std::to_string(p.port) + " of " +
                w.workload->display() + ", but " + p.server->display() + " serves it: " + why +
                "; only one Server applies to a port: make their podSelectors or ports "
                "disjoint, or delete one",
            loser);
        f.related.push_back({p.server->locateField(p.server->spec(), "port"),
                             p.server->display() + " serves the port"});
        f.discriminator = std::string(p.server->name);
      }
    }
  }
}

}  // namespace

PG_RULE(LD651, "server-shadowed", "linkerd", Warning,
        "Two Linkerd Servers select the same port of a workload: the older one applies, the "
        "other is ignored there",
        "Server", check)

}  // namespace pg::rules
