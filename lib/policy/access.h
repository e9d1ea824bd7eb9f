#pragma once

// `policygraph access`: may this client make this request to this workload's port? The answer
// any mesh family gives (Linkerd: Servers, routes and authorizations; Kuma: the inbound's
// MeshTrafficPermission `from` rules): the decision, what served the port, the route that
// matched, the authorization or rule that decided, and what else was considered and why not.
// Family-neutral: names and positions, no family types.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/model/cidr.h"
#include "lib/model/source.h"
#include "lib/model/store.h"

namespace pg::policy {

enum class AccessDecision : std::uint8_t {
  Allowed,       // forwarded to the workload
  Redirect,      // authorized, answered with a redirect (`status`)
  Unauthorized,  // a route matched, no authorization admits the client (HTTP 403)
  NoRoute,       // no route matches the request (HTTP 404)
  Refused,       // a connection no authorization admits (no HTTP status)
};
std::string_view decisionName(AccessDecision decision);  // allowed, redirect, unauthorized, ...
// Allowed and Redirect: the client may make the request.
inline bool permitted(AccessDecision d) {
  return d == AccessDecision::Allowed || d == AccessDecision::Redirect;
}

// A tag and its value (Kuma), as `key=value`.
using AccessTag = std::pair<std::string, std::string>;
// `key=value, ...`, or "no tags".
std::string tagsText(const std::vector<AccessTag>& tags);

// Who asks. `address` unset: unknown, some address of `assumedNetworks`.
struct AccessClient {
  std::string display;                        // Deployment/ns/name, ServiceAccount/ns/name, ip:A
  const model::Resource* resource = nullptr;  // the workload or ServiceAccount, if any
  bool meshed = false;
  std::string identity;       // the mesh identity when meshed
  std::string meshedBecause;  // why meshed or not, for people
  std::optional<model::Cidr> address;
  std::vector<model::Cidr> assumedNetworks;
  // Kuma: the tags the client's certificate carries (every tag of every inbound; a key may
  // have several values), sorted.
  std::vector<AccessTag> tags;
};

// What is asked: an HTTP request (`METHOD PATH[?QUERY]`, host, headers), or, with `http` false,
// a connection only.
struct AccessRequest {
  bool http = false;
  std::string method;
  std::string path;  // without the query
  std::vector<std::pair<std::string, std::string>> query;
  std::string host;  // empty: not given
  std::vector<std::pair<std::string, std::string>> headers;
  std::string text;  // as given, for reports
};

// `METHOD PATH` with an optional `?query`; nullopt when it is not one.
std::optional<AccessRequest> parseAccessRequest(std::string_view text);

// A policy object that took part, with where it is written.
struct AccessSource {
  std::string kind;
  std::string name;
  const model::Resource* resource = nullptr;  // null for built-in defaults
};

struct AccessRoute {
  AccessSource ref;
  std::string group;
  std::size_t rule = 0;              // index of the rule that matched
  std::optional<std::size_t> match;  // index of its match; unset: a rule without matches
  std::string matchText;             // the match, for people (`GET prefix /books`)
};

enum class Admits : std::uint8_t { Yes, No, Depends };  // Depends: on the client's address

struct AccessAuthorization {
  AccessSource ref;
  std::string level;  // route, server, proxy (the proxy's own localhost authorization)
  std::vector<const model::Resource*> sources;  // the policy, then its authentications
  std::string authentication;                   // unauthenticated, tlsUnauthenticated, ...
  Admits admits = Admits::No;
  std::string reason;  // why it admits or not; for Depends, the addresses it admits
};

// Kuma: the inbound of the destination proxy that took the connection.
struct AccessInbound {
  std::string name;  // its section name, "" when unnamed
  std::int64_t port = 0;
  std::vector<AccessTag> tags;
  model::Location at;
};

// Kuma: one `from` rule of the inbound as Kuma's rule builder makes it: a subset of clients by
// tags (with negations) and the action the matching `from` items merge to, in Kuma's order.
struct AccessTagMatch {
  std::string key, value;
  bool negated = false;
};
struct AccessTagRule {
  std::vector<AccessTagMatch> subset;  // empty: every client
  std::string action;                  // Allow, Deny, AllowWithShadowDeny; "" when unset
  AccessSource policy;                 // the policy whose `from` item set the action
  std::optional<std::size_t> item;     // that item's index in `from`
  model::Location at;                  // the `action` field
  std::vector<std::string> origin;     // every policy merged into the rule
  bool coversClient = false;
};

struct AccessResult {
  std::string family;  // linkerd, kuma
  AccessDecision decision = AccessDecision::Refused;
  std::optional<int> status;  // HTTP status; unset for connections
  std::string grpcStatus;     // gRPC ports: OK, PERMISSION_DENIED, UNIMPLEMENTED
  AccessSource server;        // the Server, or the default policy serving the port
  std::string protocol;
  std::optional<AccessRoute> route;
  std::optional<AccessAuthorization> authorization;  // the one that admitted the client
  std::vector<AccessAuthorization> considered;       // in the order the proxy tries them
  std::string condition;  // when the answer depends on the client's unknown address
  std::vector<std::string> advice;
  std::vector<std::string> notes;  // assumptions made
  // Kuma: the inbound, the mesh's mutual TLS ("STRICT", "PERMISSIVE", "disabled"), every
  // `from` rule of the inbound, and the one that decided (an index into `tagRules`).
  std::optional<AccessInbound> inbound;
  std::string mtls;
  std::vector<AccessTagRule> tagRules;
  std::optional<std::size_t> decidingRule;
};

}  // namespace pg::policy
