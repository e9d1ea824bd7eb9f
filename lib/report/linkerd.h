#pragma once

// Linkerd's inbound servers of one workload, for explain: JSON (LINKERD.md's `linkerd` document)
// and the terminal rendering.
#include <map>
#include <ostream>
#include <string>

#include "lib/policy/linkerd/inbound.h"
#include "lib/report/values.h"

namespace pg::report::detail {

Json linkerdInboundJson(const policy::linkerd::WorkloadInbound& inbound);
// For snapshots: after the name of each port's Server, authorization and route, a comment
// naming the objects it came from (`Server/ns/name`; a policy, then the authentications it
// uses), keyed by field path below the `linkerd` document (YamlLayout::listIndexes).
void linkerdComments(const policy::linkerd::WorkloadInbound& inbound,
                     std::map<std::string, std::string, std::less<>>& comments);
// `injection`, when known, says whether Linkerd injects the workload and why
// (policy::linkerd::injected): the inbound policy is what the controller would serve a proxy,
// which only an injected pod has.
struct Injection {
  bool injected = false;
  std::string why;
};
void writeLinkerdText(std::ostream& out, const policy::linkerd::WorkloadInbound& inbound,
                      const Injection* injection, bool color);

}  // namespace pg::report::detail
