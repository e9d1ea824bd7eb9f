// `policygraph graph`: the topology drawn so that a person sees at a glance which routes hang on
// which listener, which did not attach and why, and where their backends lead.
//
// The topology is first turned into a small drawing model (nodes, edges, statuses), and the
// writers for DOT, Mermaid and JSON only render that model. Focusing, styling and any future
// kind of node (policies) therefore live in one place: buildGraph() adds the nodes and edges,
// and each writer maps a node's Role and status to its look.
#pragma once

#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "lib/analysis/analysis.h"

namespace pg::report {

// What a node stands for, which decides its shape.
enum class GraphRole : std::uint8_t {
  GatewayClass,
  Gateway,  // a Gateway or a ListenerSet
  Listener,
  Route,
  Rule,
  Backend,      // the target of a backendRef: one node per object and port
  MeshService,  // a Service that GAMMA routes attach to; a Kuma MeshService or external service
  Policy,       // a policy (profiled, Kuma or Linkerd) or authentication; edges go to its targets
  Mesh,         // a Kuma Mesh, or a Namespace a Linkerd AuthorizationPolicy targets whole
  Workload,     // a Kuma proxy (Dataplane, or the one derived from a workload), a Linkerd workload
  Server,       // a Linkerd Server: the port of the workloads it selects
};

// Node statuses, as the JSON `status` field spells them.
namespace graph_status {
inline constexpr std::string_view kOk = "ok";
// Not accepted: a route no parent accepted, a listener or Gateway that is not accepted.
inline constexpr std::string_view kRejected = "rejected";
// A route accepted by some of its parents and not by others.
inline constexpr std::string_view kPartial = "partial";
// Attached, but a backendRef does not resolve; or a backend of an unsupported kind.
inline constexpr std::string_view kUnresolved = "unresolved";
// Referenced but not in the input (a parent, a GatewayClass, a Service or one of its ports).
inline constexpr std::string_view kMissing = "missing";
// No simulated controller writes its status (another controller's Gateway, and its routes).
inline constexpr std::string_view kUnmanaged = "unmanaged";
}  // namespace graph_status

struct GraphNode {
  std::string id;  // stable for the same object; only [A-Za-z0-9_], starts with a letter
  GraphRole role = GraphRole::Route;
  std::string kind;        // the Kubernetes kind; "Listener" and "Rule" for the parts of one
  std::string namespace_;  // "" when cluster-scoped; listeners and rules: their object's
  std::string name;        // listeners and rules: their own name ("" for an unnamed rule)
  std::string label;       // lines separated by '\n'
  std::string status = std::string(graph_status::kOk);
  // What `--focus` matches: `Kind/namespace/name`, or `Kind/name` when cluster-scoped. Every
  // port of a backend Service shares the Service's ref; a listener is `Gateway/ns/name#listener`
  // and a named rule `HTTPRoute/ns/name#rule`; an unnamed rule has none.
  std::string ref;
  // Drawn with a thick outline: what a diff changed.
  bool highlighted = false;
};

// Edge kinds, as the JSON `kind` field spells them. Edges point from the parent to the child
// (the way traffic flows), except the three kinds that describe a reference that failed or is
// not simulated (kRejected, kMissing, kUnsimulated): they point from the object holding the
// reference (the route, the Gateway) to what it names, as the reference does.
namespace graph_edge {
inline constexpr std::string_view kClass = "class";               // GatewayClass -> Gateway
inline constexpr std::string_view kListenerSet = "listener-set";  // Gateway -> ListenerSet
inline constexpr std::string_view kListener = "listener";         // Gateway -> listener
inline constexpr std::string_view kAttached = "attached";         // listener -> route
inline constexpr std::string_view kMesh = "mesh";                 // Service -> GAMMA route
inline constexpr std::string_view kRule = "rule";                 // route -> rule
inline constexpr std::string_view kBackend = "backend";           // rule -> backend
inline constexpr std::string_view kRejected = "rejected";         // route -> listener or Gateway
inline constexpr std::string_view kMissing = "missing";           // referrer -> missing object
inline constexpr std::string_view kUnsimulated = "unsimulated";   // route -> unmanaged Gateway
inline constexpr std::string_view kPolicy = "policy";             // policy -> its target
// Kuma.
inline constexpr std::string_view kMember = "member";      // Mesh -> service, proxy, MeshGateway
inline constexpr std::string_view kEndpoint = "endpoint";  // MeshService -> a proxy implementing it
inline constexpr std::string_view kTo = "to";              // policy -> a `to` item's target
inline constexpr std::string_view kFrom = "from";          // policy -> a `from` item's source
inline constexpr std::string_view kGatewayRoute = "gateway-route";  // MeshGateway -> route on it
inline constexpr std::string_view kGatewayProxy = "gateway-proxy";  // MeshGateway -> its proxy
// Linkerd. A route names its Server parent and a policy the authentications it requires, so
// those two point from the referrer to what it names (upward: the Server and the authentication
// are drawn as parents, and --focus on a Server keeps its routes).
inline constexpr std::string_view kServes = "serves";  // Server -> workload (the ports, as detail)
inline constexpr std::string_view kServerParent = "server-parent";  // route -> its Server parent
inline constexpr std::string_view kRequires = "requires";  // policy -> authentication it needs
}  // namespace graph_edge

struct GraphEdge {
  std::string from;  // node ids
  std::string to;
  std::string kind;
  bool ok = true;
  std::string reason;  // the upstream reason when !ok (NotAllowedByListeners, BackendNotFound)
  std::string detail;  // more words for people (the sectionName nobody has); not in JSON
  // The edge runs from child to parent (see graph_edge): drawings flip it so that parents stay
  // left of their children, and --focus walks it the other way.
  bool upward = false;
};

struct Graph {
  std::vector<GraphNode> nodes;  // deterministic: store order, parents before children
  std::vector<GraphEdge> edges;
};

Graph buildGraph(const analysis::Analysis& analysis);

// GitHub renders a Mermaid diagram of at most 500 edges and 50,000 characters. When the
// Mermaid text of `graph` exceeds either, folds it into one node per namespace (and one per
// kind of cluster-scoped object), each with the worst status of its members, and the edges
// between groups once each; returns what it did, for the user, or "" when it fit.
std::string foldGraph(Graph& graph, std::size_t maxEdges = 500, std::size_t maxBytes = 50000);

// Keeps the nodes whose ref is `ref` and everything connected to them through parents
// (ancestors) or children (descendants), and the edges between kept nodes. Returns false,
// leaving the graph untouched, when no node has that ref.
bool focusGraph(Graph& graph, std::string_view ref);
// The same around several refs at once, keeping descendants only down to `childDepth` edges
// from them; false when none of them names a node.
bool focusGraph(Graph& graph, const std::vector<std::string>& refs,
                std::size_t childDepth = std::numeric_limits<std::size_t>::max());

// The distinct refs of the nodes of `kind` that are in the input (not missing), in graph order,
// for error messages.
std::vector<std::string> graphRefs(const Graph& graph, std::string_view kind);

void writeGraphDot(std::ostream& out, const Graph& graph);
void writeGraphMermaid(std::ostream& out, const Graph& graph);
void writeGraphJson(std::ostream& out, const Graph& graph);

}  // namespace pg::report
