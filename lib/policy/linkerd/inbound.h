#pragma once

// Linkerd's inbound policy, as its policy controller serves it to each pod's proxy: per workload
// and port, the Server (or default policy) that applies, the protocol, the authorizations and
// the HTTP and gRPC routes with their own authorizations (`InboundServer`). Also the status the
// controller writes on routes whose parent is a Server. Every Linkerd semantic lives in this
// folder; the contract is ../shared/oracles/LINKERD.md.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lib/config/config.h"
#include "lib/graph/topology.h"
#include "lib/graph/workloads.h"
#include "lib/model/cidr.h"
#include "lib/model/finding.h"
#include "lib/model/shared_list.h"
#include "lib/model/store.h"

namespace pg::policy::linkerd {

inline constexpr std::string_view kPolicyGroup = "policy.linkerd.io";
inline constexpr std::string_view kControllerName = "linkerd.io/policy-controller";

struct Network {
  model::Cidr net;
  std::vector<model::Cidr> except;
};

enum class AuthenticationKind : std::uint8_t {
  Unauthenticated,
  TlsUnauthenticated,
  TlsAuthenticated
};
std::string_view authenticationName(AuthenticationKind kind);

// `exact` names one identity; otherwise `suffix` (labels) matches every identity ending with
// them (`*` is the empty suffix).
struct IdentityMatch {
  bool exact = true;
  std::string name;
  std::vector<std::string> suffix;
};

struct Authorization {
  std::string kind;  // default, ServerAuthorization, AuthorizationPolicy
  std::string name;
  std::vector<Network> networks;
  AuthenticationKind authentication = AuthenticationKind::Unauthenticated;
  std::vector<IdentityMatch> identities;
  std::vector<const model::Resource*> sources;  // the policy, then the authentications it used
};
// Ports and routes share their authorizations: a policy's is built once, however many ports
// it reaches.
using Authorizations = model::SharedList<Authorization>;

struct StringMatch {
  std::string kind;  // exact, prefix or regex (paths); exact or regex (headers, query)
  std::string value;
  std::string name;  // headers and query parameters
};

struct HttpMatch {
  std::optional<StringMatch> path;
  std::vector<StringMatch> headers;
  std::vector<StringMatch> queryParams;
  std::string method;  // empty: any
};

struct GrpcMatch {
  bool hasMethod = false;
  std::string service;  // empty: any
  std::string method;   // empty: any
  std::vector<StringMatch> headers;
};

struct HeaderModifier {
  std::vector<std::pair<std::string, std::string>> add;
  std::vector<std::pair<std::string, std::string>> set;
  std::vector<std::string> remove;
};

struct Filter {
  enum class Kind : std::uint8_t { RequestHeaderModifier, ResponseHeaderModifier, RequestRedirect };
  Kind kind = Kind::RequestHeaderModifier;
  HeaderModifier headers;
  // RequestRedirect
  std::string scheme;
  std::string hostname;
  std::optional<StringMatch> path;  // kind replaceFullPath or replacePrefixMatch
  std::optional<std::int64_t> port;
  std::optional<std::int64_t> statusCode;
};

struct RouteRule {
  std::vector<HttpMatch> httpMatches;
  std::vector<GrpcMatch> grpcMatches;
  std::vector<Filter> filters;
};

struct InboundRoute {
  std::string group;                          // empty for the defaults
  std::string kind;                           // HTTPRoute, GRPCRoute, or "default"
  std::string name;                           // the route's, or default / probe
  const model::Resource* resource = nullptr;  // null for the defaults
  std::vector<std::string> hostnames;
  std::vector<RouteRule> rules;
  Authorizations authorizations;
  bool isDefault() const { return resource == nullptr; }
};
// The default routes are shared by every port that serves them.
using InboundRoutes = model::SharedList<InboundRoute>;

struct InboundPort {
  std::int64_t port = 0;
  const model::Resource* server = nullptr;  // null: the default policy
  std::string serverName;                   // the Server's name, or the default policy's
  std::string protocol;                     // Detect, HTTP/1, HTTP/2, gRPC, Opaque, TLS
  Authorizations authorizations;
  InboundRoutes httpRoutes;  // serving order
  InboundRoutes grpcRoutes;
  std::vector<const model::Resource*> shadowed;  // Servers that select the port too, and lost it
};

struct WorkloadInbound {
  const model::Resource* workload = nullptr;
  std::vector<InboundPort> ports;                  // by port
  std::vector<const model::Resource*> selectedBy;  // Servers whose podSelector matches it
};

// A policy object or route the inbound index leaves out, and why (`at`: the field at fault).
struct Ignored {
  const model::Resource* object = nullptr;
  yaml::NodeRef at;
  std::string message;
  // The object whose absence makes it ignored (a target or authentication not in the input,
  // not one refused): the rule engine weighs whether the input is its home.
  std::optional<model::Missing> missing = std::nullopt;
};

// One `status.parents` entry the policy controller writes for a route's Server parentRef.
struct ServerParent {
  const model::Resource* route = nullptr;
  yaml::NodeRef parentRef;
  std::string namespace_;  // the ref's, else the route's
  std::string name;
  std::string_view sectionName;
  std::optional<std::int64_t> port;
  const model::Resource* server = nullptr;  // null when it does not exist
  graph::Condition accepted;                // the one condition, type Accepted
};

struct LinkerdModel {
  std::vector<WorkloadInbound> workloads;   // Store order
  std::vector<ServerParent> serverParents;  // routes in Store order, parentRefs in order
  std::vector<Ignored> ignored;             // by kind, then Store order

