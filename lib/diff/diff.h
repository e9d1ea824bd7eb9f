// What a change does: two analyses (base and head) compared on what a reviewer of a pull
// request asks about. Which policy objects changed; which routes attached to or detached from
// which listener; which effective policy fields changed on which target, before and after,
// and which policy change caused it; which findings are new and which are fixed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/analysis/analysis.h"
#include "lib/model/finding.h"

namespace pg::diff {

enum class Change : std::uint8_t { Added, Removed, Changed };
std::string_view changeName(Change change);  // added, removed, changed

// A policy object (GEP-713-style, Kuma or Linkerd) whose content differs between the sides (status
// and metadata that a controller writes are not content).
struct PolicyChange {
  std::string policy;  // Kind/namespace/name
  Change change = Change::Changed;
  model::Location at;  // the object on the head side; on the base side when removed
  // The environment (config `environments:`) both sides were analysed as; empty without.
  std::string environment = {};
};

// A route that attached to a parent on one side only.
struct AttachmentChange {
  std::string route;     // Kind/namespace/name
  std::string parent;    // Gateway/namespace/name#listener, or Service/namespace/name (GAMMA)
  bool attached = true;  // true: attached on the head side only; false: on the base only
  // Detached: why the head does not attach it: the upstream reason (NotAllowedByListeners,
  // NoMatchingListenerHostname, ...) and message, or why the reference is gone.
  std::string reason;
  std::string message;
  model::Location at;  // the parentRef on the head side; the route on the base when removed
  // The environment (config `environments:`) both sides were analysed as; empty without.
  std::string environment = {};
};

// One effective field whose value differs.
struct FieldChange {
  std::string field;                  // dotted path into the effective value
  std::optional<std::string> before;  // one-line YAML; nothing when the field was unset
  std::optional<std::string> after;
  std::string beforeFrom;  // who set it: `Kind/namespace/name (override, Gateway)`
  std::string afterFrom;
  // The change behind it: a policy that was added, removed or changed and sets (or set)
  // the field, else an object on the path that changed; empty when none is known.
  std::string cause;
  model::Location at;  // the value on the head side; on the base side when removed
};

// The effective policy of one kind on one target through one hierarchy path.
struct EffectiveChange {
  std::string target;             // Kind/namespace/name
  std::string kind;               // the policy kind
  std::vector<std::string> path;  // the steps, least specific first, as explain shows them
  // Added: the kind reaches the target on this path on the head side only; Removed: on the
  // base side only.
  Change change = Change::Changed;
  std::vector<FieldChange> fields;
  // The environment (config `environments:`) both sides were analysed as; empty without.
  std::string environment = {};
};

// One field of a Kuma proxy's merged configuration that differs (explain's Kuma rules).
struct KumaChange {
  // The Dataplane or MeshGateway (`Dataplane/web-1 in mesh default`), or the workload a
  // Kubernetes proxy is derived from.
  std::string proxy;
  // The merged rule, as explain names it: `to everything`, `from port 8080, sources
  // everything`, `inbound port 8080`, `resource MeshService/backend#http`, `proxy`.
  std::string section;
  std::string policyType;             // MeshTimeout, MeshRetry, ...
  std::string field;                  // dotted path into the merged conf
  std::optional<std::string> before;  // nothing when the field was unset
  std::optional<std::string> after;
  std::string beforeFrom;  // the policy that set it (`MeshTimeout/web in mesh default`)
  std::string afterFrom;
  model::Location at;  // the value on the head side; on the base side when removed
  // The environment (config `environments:`) both sides were analysed as; empty without.
  std::string environment = {};
};

// What changed in the inbound policy Linkerd serves one port of a workload it injects, in
// words: who may now, or may no longer, reach the port (and route), the Server serving it, the
// protocol.
struct LinkerdChange {
  std::string workload;  // Kind/namespace/name
  std::int64_t port = 0;
  std::string change;
  model::Location at;  // the object behind it on the head side; on the base side when removed
  // The environment (config `environments:`) both sides were analysed as; empty without.
  std::string environment = {};
};

struct Result {
  std::string base;  // how each side is named in reports
  std::string head;
  std::vector<PolicyChange> policies;         // by kind, namespace, name
  std::vector<AttachmentChange> attachments;  // by route, then parent
  std::vector<EffectiveChange> effective;     // by target, kind, path
  std::vector<KumaChange> kuma;               // by proxy, policy type, section, field
  std::vector<LinkerdChange> linkerd;         // by workload, port
  // Findings of one side whose fingerprint the other side does not have, in report order.
  std::vector<model::Finding> newFindings;
  std::vector<model::Finding> fixedFindings;

  bool empty() const {
    return policies.empty() && attachments.empty() && effective.empty() && kuma.empty() &&
           linkerd.empty() && newFindings.empty() && fixedFindings.empty();
  }
};

struct Side {
  const analysis::Analysis& analysis;
  const std::vector<model::Finding>& findings;  // the rule engine's, in report order
  std::string label;
};

// Every change carries the environment of the head's analysis (the base's when the head has
// none); findings carry theirs already.
Result compare(const Side& base, const Side& head);

// Appends `from`'s changes and findings to `into` (one environment's after another's); the
// labels stay `into`'s.
void append(Result& into, Result from);

// A node as one line of YAML flow syntax (`{a: 1, b: [x, y]}`), mapping keys in source
// order; strings quoted only when YAML would read them otherwise.
std::string flowText(yaml::NodeRef node);

}  // namespace pg::diff
