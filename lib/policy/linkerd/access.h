#pragma once

// What Linkerd's proxy decides for one client and request on one inbound port it was served
// (`InboundPort`, inbound.h): the route that matches, then the first authorization of that
// route, of the server, or the proxy's localhost one that admits the client. Connections on
// opaque ports (and detect ports without an HTTP request) are authorized by the server alone.
#include <cstdint>
#include <optional>
#include <string>

#include "lib/config/config.h"
#include "lib/model/store.h"
#include "lib/policy/access.h"
#include "lib/policy/linkerd/inbound.h"

namespace pg::policy::linkerd {

// Full: the decision with every authorization considered and why, and advice.
// DecisionOnly: the same decision, status, route and `condition`, without the words: the
// search ends at the first authorization that admits, and `considered` holds only what was
// looked at (for rules that ask many times and explain only a refusal).
enum class AccessDetail : std::uint8_t { Full, DecisionOnly };

// The decision, with its reasons. `request.http` false: a connection only. The client's
// address, when unknown, is some address of `client.assumedNetworks`; an authorization that
// admits only part of them does not decide (the worst case), and `condition` says which
// addresses it would admit.
AccessResult decideAccess(const InboundPort& port, const AccessClient& client,
                          const AccessRequest& request, AccessDetail detail = AccessDetail::Full);

// A workload as a Linkerd client: meshed when injected (`linkerd.io/inject` on its pod
// (template), else its Namespace's; `disabled` on the pod wins), its identity from the pod's
// service account. The address is left unknown, in clusterNetworks.
AccessClient workloadClient(const model::Store& store, const model::Resource& workload,
                            const config::LinkerdSettings& settings);
// A meshed client with the identity of a ServiceAccount.
AccessClient serviceAccountClient(const model::Resource& serviceAccount,
                                  const config::LinkerdSettings& settings);

// Whether a workload is injected, and why: the annotation that says so.
bool injected(const model::Store& store, const model::Resource& workload, std::string* why);

// `exact` or suffix identity matching, as the proxy does it.
bool identityMatches(const IdentityMatch& match, std::string_view identity);
// Prefix path matching on segment boundaries (`/foo` matches `/foo/bar`, not `/foobar`).
bool pathPrefixMatches(std::string_view prefix, std::string_view path);
// `*.example.com` or an exact hostname against a request host (port ignored).
bool hostnameMatches(std::string_view pattern, std::string_view host);

// How reports and messages name a route match, networks and identities ("GET prefix /books",
// "10.1.0.0/16 except 10.1.255.0/24 or ::/0", "*.shop.serviceaccount.identity...").
std::string matchText(const HttpMatch& match);
std::string matchText(const GrpcMatch& match);
// Every match of a route's rules, `; `-separated, or "every request".
std::string routeMatchesText(const InboundRoute& route);
std::string networkText(const Network& network);
std::string networksText(const std::vector<Network>& networks);
std::string cidrsText(const std::vector<model::Cidr>& list);  // comma-separated
std::string identitiesText(const std::vector<IdentityMatch>& identities);

}  // namespace pg::policy::linkerd
