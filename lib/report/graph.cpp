// `policygraph graph`: builds the drawing model from the topology, focuses it, and writes it as
// Graphviz DOT, Mermaid or JSON.
#include "lib/report/graph.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <deque>
#include <initializer_list>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "lib/policy/kuma/kuma.h"

namespace pg::report {

namespace {

namespace st = graph_status;
namespace ek = graph_edge;

std::string displayRef(std::string_view kind, std::string_view namespace_, std::string_view name) {
  model::ObjectRef ref{"", std::string(kind), std::string(namespace_), std::string(name), ""};
  return ref.display();
}

// `namespace/name`, or `name` when cluster-scoped: labels name objects the way people do.
std::string qualified(std::string_view namespace_, std::string_view name) {
  if (namespace_.empty()) return std::string(name);
  return std::string(namespace_) + "/" + std::string(name);
}

// A node id readable in the DOT and Mermaid source: `prefix_part_part` in lower case, with every
// byte but letters and digits replaced by '_'. Kubernetes names only hold [a-z0-9.-], so
// collisions are rare; Builder settles them with a suffix. The prefixes are fixed words, so an id
// never starts with a digit or the `o`/`x` Mermaid reads as an arrow end, and never is a Mermaid
// keyword such as `end`.
void appendIdPart(std::string& id, std::string_view part) {
  for (char c : part) {
    // Not std::isalnum or std::tolower: they depend on the locale, and ids must not.
    if (c >= 'A' && c <= 'Z')
      id += static_cast<char>(c - 'A' + 'a');
    else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
      id += c;
    else
      id += '_';
  }
}

std::string readableId(std::string_view prefix, std::initializer_list<std::string_view> parts) {
  std::string id;
  appendIdPart(id, prefix);
  for (std::string_view part : parts) {
    if (part.empty()) continue;  // a cluster-scoped object's namespace, a backend without port
    id += '_';
    appendIdPart(id, part);
  }
  return id;
}

// The text after a listener's description in a rejection message ("listener https (HTTPS port
// 443) does not admit routes from namespace payments"): the listener is the edge's end already.
std::string rejectionDetail(const std::string& message) {
  std::size_t end = message.find(") ");
  return end == std::string::npos ? message : message.substr(end + 2);
}

const graph::Condition* findCondition(const std::vector<graph::Condition>& conditions,
                                      std::string_view type) {
  for (const graph::Condition& c : conditions)
    if (c.type == type) return &c;
  return nullptr;
}

// Whether a parentRef names a kind the topology attaches routes to; a parentRef of another
// kind is not simulated, so it is not drawn (mirrors lib/graph/topology.cpp, buildRoute).
bool simulatedParentKind(const graph::ParentRef& ref) {
  return (ref.group == graph::kGatewayGroup &&
          (ref.kind == "Gateway" || ref.kind == "ListenerSet")) ||
         (ref.group == "gateway.networking.x-k8s.io" && ref.kind == "XListenerSet") ||
         (ref.group.empty() && ref.kind == "Service");
}

// Turns the topology into nodes and edges. One add* function per layer of the hierarchy; each
// creates its nodes through node(), which gives every object one node and one stable id.
class Builder {
 public:
  explicit Builder(const analysis::Analysis& analysis) : a_(analysis) {}

  Graph build() {
    for (const model::Resource* r : a_.store.ofKind(graph::kGatewayGroup, "GatewayClass"))
      addGatewayClass(*r);
    for (const graph::Gateway& g : a_.topology.gateways) addGateway(g);
    for (const graph::Route& r : a_.topology.routes) addRoute(r);
    for (const policy::Policy& p : a_.policies.policies) addPolicy(p);
    addKuma();
    addLinkerd();
    return std::move(graph_);
  }

 private:
  // The node of `identity`; `make` fills it the first time. Returns its index: nodes move as
  // the vector grows.
  template <typename Make>
  std::size_t node(const std::string& identity, std::string readable, Make make) {
    auto [it, inserted] = byIdentity_.try_emplace(identity, graph_.nodes.size());
    if (!inserted) return it->second;
    GraphNode n;
    n.id = readable;
    for (int suffix = 2; !ids_.insert(n.id).second; ++suffix)
      n.id = readable + "_" + std::to_string(suffix);
    make(n);
    graph_.nodes.push_back(std::move(n));
    return it->second;
  }

  const std::string& idOf(std::size_t index) const { return graph_.nodes[index].id; }

  // Adds an edge once: two parentRefs to the same Gateway must not draw two identical lines.
  void edge(std::size_t from, std::size_t to, std::string_view kind, bool ok = true,
            std::string reason = {}, std::string detail = {}, bool upward = false) {
    if (!edgesSeen_.emplace(from, to, std::string(kind), reason).second) return;
    graph_.edges.push_back({idOf(from), idOf(to), std::string(kind), ok, std::move(reason),
                            std::move(detail), upward});
  }

  static std::string objectKey(std::string_view kind, std::string_view namespace_,
                               std::string_view name) {
    return "object\x1f" + std::string(kind) + '\x1f' + std::string(namespace_) + '\x1f' +
           std::string(name);
  }

  // A node for something a reference names but the input lacks.
  std::size_t missingNode(std::string_view kind, std::string_view namespace_, std::string_view name,
                          GraphRole role) {
    return node(objectKey(kind, namespace_, name), readableId("missing", {kind, namespace_, name}),
                [&](GraphNode& n) {
                  n.role = role;
                  n.kind = kind;
                  n.namespace_ = namespace_;
                  n.name = name;
                  // In the input but refused by the API server (schema validation).
                  bool refused = a_.store.refusalByKind(kind, namespace_, name) != nullptr;
                  n.label = std::string(kind) + " " + qualified(namespace_, name) +
                            (refused ? "\nnot applied (fails schema validation)" : "\nnot found");
                  n.status = st::kMissing;
                  n.ref = displayRef(kind, namespace_, name);
                });
  }

  std::size_t addGatewayClass(const model::Resource& r) {
    return node(objectKey(r.kind, "", r.name), readableId("gatewayclass", {r.name}),
                [&](GraphNode& n) {
                  n.role = GraphRole::GatewayClass;
                  n.kind = r.kind;
                  n.name = r.name;
                  n.label = "GatewayClass " + std::string(r.name);
                  std::string_view controller = r.spec().get("controllerName").str();
                  if (!controller.empty()) n.label += "\n" + std::string(controller);
                  n.ref = displayRef(r.kind, "", r.name);
                });
  }

  std::size_t gatewayNode(const graph::Gateway& g) {
    const model::Resource& r = *g.resource;
    return node(objectKey(r.kind, r.namespace_, r.name),
                readableId(g.isListenerSet() ? "listenerset" : "gateway", {r.namespace_, r.name}),
                [&](GraphNode& n) {
                  n.role = GraphRole::Gateway;
                  n.kind = r.kind;
                  n.namespace_ = r.namespace_;
                  n.name = r.name;
                  n.label = std::string(r.kind) + " " + qualified(r.namespace_, r.name);
                  n.ref = displayRef(r.kind, r.namespace_, r.name);
                  const graph::Condition* accepted = findCondition(g.conditions, "Accepted");
                  if (!g.managed) {
                    n.status = st::kUnmanaged;
                  } else if (accepted && accepted->status != "True") {
                    n.status = st::kRejected;
                    n.label += "\n" + accepted->reason;
                  }
                });
  }

  std::size_t listenerNode(const graph::Listener& l) {
    const graph::Gateway& g = *l.gateway;
    const model::Resource& r = *g.resource;
    return node("listener\x1f" + std::string(r.kind) + '\x1f' + std::string(r.namespace_) + '\x1f' +
                    std::string(r.name) + '\x1f' + std::to_string(l.index),
                readableId("listener", {r.namespace_, r.name, l.name}), [&](GraphNode& n) {
                  n.role = GraphRole::Listener;
                  n.kind = "Listener";
                  n.namespace_ = r.namespace_;
                  n.name = l.name;
                  n.ref = displayRef(r.kind, r.namespace_, r.name) + "#" + std::string(l.name);
                  n.label = std::string(l.name) + "\n" + std::string(l.protocol) + " :" +
                            std::to_string(l.port);
                  if (!l.hostname.empty()) n.label += " " + std::string(l.hostname);
                  if (!g.managed) {
                    n.status = st::kUnmanaged;
                    return;  // nobody counts its routes
                  }
                  n.label += "\nattachedRoutes: " + std::to_string(l.attachedRoutes);
                  const graph::Condition* accepted = findCondition(l.conditions, "Accepted");
                  const graph::Condition* refs = findCondition(l.conditions, "ResolvedRefs");
                  if (!l.accepted || (accepted && accepted->status != "True")) {
                    n.status = st::kRejected;
                    // A ListenerSet the Gateway does not allow leaves its listeners' own
                    // conditions Accepted: the reason is the set's.
                    const graph::Condition* set = findCondition(g.conditions, "Accepted");
                    n.label += "\n" + (accepted && accepted->status != "True" ? accepted->reason
                                       : set                                  ? set->reason
                                                                              : "NotAccepted");
                  } else if (refs && refs->status != "True") {
                    n.status = st::kUnresolved;
                    n.label += "\n" + refs->reason;
                  }
                });
  }