  const WorkloadInbound* inboundOf(const model::Resource* workload) const;
  std::vector<const ServerParent*> parentsOf(const model::Resource* route) const;

  // Lookups by object, filled by buildLinkerd: a workload's slot; a route's first parent and
  // one past its last (a route's parents are consecutive).
  std::unordered_map<const model::Resource*, std::size_t> workloadIndex;
  std::unordered_map<const model::Resource*, std::pair<std::size_t, std::size_t>> parentIndex;
};

// Route kinds that may name a Server as parent: policy.linkerd.io HTTPRoute and the Gateway API
// HTTPRoute, GRPCRoute, TLSRoute and TCPRoute.
bool isServerRouteKind(std::string_view group, std::string_view kind);

// The inbound policy of every workload, and the Server parents of routes. Without Linkerd in
// the cluster (`linkerdInUse`, graph::Topology::linkerd: nothing in the input names it and the
// config does not say so) no workload is modelled: no pod there runs a Linkerd proxy, and a
// `linkerd` section in `explain` would mislead.
LinkerdModel buildLinkerd(const model::Store& store, const config::LinkerdSettings& settings,
                          bool linkerdInUse, unsigned jobs = 1);

// A problem converting a route, an authentication or a network: where and why.
struct Problem {
  yaml::NodeRef at;
  std::string message;
  bool refused = true;  // false: admitted, but the index cannot serve it
};

// The route's rules as the index converts them; nullopt with `problem` set when it cannot.
std::optional<std::vector<RouteRule>> convertRules(const model::Resource& route, bool grpc,
                                                   Problem* problem);
// What convertRules() would stop at, checked without converting anything: the first problem
// of the route's rules, if any.
std::optional<Problem> ruleProblem(const model::Resource& route, bool grpc);

// The networks of a NetworkAuthentication or ServerAuthorization client (`networks`).
std::vector<Network> readNetworks(yaml::NodeRef networks, std::vector<Problem>* problems);

// `*`, `*.suffix` or an exact identity.
IdentityMatch parseIdentity(std::string_view text);
std::string serviceAccountIdentity(std::string_view name, std::string_view namespace_,
                                   const config::LinkerdSettings& settings);

// A probe's port: a number, or the name of a TCP port of the probe's own container (names
// compared ignoring case, as the policy controller's `container_http_probe_paths` does).
std::optional<std::int64_t> probePort(const graph::HttpProbe& probe,
                                      const std::vector<graph::ContainerPort>& ports);
// The path a probe asks for as the policy controller reads it: the query dropped, `/` when the
// probe names none; nullopt when nothing is left (a path that is only a query).
std::optional<std::string> probePath(const graph::HttpProbe& probe);

// Policy names and protocols the CRDs admit.
std::optional<std::string> protocolOf(yaml::NodeRef proxyProtocol);  // nullopt: not admitted

}  // namespace pg::policy::linkerd
