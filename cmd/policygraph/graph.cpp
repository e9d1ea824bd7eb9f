#include "cmd/policygraph/graph.h"

#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cmd/policygraph/cli.h"
#include "cmd/policygraph/common.h"
#include "cmd/policygraph/refs.h"
#include "lib/model/ascii.h"
#include "lib/model/object_ref.h"
#include "lib/report/graph.h"

namespace pg::cli {

namespace {

// Why --focus REF matched nothing, and what the user could have meant.
std::string focusError(const std::string& ref, const report::Graph& graph,
                       const analysis::Analysis& a) {
  std::string kind = ref.substr(0, ref.find('/'));
  std::string message = "--focus " + ref + " names nothing in the graph";
  std::vector<std::string> refs = report::graphRefs(graph, kind);
  if (!refs.empty()) {
    // A long list helps nobody in a terminal; the first ones show the expected spelling.
    constexpr std::size_t kListed = 20;
    message += "; " + kind + " objects in it: ";
    for (std::size_t i = 0; i < refs.size() && i < kListed; ++i)
      message += (i ? ", " : "") + refs[i];
    if (refs.size() > kListed) message += " and " + std::to_string(refs.size() - kListed) + " more";
    return message;
  }
  message += ", which has no " + kind + " objects";
  // Kinds are matched exactly; a wrong case is the likeliest slip.
  for (const report::GraphNode& n : graph.nodes)
    if (n.kind != kind && pg::model::equalsIgnoringCase(n.kind, kind) &&
        n.role != report::GraphRole::Listener && n.role != report::GraphRole::Rule)
      return message + " (kinds are case-sensitive: " + n.kind + ")";
  if (!a.store.ofKind(kind).empty())
    message +=
        " (it draws GatewayClasses, Gateways, ListenerSets, routes, the Services they use and "
        "the policies on them; Kuma meshes, services, proxies, MeshGateways and policies; "
        "Linkerd Servers, the workloads they serve, their routes and authorizations)";
  return message;
}

}  // namespace

void addGraphCommand(CLI::App& app, int& exitCode) {
  struct Options {
    InputOptions inputs;
    std::string format = "dot";
    std::string focus;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "graph",
      "Draw the topology: which routes attach to which listener, which do not and why; the "
      "policies on them; Kuma meshes and Linkerd Servers with what they serve");
  addInputOptions(*cmd, o->inputs);
  cmd->add_option("--format", o->format, "dot, mermaid or json (default: dot)")
      ->check(CLI::IsMember({"dot", "mermaid", "json"}));
  cmd->add_option("--focus", o->focus,
                  "Draw only REF (Kind/namespace/name or Kind/name) and the objects above and "
                  "below it");
  cmd->callback([o, &exitCode] {
    std::string kind, namespace_, name;
    // Checked before the input is read: a typo should not wait for a large repository.
    if (!o->focus.empty() && !model::parseDisplayRef(o->focus, kind, namespace_, name))
      throw UsageError("--focus wants Kind/namespace/name or Kind/name, not " + o->focus);
    UnitHolds holds;
    if (!o->focus.empty())
      holds = [&](const analysis::Analysis& unit) {
        return holdsRef(unit, kind, namespace_, name);
      };
    const analysis::Analysis& a = analyzeOneUnit(o->inputs, "graph", holds);
    report::Graph graph = report::buildGraph(a);
    if (!o->focus.empty() && !report::focusGraph(graph, o->focus))
      throw UsageError(focusError(o->focus, graph, a));
    if (o->format == "mermaid") {
      // Within what GitHub renders, or said why not; --focus narrows instead of folding.
      if (std::string folded = report::foldGraph(graph); !folded.empty())
        std::cerr << "policygraph: note: " << folded << '\n';
      report::writeGraphMermaid(std::cout, graph);
    } else if (o->format == "json")
      report::writeGraphJson(std::cout, graph);
    else
      report::writeGraphDot(std::cout, graph);
    exitCode = kClean;
  });
}

}  // namespace pg::cli