  void addGateway(const graph::Gateway& g) {
    const model::Resource& r = *g.resource;
    std::size_t self = gatewayNode(g);
    if (g.isListenerSet()) {
      if (g.parent) {
        const graph::Condition* accepted = findCondition(g.conditions, "Accepted");
        bool ok = !accepted || accepted->status == "True";
        edge(gatewayNode(*g.parent), self, ek::kListenerSet, ok, ok ? "" : accepted->reason);
      } else {
        yaml::NodeRef ref = r.spec().get("parentRef");
        yaml::NodeRef ns = ref.get("namespace");
        std::size_t missing = missingNode("Gateway", ns ? ns.str() : r.namespace_,
                                          ref.get("name").str(), GraphRole::Gateway);
        edge(self, missing, ek::kMissing, false, "NotFound", {}, true);
      }
    } else if (g.gatewayClass) {
      edge(addGatewayClass(*g.gatewayClass), self, ek::kClass);
    } else if (g.classOrigin == graph::ClassOrigin::Missing) {
      // Classes declared, well known or assumed exist outside the input: no node for them.
      std::size_t missing = missingNode("GatewayClass", "", g.className, GraphRole::GatewayClass);
      edge(self, missing, ek::kMissing, false, "NotFound", {}, true);
    }
    for (const graph::Listener& l : g.listeners) edge(self, listenerNode(l), ek::kListener);
  }

  std::size_t routeNode(const graph::Route& route) {
    const model::Resource& r = *route.resource;
    std::string kind(r.kind);
    // Route kinds are a fixed list (HTTPRoute ... UDPRoute), so their names make safe prefixes.
    return node(objectKey(r.kind, r.namespace_, r.name),
                readableId(graph::routeKindName(route.kind), {r.namespace_, r.name}),
                [&](GraphNode& n) {
                  n.role = GraphRole::Route;
                  n.kind = kind;
                  n.namespace_ = r.namespace_;
                  n.name = r.name;
                  n.label = kind + " " + qualified(r.namespace_, r.name);
                  // Hostnames explain NoMatchingListenerHostname; a long list is cut short.
                  constexpr std::size_t kShown = 3;
                  for (std::size_t i = 0; i < route.hostnames.size() && i < kShown; ++i)
                    n.label += (i ? ", " : "\n") + std::string(route.hostnames[i]);
                  if (route.hostnames.size() > kShown)
                    n.label += " +" + std::to_string(route.hostnames.size() - kShown);
                  n.ref = displayRef(r.kind, r.namespace_, r.name);
                });
  }

  // How the parentRefs came out: the route's status sums them up.
  struct Attachment {
    std::size_t accepted = 0;
    std::size_t failed = 0;     // rejected, or the parent is missing
    std::size_t unmanaged = 0;  // another controller's Gateway: nobody here decides
  };

  void addParent(const graph::Route& route, const graph::RouteParent& p, std::size_t self,
                 Attachment& result) {
    const graph::ParentRef& ref = p.ref;
    if (p.gateway) {
      const graph::Gateway& g = *p.gateway;
      if (!g.managed) {
        ++result.unmanaged;
        edge(self, gatewayNode(g), ek::kUnsimulated, true, {}, "not simulated", true);
        return;
      }
      if (p.accepted()) {
        ++result.accepted;
        for (const graph::Listener* l : p.listeners) edge(listenerNode(*l), self, ek::kAttached);
        return;
      }
      ++result.failed;
      const graph::Condition* accepted = findCondition(p.conditions, "Accepted");
      std::string reason = accepted ? accepted->reason : "NoMatchingParent";
      std::string message = accepted ? accepted->message : "";
      if (!p.listeners.empty()) {
        // Listeners took the route but the route itself is refused (an invalid rule): the
        // route's reason, on the listeners that would carry it. Other listeners' rejections
        // are beside the point, as they are for an accepted parentRef.
        for (const graph::Listener* l : p.listeners)
          edge(self, listenerNode(*l), ek::kRejected, false, reason, message, true);
      } else if (!p.rejections.empty()) {
        for (const graph::ListenerRejection& rejection : p.rejections)
          edge(self, listenerNode(*rejection.listener), ek::kRejected, false, rejection.reason,
               rejectionDetail(rejection.message), true);
      } else {
        // No listener matches sectionName or port: the Gateway as a whole refuses.
        edge(self, gatewayNode(g), ek::kRejected, false, reason, message, true);
      }
      return;
    }
    if (p.service) {
      ++result.accepted;
      std::size_t service = meshServiceNode(ref.namespace_, ref.name, st::kOk);
      std::string detail = route.meshProducer(p) ? "producer" : "consumer";
      if (ref.port) detail += " :" + std::to_string(*ref.port);
      edge(service, self, ek::kMesh, true, {}, std::move(detail));
      return;
    }
    if (!simulatedParentKind(ref)) return;  // another kind of parent: not simulated
    ++result.failed;
    // A missing Service gets a condition from the mesh controller; a missing Gateway gets none
    // (no controller knows the parent is its own), so its reason is ours.
    const graph::Condition* accepted = findCondition(p.conditions, "Accepted");
    std::size_t missing = ref.kind == "Service"
                              ? meshServiceNode(ref.namespace_, ref.name, st::kMissing)
                              : missingNode(ref.kind, ref.namespace_, ref.name, GraphRole::Gateway);
    edge(self, missing, ek::kMissing, false, accepted ? accepted->reason : "NotFound", {}, true);
  }

  std::size_t meshServiceNode(std::string_view namespace_, std::string_view name,
                              std::string_view status) {
    return node("service\x1f" + std::string(namespace_) + '\x1f' + std::string(name),
                readableId("service", {namespace_, name}), [&](GraphNode& n) {
                  n.role = GraphRole::MeshService;
                  n.kind = "Service";
                  n.namespace_ = namespace_;
                  n.name = name;
                  n.label = "Service " + qualified(namespace_, name);
                  if (status == st::kMissing) n.label += "\nnot found";
                  n.status = status;
                  n.ref = displayRef("Service", namespace_, name);
                });
  }

  // The status of a backend node: a property of the object and port, the same for every
  // route that names it, except RefNotPermitted, which is about the route.
  std::string_view backendStatus(const graph::BackendRef& b) const {
    if (b.reason == "InvalidKind") return st::kUnresolved;
    if (b.reason == "BackendNotFound") {
      // Without a port a Service backend is incomplete, not missing.
      if (b.target && b.group.empty() && b.kind == "Service" && !b.port) return st::kUnresolved;
      return st::kMissing;
    }
    if (b.reason == "RefNotPermitted" && !a_.store.find(b.group, b.kind, b.namespace_, b.name))
      return st::kMissing;
    return st::kOk;
  }

