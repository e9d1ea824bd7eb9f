#pragma once

// Linkerd's inbound servers of one workload, for explain: JSON (LINKERD.md's `linkerd` document)
// and the terminal rendering.
#include <ostream>

#include "lib/policy/linkerd/inbound.h"
#include "lib/report/values.h"

namespace pg::report::detail {

Json linkerdInboundJson(const policy::linkerd::WorkloadInbound& inbound);
void writeLinkerdText(std::ostream& out, const policy::linkerd::WorkloadInbound& inbound,
                      bool color);

}  // namespace pg::report::detail
