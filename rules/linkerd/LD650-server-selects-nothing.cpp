#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "lib/graph/workloads.h"
#include "lib/model/selector.h"
#include "rules/linkerd/linkerd_rules.h"

namespace pg::rules {
namespace {

void check(Context& ctx) {
  const policy::linkerd::LinkerdModel& model = ctx.analysis().linkerd;
  std::set<const model::Resource*> selectsPod, selectsPort;
  std::set<std::string_view> runsWorkloads;  // namespaces the unit runs a workload in
  for (const policy::linkerd::WorkloadInbound& w : model.workloads) {
    runsWorkloads.insert(w.workload->namespace_);
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
      model::LabelSelector::Error error;
      const std::optional<model::LabelSelector> selector =
          model::LabelSelector::parse(spec.get("podSelector"), &error);
      // A workload written into another namespace that it would select: the Server is in the
      // wrong one. (One whose namespace is not written goes wherever it is applied, the
      // Server's namespace as well as any.)
      std::string elsewhere;
      if (selector && !selector->matchesEverything())
        for (const policy::linkerd::WorkloadInbound& w : model.workloads) {
          if (!w.workload->namespaceWritten) continue;
          std::optional<graph::Workload> pod = graph::workloadOf(*w.workload);
          if (pod && selector->matches(pod->labels)) {
            elsewhere = w.workload->display();
            break;
          }
        }
      model::Finding& f = ctx.report(
          r->locateField(spec, "podSelector"),
          r->display() + " selects no Pod or pod template of its namespace in the input: it " +
              (elsewhere.empty()
                   ? std::string("applies to nothing; fix podSelector's labels, or add the "
                                 "workload")
                   : "applies to nothing, while " + elsewhere +
                         " of another namespace has the labels; a Server selects the pods of "
                         "its own namespace only: move it to the workload's namespace"),
          r);
      // A namespace the unit runs nothing in: its workloads are deployed elsewhere (another
      // repository, a chart, the docs' own manifests), and nothing here says they lack the
      // labels.
      if (elsewhere.empty() && selector && !runsWorkloads.count(r->namespace_))
        f.missing = model::Missing{"", "Pod", std::string(r->namespace_), "", selector->str()};
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