  std::size_t backendNode(const graph::BackendRef& b) {
    std::string port = b.port ? std::to_string(*b.port) : "";
    std::string_view status = backendStatus(b);
    std::size_t index =
        node("backend\x1f" + b.group + '\x1f' + b.kind + '\x1f' + b.namespace_ + '\x1f' + b.name +
                 '\x1f' + port,
             readableId("backend", {b.kind, b.namespace_, b.name, port}), [&](GraphNode& n) {
               n.role = GraphRole::Backend;
               n.kind = b.kind;
               n.namespace_ = b.namespace_;
               n.name = b.name;
               n.ref = displayRef(b.kind, b.namespace_, b.name);
             });
    GraphNode& n = graph_.nodes[index];
    // RefNotPermitted stops resolution before the port is checked: another route's
    // BackendNotFound may know better.
    if (n.label.empty() || (n.status == st::kOk && status != st::kOk)) {
      n.status = status;
      n.label = b.kind + " " + qualified(b.namespace_, b.name) + (port.empty() ? "" : ":" + port);
      if (status == st::kMissing)
        n.label += b.target ? "\nno port " + port
                   : a_.store.refusal(b.group, b.kind, b.namespace_, b.name)
                       ? "\nnot applied (fails schema validation)"
                       : "\nnot found";
      else if (b.reason == "InvalidKind")
        n.label += "\nunsupported kind";
      else if (status == st::kUnresolved)
        n.label += "\nno port given";
    }
    return index;
  }

  // Rules with a name or backends, and their backends. Returns whether every backend resolves.
  bool addRules(const graph::Route& route, std::size_t self) {
    const model::Resource& r = *route.resource;
    bool resolved = true;
    for (const graph::RouteRule& rule : route.rules) {
      if (rule.name.empty() && rule.backends.empty()) continue;
      std::string index = std::to_string(rule.index);
      std::size_t ruleIndex = node(
          "rule\x1f" + std::string(r.kind) + '\x1f' + std::string(r.namespace_) + '\x1f' +
              std::string(r.name) + '\x1f' + index,
          readableId("rule", {r.kind, r.namespace_, r.name, index}), [&](GraphNode& n) {
            n.role = GraphRole::Rule;
            n.kind = "Rule";
            n.namespace_ = r.namespace_;
            n.name = rule.name;
            n.label = rule.name.empty() ? "rules[" + index + "]" : "rule " + std::string(rule.name);
            if (!rule.name.empty())
              n.ref = displayRef(r.kind, r.namespace_, r.name) + "#" + std::string(rule.name);
          });
      edge(self, ruleIndex, ek::kRule);
      bool ruleResolved = true;
      for (const graph::BackendRef& b : rule.backends) {
        ruleResolved = ruleResolved && b.reason.empty();
        // The backend's node already says "not found" or "no port 8080": the edge carries only
        // the reason, which keeps the labels between rules and backends short.
        edge(ruleIndex, backendNode(b), ek::kBackend, b.reason.empty(), b.reason);
      }
      if (!ruleResolved) graph_.nodes[ruleIndex].status = st::kUnresolved;
      resolved = resolved && ruleResolved;
    }
    return resolved;
  }

  void addRoute(const graph::Route& route) {
    std::size_t self = routeNode(route);
    Attachment attachment;
    for (const graph::RouteParent& p : route.parents) addParent(route, p, self, attachment);
    // Linkerd Servers are parents too: the policy controller writes their status.
    for (const policy::linkerd::ServerParent* p : a_.linkerd.parentsOf(route.resource))
      addServerParent(*p, self, attachment);
    bool resolved = addRules(route, self);
    std::string_view status = st::kOk;
    if (attachment.accepted == 0 && attachment.failed == 0 && attachment.unmanaged > 0)
      status = st::kUnmanaged;
    else if (attachment.accepted == 0)
      status = st::kRejected;  // also a route with no parentRef: it attaches nowhere
    else if (attachment.failed > 0)
      status = st::kPartial;
    else if (!resolved)
      status = st::kUnresolved;
    graph_.nodes[self].status = status;
  }

  static bool rejected(const policy::Policy& p) {
    auto refused = [](const graph::Condition& c) {
      return c.type == "Accepted" && c.status == "False";
    };
    for (const policy::AncestorStatus& a : p.ancestors)
      if (std::any_of(a.conditions.begin(), a.conditions.end(), refused)) return true;
    return std::any_of(p.conditions.begin(), p.conditions.end(), refused);
  }

  // The nodes that stand for a policy's target: a Service has one node per port in use, a
  // listener or named rule its own node; an object the drawing has no node for yet gets one.
  std::vector<std::size_t> targetNodes(const policy::Target& t) {
    std::string ref = t.ref().display();
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < graph_.nodes.size(); ++i)
      if (graph_.nodes[i].ref == ref && graph_.nodes[i].role != GraphRole::Policy) out.push_back(i);
    if (!out.empty() || !t.resource) return out;
    // A Service port by name: the backend node drawn for that port number, when a route uses it.
    if (t.kind == "Service" && !t.sectionName.empty()) {
      for (yaml::NodeRef port : t.resource->spec().get("ports").items()) {
        if (port.get("name").str() != t.sectionName) continue;
        auto it =
            byIdentity_.find("backend\x1f" + t.group + '\x1f' + t.kind + '\x1f' + t.namespace_ +
                             '\x1f' + t.name + '\x1f' + std::string(port.get("port").str()));
        if (it != byIdentity_.end()) return {it->second};
      }
    }
    GraphRole role = t.kind == "GatewayClass"                         ? GraphRole::GatewayClass
                     : t.kind == "Gateway" || t.kind == "ListenerSet" ? GraphRole::Gateway
                     : graph::routeKindOf(t.kind)                     ? GraphRole::Route
                                                                      : GraphRole::Backend;
    out.push_back(node(objectKey(t.kind, t.namespace_, t.name) + '\x1f' + t.sectionName,
                       readableId("target", {t.kind, t.namespace_, t.name, t.sectionName}),
                       [&](GraphNode& n) {
                         n.role = role;
                         n.kind = t.kind;
                         n.namespace_ = t.namespace_;
                         n.name = t.name;
                         n.label = t.kind + " " + qualified(t.namespace_, t.name);
                         if (!t.sectionName.empty()) n.label += "\n" + t.sectionName;
                         n.ref = ref;
                       }));
    return out;
  }

  void addPolicy(const policy::Policy& p) {
    const model::Resource& r = *p.resource;
    bool refused = rejected(p);
    std::size_t self =
        node(objectKey(r.kind, r.namespace_, r.name),
             readableId("policy", {r.kind, r.namespace_, r.name}), [&](GraphNode& n) {
               n.role = GraphRole::Policy;
               n.kind = r.kind;
               n.namespace_ = r.namespace_;
               n.name = r.name;
               n.label = std::string(r.kind) + "\n" + qualified(r.namespace_, r.name);
               n.status = refused ? st::kRejected : st::kOk;
               n.ref = displayRef(r.kind, r.namespace_, r.name);
             });
    for (const policy::Target& t : p.targets) {
      if (t.problem == policy::TargetProblem::NotFound) {
        GraphRole role = graph::routeKindOf(t.kind) ? GraphRole::Route : GraphRole::Backend;
        if (t.kind == "Gateway" || t.kind == "ListenerSet") role = GraphRole::Gateway;
        edge(self, missingNode(t.kind, t.namespace_, t.name, role), ek::kMissing, false, t.reason,
             t.message);
        continue;
      }
      if (t.problem == policy::TargetProblem::SectionNotFound) {
        std::size_t missing =
            node("section\x1f" + t.ref().display(),
                 readableId("missing", {t.kind, t.namespace_, t.name, t.sectionName}),
                 [&](GraphNode& n) {
                   n.role = GraphRole::Listener;
                   n.kind = t.kind;
                   n.namespace_ = t.namespace_;
                   n.name = t.sectionName;
                   n.label = t.kind + " " + qualified(t.namespace_, t.name) + "\n" + t.sectionName +
                             " not found";
                   n.status = st::kMissing;
                   n.ref = t.ref().display();
                 });
        edge(self, missing, ek::kMissing, false, t.reason, t.message);
        continue;
      }
      if (!t.attached()) continue;  // another namespace, a kind it cannot target: lint says
      for (std::size_t target : targetNodes(t))
        edge(self, target, ek::kPolicy, !refused, refused ? "NotAccepted" : "");
    }
  }

  // ---- Kuma: meshes, the services and proxies in them, MeshGateways and every policy. ----

  // The node of an object of the input, drawn under its own kind, namespace and name.
  std::size_t objectNode(const std::string& identity, std::string readable,
                         const model::Resource& r, GraphRole role, std::string label) {
    return node(identity, std::move(readable), [&](GraphNode& n) {
      n.role = role;
      n.kind = r.kind;
      n.namespace_ = r.namespace_;
      n.name = r.name;
      n.label = std::move(label);
      n.ref = displayRef(r.kind, r.namespace_, r.name);
    });
  }

