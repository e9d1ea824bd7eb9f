#include <set>

#include "rules/linkerd/linkerd_rules.h"

namespace pg::rules {
namespace {

void check(Context& ctx) {
  const policy::linkerd::LinkerdModel& model = ctx.analysis().linkerd;
  std::set<const model::Resource*> selectsPod, selectsPort;
  for (const policy::linkerd::WorkloadInbound& w : model.workloads) {
    selectsPod.insert(w.selectedBy.begin(), w.selectedBy.end());
    for (const policy::linkerd::InboundPort& p : w.ports) {
      if (p.server) selectsPort.insert(p.server);
      selectsPort.insert(p.shadowed.begin(), p.shadowed.end());
    }
  }
  for (const model::Resource* r : ctx.store().ofKind(policy::linkerd::kPolicyGroup, "Server")) {
    yaml::NodeRef spec = r->spec();
    if (!spec.get("podSelector")) continue;  // external workloads are out of scope
    if (linkerdrules::refused(ctx.analysis(), *r)) continue;
    if (!selectsPod.count(r)) {
      ctx.report(r->locateField(spec, "podSelector"),
                 r->display() +
                     " selects no Pod or pod template of its namespace in the input: it "
                     "applies to nothing; fix podSelector's labels, or add the workload",
                 r);
    } else if (!selectsPort.count(r)) {
      ctx.report(r->locateField(spec, "port"),
                 r->display() + " selects workloads, but none has a TCP container port named " +
                     std::string(spec.get("port").str()) +
                     ": it applies to no port; name a port the containers declare, or use "
                     "the port number",
                 r);
    }
  }
}

}  // namespace

PG_RULE(LD650, "server-selects-nothing", "linkerd", Warning,
        "A Linkerd Server selects no workload of the input, or no port of the workloads it "
        "selects",
        "Server", check)

}  // namespace pg::rules
