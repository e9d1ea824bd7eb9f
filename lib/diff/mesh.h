// The service-mesh part of `policygraph diff` (diff.h's KumaChange and LinkerdChange): what
// Kuma merges for each proxy and what Linkerd serves each port of an injected workload, on both
// sides, compared.
#pragma once

#include <vector>

#include "lib/analysis/analysis.h"
#include "lib/diff/diff.h"

namespace pg::diff {

// Every merged field of every Kuma proxy (Dataplanes, derived ones included, and
// MeshGateways) that differs, by proxy, policy type, section and field.
std::vector<KumaChange> compareKuma(const analysis::Analysis& base, const analysis::Analysis& head);

// Per workload Linkerd injects (on either side) and port, what changed, by workload and port:
// the port served or no longer, the Server or default policy serving it, the protocol,
// authorizations of the port and of its routes added or removed (with their clients), routes
// added or removed. The default and probe routes of the default policy are left out.
std::vector<LinkerdChange> compareLinkerd(const analysis::Analysis& base,
                                          const analysis::Analysis& head);

// The Kuma policies (targetRef policies of every mesh) and Linkerd policy objects
// (policy.linkerd.io) of one side, for the list of policy objects changed.
std::vector<const model::Resource*> meshPolicies(const analysis::Analysis& analysis);

}  // namespace pg::diff