  std::size_t kumaObjectNode(const model::Resource& r, GraphRole role, std::string_view prefix,
                             std::string label) {
    std::size_t index =
        objectNode(objectKey(r.kind, r.namespace_, r.name) + '\x1f' + std::string(r.mesh),
                   readableId(prefix, {r.namespace_, r.name}), r, role, std::move(label));
    kumaNodes_.emplace(&r, index);
    return index;
  }

  // The mesh of a Universal object, whose name is unique in its mesh only.
  static std::string meshLine(const model::Resource& r) {
    return r.universal && !r.mesh.empty() ? "\nmesh " + std::string(r.mesh) : "";
  }

  // What Kuma's control plane makes from a Kubernetes object: the kind Kuma gives it, named and
  // placed as Kuma names it; the label says where it came from.
  std::size_t derivedNode(GraphRole role, std::string_view kind, std::string_view prefix,
                          std::string_view mesh, std::string_view namespace_, std::string_view name,
                          std::string label) {
    return node("kuma-derived\x1f" + std::string(kind) + '\x1f' + std::string(mesh) + '\x1f' +
                    std::string(namespace_) + '\x1f' + std::string(name),
                readableId(prefix, {namespace_, name}), [&](GraphNode& n) {
                  n.role = role;
                  n.kind = kind;
                  n.namespace_ = namespace_;
                  n.name = name;
                  n.label =
                      std::string(kind) + " " + qualified(namespace_, name) + std::move(label);
                  n.ref = displayRef(kind, namespace_, name);
                });
  }

  std::size_t kumaMeshServiceNode(const graph::kuma::MeshService& s) {
    const model::Resource& r = *s.resource;
    if (!s.derived)
      return kumaObjectNode(r, GraphRole::MeshService, "meshservice",
                            "MeshService " + qualified(r.namespace_, r.name) + meshLine(r));
    std::size_t index = derivedNode(GraphRole::MeshService, "MeshService", "meshservice", s.mesh,
                                    s.namespace_, s.name, "\nfrom " + r.display());
    kumaNodes_.emplace(&r, index);  // a `to` item naming it resolves to the Service
    return index;
  }

  std::size_t kumaDataplaneNode(const graph::kuma::Dataplane& dp) {
    if (!dp.derived)
      return kumaObjectNode(
          *dp.resource, GraphRole::Workload, "dataplane",
          "Dataplane " + qualified(dp.resource->namespace_, dp.name) + meshLine(*dp.resource));
    return derivedNode(GraphRole::Workload, "Dataplane", "dataplane", dp.mesh, dp.namespace_,
                       dp.name, "\nproxy of " + dp.resource->display());
  }

  std::optional<std::size_t> meshNodeOf(std::string_view mesh) const {
    const graph::kuma::Mesh* m = a_.kuma.mesh(mesh);
    if (!m) return std::nullopt;
    auto it = kumaNodes_.find(m->resource);
    if (it == kumaNodes_.end()) return std::nullopt;
    return it->second;
  }

  void memberOf(std::string_view mesh, std::size_t member) {
    if (std::optional<std::size_t> m = meshNodeOf(mesh)) edge(*m, member, ek::kMember);
  }

  void addKuma() {
    const graph::kuma::Topology& k = a_.kuma;
    for (const graph::kuma::Mesh& m : k.meshes)
      kumaObjectNode(*m.resource, GraphRole::Mesh, "mesh",
                     "Mesh " + std::string(m.resource->name) +
                         (m.meshServicesMode == "Disabled"
                              ? ""
                              : "\nmeshServices " + std::string(m.meshServicesMode)));
    for (const graph::kuma::MeshGateway& g : k.gateways)
      memberOf(g.resource->mesh,
               kumaObjectNode(*g.resource, GraphRole::Gateway, "meshgateway",
                              "MeshGateway " + qualified(g.resource->namespace_, g.resource->name) +
                                  meshLine(*g.resource)));
    for (const graph::kuma::MeshService& s : k.services) memberOf(s.mesh, kumaMeshServiceNode(s));
    for (std::string_view kind : {"MeshExternalService", "MeshMultiZoneService"})
      for (const model::Resource* r : a_.store.ofKind("kuma.io", kind))
        memberOf(r->mesh, kumaObjectNode(*r, GraphRole::MeshService, kind,
                                         std::string(kind) + " " +
                                             qualified(r->namespace_, r->name) + meshLine(*r)));
    for (const graph::kuma::Dataplane& dp : k.dataplanes) {
      std::size_t self = kumaDataplaneNode(dp);
      memberOf(dp.mesh, self);
      if (const graph::kuma::MeshGateway* g = dp.builtinGateway ? k.gatewayOf(dp) : nullptr)
        if (auto it = kumaNodes_.find(g->resource); it != kumaNodes_.end())
          edge(it->second, self, ek::kGatewayProxy);
    }
    for (const graph::kuma::MeshService& s : k.services) {
      std::size_t self = kumaMeshServiceNode(s);
      for (const graph::kuma::Dataplane* dp : k.selectedBy(s))
        edge(self, kumaDataplaneNode(*dp), ek::kEndpoint);
    }
    // Policies mesh by mesh, in the order the meshes are named.
    std::set<std::string_view> meshes;
    for (const model::Resource& r : a_.store.all())
      if (r.group == "kuma.io" && !r.mesh.empty()) meshes.insert(r.mesh);
    policy::kuma::Settings settings;
    settings.systemNamespace = a_.config.kumaSystemNamespace;
    for (std::string_view mesh : meshes) {
      std::vector<policy::kuma::Policy> policies =
          policy::kuma::readPolicies(a_.store, mesh, settings);
      for (const policy::kuma::Policy& p : policies) kumaPolicyNode(p);
      for (const policy::kuma::Policy& p : policies) addKumaPolicy(p, policies, settings);
    }
  }

  std::size_t kumaPolicyNode(const policy::kuma::Policy& p) {
    const model::Resource& r = *p.resource;
    bool route = p.type == "MeshHTTPRoute" || p.type == "MeshTCPRoute";
    std::size_t index =
        objectNode(objectKey(r.kind, r.namespace_, r.name) + '\x1f' + std::string(r.mesh),
                   readableId("policy", {r.kind, r.namespace_, r.name}), r,
                   route ? GraphRole::Route : GraphRole::Policy,
                   std::string(r.kind) + "\n" + qualified(r.namespace_, r.name) + meshLine(r));
    kumaNodes_.emplace(&r, index);
    return index;
  }

  // The node of an object a Kuma targetRef resolved to; nullopt when the drawing has none.
  std::optional<std::size_t> kumaNodeOf(const model::Resource* r) const {
    auto it = kumaNodes_.find(r);
    if (it == kumaNodes_.end()) return std::nullopt;
    return it->second;
  }

  void kumaMissing(std::size_t self, const policy::kuma::TargetRef& ref, std::string_view kind) {
    GraphRole role = ref.kind == "MeshGateway"     ? GraphRole::Gateway
                     : ref.kind == "MeshHTTPRoute" ? GraphRole::Route
                                                   : GraphRole::MeshService;
    edge(self, missingNode(ref.kind, ref.namespace_, ref.name, role),
         kind == ek::kPolicy ? ek::kMissing : kind, false, "NotFound");
  }

  // Edges to what one targetRef names: the objects it resolves to (with the section).
  void kumaRefEdges(std::size_t self, const policy::kuma::Policy& p,
                    const policy::kuma::TargetRef& ref, std::string_view kind) {
    std::vector<policy::kuma::ResolvedTarget> targets =
        policy::kuma::resolveTo(p, ref, a_.store, a_.kuma);
    bool drawn = false;
    for (const policy::kuma::ResolvedTarget& t : targets)
      if (std::optional<std::size_t> target = kumaNodeOf(t.resource)) {
        edge(self, *target, kind, true, {},
             kind == ek::kPolicy || kind == ek::kBackend
                 ? t.section
                 : std::string(kind) + (t.section.empty() ? "" : " " + t.section));
        drawn = true;
      }
    if (!drawn && ref.kind != "Mesh" && !ref.name.empty()) kumaMissing(self, ref, kind);
  }

