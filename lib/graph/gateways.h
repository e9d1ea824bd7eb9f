// Internal to lib/graph: builds one Gateway's listeners and their status.
#pragma once

#include "lib/graph/topology.h"

namespace pg::graph {

void buildGateway(Gateway& gateway, const model::Store& store, const ReferenceGrantIndex& grants,
                  const TopologyOptions& options);
// A ListenerSet: its parent Gateway (already built) decides its class and whether it may
// add listeners at all (spec.allowedListeners).
void buildListenerSet(Gateway& set, const std::vector<Gateway>& gateways, const model::Store& store,
                      const ReferenceGrantIndex& grants, const TopologyOptions& options);
// Whether the listener terminates TLS (and so needs a certificate, and may validate clients).
bool terminatesTls(const Listener& l);
// Whether a ListenerSet/XListenerSet kind.
bool isListenerSetKind(std::string_view group, std::string_view kind);

}  // namespace pg::graph