  void addKumaPolicy(const policy::kuma::Policy& p, const std::vector<policy::kuma::Policy>& all,
                     const policy::kuma::Settings& settings) {
    std::size_t self = *kumaNodeOf(p.resource);
    const policy::kuma::TargetRef& top = p.top;
    std::string_view mesh = p.resource->mesh;
    bool route = p.type == "MeshHTTPRoute" || p.type == "MeshTCPRoute";
    if (top.kind == "MeshGateway") {
      const graph::kuma::MeshGateway* g = a_.kuma.gateway(mesh, top.name);
      std::optional<std::size_t> gateway = g ? kumaNodeOf(g->resource) : std::nullopt;
      if (!gateway)
        kumaMissing(self, top, ek::kPolicy);
      else if (route)
        edge(*gateway, self, ek::kGatewayRoute);
      else
        edge(self, *gateway, ek::kPolicy);
    } else if (top.kind == "Mesh" || top.kind == "MeshService" ||
               top.kind == "MeshExternalService" || top.kind == "MeshMultiZoneService" ||
               top.kind == "MeshHTTPRoute") {
      kumaRefEdges(self, p, top, ek::kPolicy);
    } else {
      // Dataplane, MeshSubset, MeshServiceSubset: the proxies the targetRef selects.
      for (const graph::kuma::Dataplane& dp : a_.kuma.dataplanes) {
        if (dp.mesh != mesh) continue;
        policy::kuma::Proxy proxy{dp.resource, &dp, a_.kuma.gatewayOf(dp), dp.gatewayTags};
        if (policy::kuma::select(p, proxy, all, settings).selected)
          edge(self, kumaDataplaneNode(dp), ek::kPolicy);
      }
    }
    for (const policy::kuma::Item& item : p.to) kumaRefEdges(self, p, item.ref, ek::kTo);
    for (const policy::kuma::Item& item : p.from) kumaRefEdges(self, p, item.ref, ek::kFrom);
    if (!route) return;
    // Where a route sends traffic: the backendRefs of its rules, as a Gateway API rule's.
    for (const policy::kuma::Item& item : p.to)
      for (yaml::NodeRef rule : item.conf.get("rules").items())
        for (yaml::NodeRef backend : rule.get("default").get("backendRefs").items()) {
          policy::kuma::TargetRef ref;
          ref.present = true;
          ref.kind = backend.get("kind").str();
          ref.name = backend.get("name").str();
          ref.namespace_ = backend.get("namespace").str();
          if (ref.kind == "MeshService" || ref.kind == "MeshExternalService" ||
              ref.kind == "MeshMultiZoneService")
            kumaRefEdges(self, p, ref, ek::kBackend);
        }
  }

  // ---- Linkerd: Servers, the workloads they serve, routes on them, authorizations. ----

  std::size_t linkerdObjectNode(const model::Resource& r, GraphRole role, std::string_view prefix) {
    std::size_t count = graph_.nodes.size();
    std::size_t index = objectNode(
        objectKey(std::string(r.group) + "/" + std::string(r.kind), r.namespace_, r.name),
        readableId(prefix, {r.kind, r.namespace_, r.name}), r, role,
        std::string(r.kind) + " " + qualified(r.namespace_, r.name));
    // An object Linkerd's index leaves out; a route's own status then comes from its parents.
    if (graph_.nodes.size() > count && ignored_.count(&r))
      graph_.nodes[index].status = st::kRejected;
    return index;
  }

  std::size_t serverNode(const model::Resource& server) {
    std::size_t index =
        node(objectKey("policy.linkerd.io/Server", server.namespace_, server.name),
             readableId("server", {server.namespace_, server.name}), [&](GraphNode& n) {
               n.role = GraphRole::Server;
               n.kind = server.kind;
               n.namespace_ = server.namespace_;
               n.name = server.name;
               n.label = "Server " + qualified(server.namespace_, server.name);
               yaml::NodeRef spec = server.spec();
               if (std::string_view port = spec.get("port").str(); !port.empty())
                 n.label += "\nport " + std::string(port);
               std::string_view protocol = spec.get("proxyProtocol").str();
               if (!protocol.empty()) n.label += " " + std::string(protocol);
               n.ref = displayRef(server.kind, server.namespace_, server.name);
             });
    return index;
  }

  void addServerParent(const policy::linkerd::ServerParent& p, std::size_t route,
                       Attachment& result) {
    const graph::Condition& accepted = p.accepted;
    if (!p.server) {
      ++result.failed;
      edge(route, missingNode("Server", p.namespace_, p.name, GraphRole::Server), ek::kMissing,
           false, accepted.reason, accepted.message, true);
      return;
    }
    bool ok = accepted.status == "True";
    ++(ok ? result.accepted : result.failed);
    edge(route, serverNode(*p.server), ek::kServerParent, ok, ok ? "" : accepted.reason,
         ok ? "" : accepted.message, true);
  }

  // A route of policy.linkerd.io: not in the Gateway API topology, only Servers take it.
  void addLinkerdRoute(const model::Resource& route) {
    std::size_t self = linkerdObjectNode(route, GraphRole::Route, "route");
    Attachment attachment;
    for (const policy::linkerd::ServerParent* p : a_.linkerd.parentsOf(&route))
      addServerParent(*p, self, attachment);
    graph_.nodes[self].status = attachment.accepted == 0 ? st::kRejected
                                : attachment.failed > 0  ? st::kPartial
                                                         : st::kOk;
  }

  // The node of what a Linkerd policy's targetRef names: a Server, the Namespace (the policy's
  // own, which exists since the policy is in it), or a route.
  std::size_t linkerdTargetNode(const model::Resource& policy, std::string_view group,
                                std::string_view kind, std::string_view name, bool& found) {
    namespace ld = policy::linkerd;
    found = true;
    std::string_view ns = policy.namespace_;
    if (kind == "Namespace")
      return node(objectKey("Namespace", "", name), readableId("namespace", {name}),
                  [&](GraphNode& n) {
                    n.role = GraphRole::Mesh;
                    n.kind = "Namespace";
                    n.name = name;
                    n.label = "Namespace " + std::string(name);
                    n.ref = displayRef("Namespace", "", name);
                  });
    if (const model::Resource* r = a_.store.find(group, kind, ns, name)) {
      if (kind == "Server") return serverNode(*r);
      if (group == ld::kPolicyGroup) return linkerdObjectNode(*r, GraphRole::Route, "route");
      if (auto it = byIdentity_.find(objectKey(r->kind, r->namespace_, r->name));
          it != byIdentity_.end())
        return it->second;
      return linkerdObjectNode(*r, GraphRole::Route, "route");
    }
    found = false;
    return missingNode(kind, ns, name, kind == "Server" ? GraphRole::Server : GraphRole::Route);
  }

  void addLinkerd() {
    namespace ld = policy::linkerd;
    bool present = !a_.linkerd.serverParents.empty();
    for (std::string_view kind : {"Server", "AuthorizationPolicy", "ServerAuthorization",
                                  "HTTPRoute", "MeshTLSAuthentication", "NetworkAuthentication"})
      present = present || !a_.store.ofKind(ld::kPolicyGroup, kind).empty();
    if (!present) return;
    for (const ld::Ignored& i : a_.linkerd.ignored) ignored_.insert(i.object);
    for (const model::Resource* s : a_.store.ofKind(ld::kPolicyGroup, "Server")) serverNode(*s);
    // Server -> workload, one edge per pair listing the ports the Server won.
    for (const ld::WorkloadInbound& w : a_.linkerd.workloads) {
      std::vector<std::pair<const model::Resource*, std::string>> served;  // in port order
      for (const ld::InboundPort& p : w.ports) {
        if (!p.server) continue;
        auto it = std::find_if(served.begin(), served.end(),
                               [&](const auto& s) { return s.first == p.server; });
        if (it == served.end())
          served.emplace_back(p.server, "port " + std::to_string(p.port));
        else
          it->second += ", " + std::to_string(p.port);
      }
      if (served.empty()) continue;
      const model::Resource& r = *w.workload;
      std::size_t workload =
          objectNode(objectKey(r.kind, r.namespace_, r.name),
                     readableId("workload", {r.kind, r.namespace_, r.name}), r, GraphRole::Workload,
                     std::string(r.kind) + " " + qualified(r.namespace_, r.name));
      for (const auto& [server, ports] : served)
        edge(serverNode(*server), workload, ek::kServes, true, {}, ports);
    }
    for (std::string_view kind : {"HTTPRoute", "GRPCRoute"})
      for (const model::Resource* r : a_.store.ofKind(ld::kPolicyGroup, kind)) addLinkerdRoute(*r);
    for (const model::Resource* r : a_.store.ofKind(ld::kPolicyGroup, "AuthorizationPolicy")) {
      std::size_t self = linkerdObjectNode(*r, GraphRole::Policy, "policy");
      bool ok = !ignored_.count(r);
      yaml::NodeRef spec = r->spec();
      yaml::NodeRef target = spec.get("targetRef");
      if (std::string_view kind = target.get("kind").str(); !kind.empty()) {
        bool found = false;
        std::size_t t =
            linkerdTargetNode(*r, target.get("group").str(), kind, target.get("name").str(), found);
        if (!found)
          edge(self, t, ek::kMissing, false, "NotFound");
        else
          edge(self, t, ek::kPolicy, ok, ok ? "" : "Ignored");
      }
      for (yaml::NodeRef ref : spec.get("requiredAuthenticationRefs").items()) {
        std::string_view kind = ref.get("kind").str();
        if (kind != "MeshTLSAuthentication" && kind != "NetworkAuthentication") continue;
        std::string_view ns = ref.get("namespace").str();
        if (ns.empty()) ns = r->namespace_;
        std::string_view name = ref.get("name").str();
        if (const model::Resource* auth = a_.store.find(ld::kPolicyGroup, kind, ns, name))
          edge(self, linkerdObjectNode(*auth, GraphRole::Policy, "policy"), ek::kRequires, true, {},
               {}, true);
        else
          edge(self, missingNode(kind, ns, name, GraphRole::Policy), ek::kMissing, false,
               "NotFound", {}, true);
      }
    }
    for (const model::Resource* r : a_.store.ofKind(ld::kPolicyGroup, "ServerAuthorization")) {
      std::size_t self = linkerdObjectNode(*r, GraphRole::Policy, "policy");
      bool ok = !ignored_.count(r);
      yaml::NodeRef server = r->spec().get("server");
      if (std::string_view name = server.get("name").str(); !name.empty()) {
        bool found = false;
        std::size_t t = linkerdTargetNode(*r, ld::kPolicyGroup, "Server", name, found);
        edge(self, t, found ? ek::kPolicy : ek::kMissing, found && ok,
             !found ? "NotFound"
             : ok   ? ""
                    : "Ignored");
      } else if (yaml::NodeRef selector = server.get("selector")) {
        model::LabelSelector::Error error;
        std::optional<model::LabelSelector> parsed = model::LabelSelector::parse(selector, &error);
        if (!parsed) continue;
        for (const model::Resource* s : a_.store.ofKind(ld::kPolicyGroup, "Server"))
          if (s->namespace_ == r->namespace_ && parsed->matches(s->labels()))
            edge(self, serverNode(*s), ek::kPolicy, ok, ok ? "" : "Ignored");
      }
    }
    // Authentications no policy requires are in the drawing too.
    for (std::string_view kind : {"MeshTLSAuthentication", "NetworkAuthentication"})
      for (const model::Resource* r : a_.store.ofKind(ld::kPolicyGroup, kind))
        linkerdObjectNode(*r, GraphRole::Policy, "policy");
  }

  const analysis::Analysis& a_;
  Graph graph_;
  std::unordered_map<std::string, std::size_t> byIdentity_;
  std::unordered_map<const model::Resource*, std::size_t> kumaNodes_;
  std::unordered_set<const model::Resource*> ignored_;  // Linkerd objects its index leaves out
  std::unordered_set<std::string> ids_;
  std::set<std::tuple<std::size_t, std::size_t, std::string, std::string>> edgesSeen_;
};

// ---- Looks: one table per format, keyed by role and status. ----

struct DotStyle {
  std::string_view shape;
  std::string_view fill;
};

DotStyle dotRoleStyle(GraphRole role) {
  switch (role) {
    case GraphRole::GatewayClass:
      return {"box", "#d1c4e9"};
    case GraphRole::Gateway:
      return {"box", "#bbdefb"};
    case GraphRole::Listener:
      return {"box", "#e3f2fd"};
    case GraphRole::Route:
      return {"box", "#dcedc8"};
    case GraphRole::Rule:
      return {"box", "#f5f5f5"};
    case GraphRole::Backend:
      return {"cylinder", "#fff9c4"};
    case GraphRole::MeshService:
      return {"cylinder", "#e1bee7"};
    case GraphRole::Policy:
      return {"note", "#fce4ec"};
    case GraphRole::Mesh:
      return {"box", "#c5cae9"};
    case GraphRole::Workload:
      return {"component", "#b2dfdb"};
    case GraphRole::Server:
      return {"box", "#b3e5fc"};
  }
  return {"box", "#ffffff"};
}

constexpr std::string_view kRed = "#c62828";
constexpr std::string_view kOrange = "#ef6c00";
constexpr std::string_view kGrey = "#9e9e9e";

// DOT string literal: quotes and backslashes escaped, lines as \n.
std::string dotString(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + '"';
}

std::string dotNodeAttributes(const GraphNode& n) {
  DotStyle style = dotRoleStyle(n.role);
  std::string fill(style.fill), color = "#546e7a", font = "#212121", extra;
  std::string lines = "rounded,filled";
  if (style.shape != "box") lines = "filled";
  if (n.role == GraphRole::Gateway) extra = ", penwidth=1.5";
  if (n.status == st::kRejected) {
    fill = "#ffcdd2";
    color = kRed;
    extra = ", penwidth=2";
  } else if (n.status == st::kPartial || n.status == st::kUnresolved) {
    fill = "#ffe0b2";
    color = kOrange;
    extra = ", penwidth=2";
  } else if (n.status == st::kMissing) {
    fill = "#ffffff";
    color = kRed;
    font = kRed;
    lines += ",dashed";
    extra = ", penwidth=2";
  } else if (n.status == st::kUnmanaged) {
    fill = "#eeeeee";
    color = kGrey;
    font = "#616161";
    lines += ",dashed";
  }
  return "label=" + dotString(n.label) + (n.ref.empty() ? "" : ", tooltip=" + dotString(n.ref)) +
         ", shape=" + std::string(style.shape) + ", style=\"" + lines + "\", fillcolor=\"" + fill +
         "\", color=\"" + color + "\", fontcolor=\"" + font + "\"" + extra;
}

// The label people read on an edge: the reason, then the detail.
std::string edgeText(const GraphEdge& e) {
  if (e.reason.empty()) return e.detail;
  if (e.detail.empty()) return e.reason;
  return e.reason + "\n" + e.detail;
}

// Namespaces in order of first appearance, each with its nodes in graph order; "" holds the
// cluster-scoped ones.
std::vector<std::pair<std::string, std::vector<const GraphNode*>>> byNamespace(const Graph& g) {
  std::vector<std::pair<std::string, std::vector<const GraphNode*>>> groups;
  std::map<std::string, std::size_t> index;
  for (const GraphNode& n : g.nodes) {
    auto [it, inserted] = index.try_emplace(n.namespace_, groups.size());
    if (inserted) groups.push_back({n.namespace_, {}});
    groups[it->second].second.push_back(&n);
  }
  return groups;
}

// Group ids (DOT clusters, Mermaid subgraphs) are made like node ids, with the same care.
class GroupIds {
 public:
  explicit GroupIds(const Graph& g) {
    for (const GraphNode& n : g.nodes) used_.insert(n.id);
  }
  std::string make(std::string_view prefix, std::string_view name) {
    std::string base = readableId(prefix, {name}), id = base;
    for (int suffix = 2; !used_.insert(id).second; ++suffix)
      id = base + "_" + std::to_string(suffix);
    return id;
  }

 private:
  std::unordered_set<std::string> used_;
};

using Json = nlohmann::ordered_json;

}  // namespace

Graph buildGraph(const analysis::Analysis& analysis) {
  return Builder(analysis).build();
}

bool focusGraph(Graph& graph, std::string_view ref) {
  return focusGraph(graph, std::vector<std::string>{std::string(ref)});
}

bool focusGraph(Graph& graph, const std::vector<std::string>& refs, std::size_t childDepth) {
  std::unordered_map<std::string_view, std::size_t> index;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) index.emplace(graph.nodes[i].id, i);
  std::vector<std::vector<std::size_t>> parents(graph.nodes.size()), children(graph.nodes.size()),
      items(graph.nodes.size());
  for (const GraphEdge& e : graph.edges) {
    std::size_t from = index.at(e.from), to = index.at(e.to);
    if (e.upward) std::swap(from, to);
    // A Kuma policy is not above what its `to` and `from` items name (often the whole Mesh),
    // nor is that below it: the focused policy shows them, and nothing comes along through them.
    if (e.kind == ek::kTo || e.kind == ek::kFrom) {
      items[from].push_back(to);
      continue;
    }
    children[from].push_back(to);
    parents[to].push_back(from);
  }
  std::unordered_set<std::string_view> wanted(refs.begin(), refs.end());
  std::vector<std::size_t> seeds;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i)
    if (!graph.nodes[i].ref.empty() && wanted.count(graph.nodes[i].ref)) seeds.push_back(i);
  if (seeds.empty()) return false;

  // Ancestors and descendants only: a sibling (another route on the same listener) is reached
  // by going up and then down, which is not a connection to the focused object.
  std::vector<bool> keep(graph.nodes.size(), false);
  auto walk = [&](const std::vector<std::vector<std::size_t>>& next, std::size_t maxDepth) {
    std::vector<bool> seen(graph.nodes.size(), false);
    std::deque<std::pair<std::size_t, std::size_t>> queue;  // node, depth
    for (std::size_t s : seeds) {
      seen[s] = true;
      queue.emplace_back(s, 0);
    }
    while (!queue.empty()) {
      auto [at, depth] = queue.front();
      queue.pop_front();
      keep[at] = true;
      if (depth == maxDepth) continue;
      for (std::size_t n : next[at])
        if (!seen[n]) {
          seen[n] = true;
          queue.emplace_back(n, depth + 1);
        }
    }
  };
  walk(parents, std::numeric_limits<std::size_t>::max());
  walk(children, childDepth);
  for (std::size_t seed : seeds)
    for (std::size_t item : items[seed]) keep[item] = true;

  Graph focused;
  std::unordered_set<std::string_view> kept;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i)
    if (keep[i]) focused.nodes.push_back(graph.nodes[i]);
  for (const GraphNode& n : focused.nodes) kept.insert(n.id);
  for (const GraphEdge& e : graph.edges)
    if (kept.count(e.from) && kept.count(e.to)) focused.edges.push_back(e);
  graph = std::move(focused);
  return true;
}

std::vector<std::string> graphRefs(const Graph& graph, std::string_view kind) {
  std::vector<std::string> refs;
  std::unordered_set<std::string_view> seen;
  for (const GraphNode& n : graph.nodes) {
    if (n.kind != kind || n.status == st::kMissing || n.ref.empty()) continue;
    if (seen.insert(n.ref).second) refs.push_back(n.ref);
  }
  return refs;
}

void writeGraphDot(std::ostream& out, const Graph& graph) {
  out << "digraph policygraph {\n"
         "  graph [rankdir=LR, newrank=true, nodesep=0.2, ranksep=0.5, fontname=\"Helvetica\", "
         "fontsize=12, labeljust=l];\n"
         "  node [fontname=\"Helvetica\", fontsize=10, margin=\"0.12,0.05\"];\n"
         "  edge [fontname=\"Helvetica\", fontsize=9, color=\"#78909c\", arrowsize=0.7];\n";
  GroupIds groups(graph);
  // A Gateway and its listeners share a box inside their namespace: the listeners read as parts
  // of the Gateway, and the routes line up next to the listener that took them.
  std::unordered_map<std::string_view, std::string_view> ownerOf;  // listener id -> gateway id
  for (const GraphEdge& e : graph.edges)
    if (e.kind == ek::kListener) ownerOf.emplace(e.to, e.from);
  auto writeNode = [&](const GraphNode& n, std::string_view indent) {
    out << indent << n.id << " [" << dotNodeAttributes(n) << "];\n";
  };
  for (const auto& [namespace_, nodes] : byNamespace(graph)) {
    std::string indent = "  ";
    if (!namespace_.empty()) {
      out << "  subgraph " << groups.make("cluster_ns", namespace_) << " {\n"
          << "    label=" << dotString("namespace " + namespace_)
          << "; style=\"rounded,filled\"; fillcolor=\"#fafafa\"; color=\"#b0bec5\";\n";
      indent = "    ";
    }
    for (const GraphNode* n : nodes) {
      if (n->role == GraphRole::Listener && ownerOf.count(n->id)) continue;
      if (n->role != GraphRole::Gateway) {
        writeNode(*n, indent);
        continue;
      }
      std::vector<const GraphNode*> listeners;
      for (const GraphNode* l : nodes)
        if (l->role == GraphRole::Listener && ownerOf.count(l->id) && ownerOf.at(l->id) == n->id)
          listeners.push_back(l);
      if (listeners.empty()) {  // a missing Gateway, or one without listeners: no box needed
        writeNode(*n, indent);
        continue;
      }
      out << indent << "subgraph " << groups.make("cluster", n->id) << " {\n"
          << indent << "  label=\"\"; style=\"rounded\"; color=\"#90a4ae\";\n";
      writeNode(*n, indent + "  ");
      for (const GraphNode* l : listeners) writeNode(*l, indent + "  ");
      out << indent << "}\n";
    }
    if (!namespace_.empty()) out << "  }\n";
  }
  std::unordered_set<std::string_view> gatewayIds;
  for (const GraphNode& n : graph.nodes)
    if (n.role == GraphRole::Gateway) gatewayIds.insert(n.id);
  for (const GraphEdge& e : graph.edges) {
    std::string attributes;
    if (!e.ok) {
      attributes = "color=\"" + std::string(kRed) + "\", fontcolor=\"" + std::string(kRed) +
                   "\", style=dashed, penwidth=1.5";
    } else if (e.kind == ek::kUnsimulated) {
      attributes = "color=\"" + std::string(kGrey) + "\", fontcolor=\"#616161\", style=dotted";
    } else if (e.kind == ek::kAttached || e.kind == ek::kMesh) {
      attributes = "color=\"#2e7d32\", penwidth=1.5";
    }
    std::string text = edgeText(e);
    if (!text.empty()) {
      if (!attributes.empty()) attributes += ", ";
      attributes += "label=" + dotString(text);
    }
    // An edge from a route up to its parent is drawn from the parent with the arrow turned
    // round: the arrow still points at what the route names, and the layout keeps every parent
    // left of its children.
    if (e.upward) {
      if (!attributes.empty()) attributes += ", ";
      attributes += "dir=back";
      // A route that names a whole Gateway (rejected there, or the Gateway is missing or not
      // simulated) belongs in the routes' column, right of the listeners, not in theirs.
      if (gatewayIds.count(e.to) && !gatewayIds.count(e.from)) attributes += ", minlen=2";
    }
    out << "  " << (e.upward ? e.to : e.from) << " -> " << (e.upward ? e.from : e.to);
    if (!attributes.empty()) out << " [" << attributes << "]";
    out << ";\n";
  }
  out << "}\n";
}

namespace {

// Mermaid label text inside double quotes: quotes and the characters Mermaid or its HTML labels
// would read as markup become entity codes, lines become <br>.
std::string mermaidText(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '"':
        out += "#quot;";
        break;
      case '#':
        out += "#35;";
        break;
      case '<':
        out += "#lt;";
        break;
      case '>':
        out += "#gt;";
        break;
      case '&':
        out += "#amp;";
        break;
      case '\n':
        out += "<br>";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string mermaidNode(const GraphNode& n) {
  std::string text = "\"" + mermaidText(n.label) + "\"";
  switch (n.role) {
    case GraphRole::GatewayClass:
      return n.id + "{{" + text + "}}";
    case GraphRole::Gateway:
      return n.id + "[[" + text + "]]";
    case GraphRole::Listener:
      return n.id + "([" + text + "])";
    case GraphRole::Route:
      return n.id + "[" + text + "]";
    case GraphRole::Rule:
      return n.id + "(" + text + ")";
    case GraphRole::Backend:
    case GraphRole::MeshService:
      return n.id + "[(" + text + ")]";
    case GraphRole::Policy:
      return n.id + ">" + text + "]";
    case GraphRole::Mesh:
      return n.id + "[/" + text + "\\]";
    case GraphRole::Workload:
      return n.id + "[/" + text + "/]";
    case GraphRole::Server:
      return n.id + "[\\" + text + "/]";
  }
  return n.id + "[" + text + "]";
}

constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kMermaidClasses{{
    {st::kRejected, "fill:#ffcdd2,stroke:#c62828,stroke-width:2px,color:#212121"},
    {st::kPartial, "fill:#ffe0b2,stroke:#ef6c00,stroke-width:2px,color:#212121"},
    {st::kUnresolved, "fill:#ffe0b2,stroke:#ef6c00,stroke-width:2px,color:#212121"},
    {st::kMissing,
     "fill:#ffffff,stroke:#c62828,stroke-width:2px,stroke-dasharray:5 3,color:#c62828"},
    {st::kUnmanaged, "fill:#eeeeee,stroke:#9e9e9e,stroke-dasharray:5 3,color:#616161"},
}};

}  // namespace

void writeGraphMermaid(std::ostream& out, const Graph& graph) {
  out << "flowchart LR\n";
  GroupIds groups(graph);
  for (const auto& [namespace_, nodes] : byNamespace(graph)) {
    std::string indent = "  ";
    if (!namespace_.empty()) {
      out << "  subgraph " << groups.make("ns", namespace_) << "[\""
          << mermaidText("namespace " + namespace_) << "\"]\n";
      indent = "    ";
    }
    for (const GraphNode* n : nodes) out << indent << mermaidNode(*n) << '\n';
    if (!namespace_.empty()) out << "  end\n";
  }
  // Mermaid numbers links in the order they are written; linkStyle colours them by number.
  std::vector<std::size_t> failed, attached, unsimulated;
  for (std::size_t i = 0; i < graph.edges.size(); ++i) {
    const GraphEdge& e = graph.edges[i];
    std::string from = e.upward ? e.to : e.from, to = e.upward ? e.from : e.to;
    std::string text = edgeText(e);
    std::string label = text.empty() ? "" : "|\"" + mermaidText(text) + "\"|";
    std::string_view arrow = "-->";
    // Mermaid cannot put a single arrow head at the start of a link, so a failed reference
    // drawn parent-first ends in a cross at the route instead: "did not attach here".
    if (!e.ok) {
      arrow = e.kind == ek::kBackend ? "--x" : "-.-x";
      failed.push_back(i);
    } else if (e.kind == ek::kUnsimulated) {
      arrow = "-.-";
      unsimulated.push_back(i);
    } else if (e.kind == ek::kAttached || e.kind == ek::kMesh) {
      attached.push_back(i);
    }
    out << "  " << from << ' ' << arrow << label << ' ' << to << '\n';
  }
  // Only the classes in use: the text is pasted into pull-request comments.
  for (auto [name, style] : kMermaidClasses) {
    std::string members;
    for (const GraphNode& n : graph.nodes)
      if (n.status == name) members += (members.empty() ? "" : ",") + n.id;
    if (members.empty()) continue;
    out << "  classDef " << name << ' ' << style << '\n';
    out << "  class " << members << ' ' << name << '\n';
  }
  auto linkStyle = [&](const std::vector<std::size_t>& links, std::string_view style) {
    if (links.empty()) return;
    out << "  linkStyle ";
    for (std::size_t i = 0; i < links.size(); ++i) out << (i ? "," : "") << links[i];
    out << ' ' << style << '\n';
  };
  std::string highlighted;
  for (const GraphNode& n : graph.nodes)
    if (n.highlighted) highlighted += (highlighted.empty() ? "" : ",") + n.id;
  if (!highlighted.empty()) {
    out << "  classDef changed stroke:#f9a825,stroke-width:4px\n";
    out << "  class " << highlighted << " changed\n";
  }
  linkStyle(failed, "stroke:#c62828,stroke-width:2px,color:#c62828");
  linkStyle(attached, "stroke:#2e7d32,stroke-width:2px");
  linkStyle(unsimulated, "stroke:#9e9e9e");
}

void writeGraphJson(std::ostream& out, const Graph& graph) {
  Json nodes = Json::array();
  for (const GraphNode& n : graph.nodes)
    nodes.push_back({{"id", n.id},
                     {"kind", n.kind},
                     {"namespace", n.namespace_},
                     {"name", n.name},
                     {"label", n.label},
                     {"status", n.status}});
  Json edges = Json::array();
  for (const GraphEdge& e : graph.edges)
    edges.push_back(
        {{"from", e.from}, {"to", e.to}, {"kind", e.kind}, {"ok", e.ok}, {"reason", e.reason}});
  Json doc = {{"nodes", std::move(nodes)}, {"edges", std::move(edges)}};
  // A name that is not UTF-8 must not cost the whole graph.
  out << doc.dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
}


namespace {

// How bad a status is, for the folded node of a group: the worst of its members.
int statusRank(std::string_view status) {
  if (status == graph_status::kRejected || status == graph_status::kMissing) return 3;
  if (status == graph_status::kPartial || status == graph_status::kUnresolved) return 2;
  if (status == graph_status::kUnmanaged) return 1;
  return 0;
}

}  // namespace

std::string foldGraph(Graph& graph, std::size_t maxEdges, std::size_t maxBytes) {
  auto size = [](const Graph& g) {
    std::ostringstream out;
    writeGraphMermaid(out, g);
    return out.str().size();
  };
  if (graph.edges.size() <= maxEdges && size(graph) <= maxBytes) return {};
  const std::size_t nodesBefore = graph.nodes.size(), edgesBefore = graph.edges.size();
  // One node per namespace (cluster-scoped objects per kind), edges between groups once each.
  Graph folded;
  std::map<std::string, std::size_t> groupOf;  // node id -> index in folded.nodes
  std::map<std::string, std::size_t> groupIndex;
  std::vector<std::size_t> members;
  for (const GraphNode& n : graph.nodes) {
    const std::string key = n.namespace_.empty() ? "kind " + n.kind : "namespace " + n.namespace_;
    auto [it, added] = groupIndex.emplace(key, folded.nodes.size());
    if (added) {
      GraphNode g;
      g.id = "group_" + std::to_string(folded.nodes.size());
      g.role = n.role;
      g.kind = n.namespace_.empty() ? n.kind : "Namespace";
      g.name = n.namespace_.empty() ? n.kind : n.namespace_;
      g.ref = n.namespace_.empty() ? std::string() : "Namespace/" + n.namespace_;
      folded.nodes.push_back(std::move(g));
      members.push_back(0);
    }
    GraphNode& g = folded.nodes[it->second];
    if (statusRank(n.status) > statusRank(g.status)) g.status = n.status;
    g.highlighted = g.highlighted || n.highlighted;
    ++members[it->second];
    groupOf[n.id] = it->second;
  }
  for (std::size_t i = 0; i < folded.nodes.size(); ++i)
    folded.nodes[i].label = (folded.nodes[i].kind == "Namespace" ? "namespace " : "") +
                            folded.nodes[i].name + "\n" + std::to_string(members[i]) +
                            " objects";
  std::map<std::pair<std::size_t, std::size_t>, std::size_t> edgeIndex;  // -> folded.edges
  std::vector<std::size_t> counts;
  for (const GraphEdge& e : graph.edges) {
    std::size_t from = groupOf[e.from], to = groupOf[e.to];
    if (from == to) continue;
    auto [it, added] = edgeIndex.emplace(std::make_pair(from, to), folded.edges.size());
    if (added) {
      folded.edges.push_back({folded.nodes[from].id, folded.nodes[to].id, e.kind, e.ok, e.reason,
                              {}, e.upward});
      counts.push_back(0);
    }
    GraphEdge& f = folded.edges[it->second];
    if (!e.ok && f.ok) {
      f.ok = false;
      f.reason = e.reason;
    }
    ++counts[it->second];
  }
  for (std::size_t i = 0; i < folded.edges.size(); ++i)
    if (counts[i] > 1) folded.edges[i].kind = std::to_string(counts[i]) + " links";
  graph = std::move(folded);
  return "folded " + std::to_string(nodesBefore) + " nodes and " + std::to_string(edgesBefore) +
         " edges into one node per namespace (" + std::to_string(graph.nodes.size()) +
         " nodes, " + std::to_string(graph.edges.size()) +
         " edges) to stay within what GitHub renders (" + std::to_string(maxEdges) +
         " edges, " + std::to_string(maxBytes) + " characters); use --focus REF for the detail";
}

}  // namespace pg::report
