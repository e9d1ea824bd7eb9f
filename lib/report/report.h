// Writing findings: text for people, JSON, SARIF 2.1.0, JUnit XML and GitHub workflow
// commands for machines. Every writer is deterministic: same input, same bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "lib/analysis/analysis.h"
#include "lib/diff/diff.h"
#include "lib/model/finding.h"
#include "lib/policy/access.h"

namespace pg::report {

struct ReportInput {
  const analysis::Analysis& analysis;
  const std::vector<model::Finding>& findings;  // in report order
  const std::vector<model::RuleInfo>& rules;    // the whole catalogue, ordered by ID
  std::size_t suppressed = 0;
  std::size_t baselined = 0;
  // With `environments:` in the config, each environment's analysis, in config order
  // (`analysis` is the first); empty otherwise.
  std::vector<const analysis::Analysis*> environments = {};
};

struct TextOptions {
  bool color = false;
  // A table of findings per rule (ID, severity, count, name) instead of one line per finding:
  // what a first run on a large repository can be read from.
  bool summary = false;
};

void writeText(std::ostream& out, const ReportInput& input, const TextOptions& options);
void writeJson(std::ostream& out, const ReportInput& input);
void writeSarif(std::ostream& out, const ReportInput& input);
void writeJunit(std::ostream& out, const ReportInput& input);
void writeGithub(std::ostream& out, const ReportInput& input);

// The simulated status of every Gateway, route and policy: {"items": [...]}, or that list
// as YAML (DESIGN.md, "Output contracts").
void writeStatusJson(std::ostream& out, const analysis::Analysis& analysis);
void writeStatusYaml(std::ostream& out, const analysis::Analysis& analysis);
// With environments: every environment's items, each with `environment` first.
void writeStatusJson(std::ostream& out, const std::vector<const analysis::Analysis*>& analyses);
void writeStatusYaml(std::ostream& out, const std::vector<const analysis::Analysis*>& analyses);

// `policygraph units`: each unit of the run (its name, kind, why it is one, its files with
// `files`), as text or JSON (`{"units": [{name, kind, why, objects, files}]}`).
void writeUnitsText(std::ostream& out, const std::vector<const analysis::Analysis*>& units,
                    bool files);
void writeUnitsJson(std::ostream& out, const std::vector<const analysis::Analysis*>& units);

// `policygraph explain`: the effective policies on one object (policy::effectiveOn), as a
// tree for the terminal, or the JSON/YAML document of DESIGN.md "Output contracts".
struct ExplainInput {
  const model::Resource& target;
  std::string_view section;  // a listener, rule or port; empty for the whole object
  const std::vector<policy::Effective>& effective;
  // A workload's Linkerd inbound servers (`linkerd.inbound`); null for other objects.
  const policy::linkerd::WorkloadInbound* linkerd = nullptr;
  // A Kuma-injected workload's derived proxy (`kuma`: writeKumaExplain of it); null otherwise.
  const graph::kuma::Dataplane* kuma = nullptr;
  const analysis::Analysis* analysis = nullptr;  // needed with `kuma`
};
void writeExplainText(std::ostream& out, const ExplainInput& input, const TextOptions& options);
void writeExplainJson(std::ostream& out, const ExplainInput& input);
// How explain, its annotated YAML and snapshots name where a value came from:
// `policy (role, level)`.
std::string originWords(std::string_view policy, std::string_view role, std::string_view level);
struct ExplainYamlOptions {
  // For files people review (snapshots): after each effective value a comment naming the
  // policy, role and level it came from, as its `provenance` entry does; empty lists and
  // mappings on their key's line.
  bool annotated = false;
};
void writeExplainYaml(std::ostream& out, const ExplainInput& input,
                      const ExplainYamlOptions& options = {});
std::string explainJsonText(const ExplainInput& input);

// `explain --format kuma-inspect`: Kuma's Inspect API document for a Dataplane or MeshGateway
// (`view` rules, policies or routes; `inbound`, `outbound`, `route` are KRIs), or the
// dataplanes a policy or MeshService selects. What Kuma answers with a 4xx is a
// KumaInspectError.
struct KumaInspectQuery {
  std::string kind, name, mesh;
  std::string view = "rules";
  std::string inbound, outbound, route;
  std::string systemNamespace = "kuma-system";
};
class KumaInspectError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
void writeKumaInspect(std::ostream& out, const analysis::Analysis& analysis,
                      const KumaInspectQuery& query);
// `explain` (text or JSON) on a Kuma Dataplane or MeshGateway: per policy type the policies that
// select it in Kuma's order, and each merged rule with the policy, file, line and column every
// field came from.
void writeKumaExplain(std::ostream& out, const analysis::Analysis& analysis,
                      const model::Resource& target, bool asJson, const TextOptions& options);
// The same for a proxy Kuma derives from a Kubernetes workload (`target` names the Dataplane,
// its namespace and the workload).
void writeKumaExplain(std::ostream& out, const analysis::Analysis& analysis,
                      const graph::kuma::Dataplane& dataplane, bool asJson,
                      const TextOptions& options);
// `explain --format yaml` on them: the same document as JSON, in YAML. `annotated` (snapshots)
// leaves out files, lines and columns (an unrelated edit must not change a snapshot) and puts
// after each effective value a comment naming the policy that set it.
void writeKumaExplainYaml(std::ostream& out, const analysis::Analysis& analysis,
                          const model::Resource& target, const ExplainYamlOptions& options = {});
void writeKumaExplainYaml(std::ostream& out, const analysis::Analysis& analysis,
                          const graph::kuma::Dataplane& dataplane,
                          const ExplainYamlOptions& options = {});
// The Kuma policy types some policy of which selects the proxy, in explain's order (empty: no
// Kuma policy reaches it).
std::vector<std::string> kumaPolicyTypes(const analysis::Analysis& analysis,
                                         const model::Resource& target);
std::vector<std::string> kumaPolicyTypes(const analysis::Analysis& analysis,
                                         const graph::kuma::Dataplane& dataplane);

// `policygraph access`: may this client make this request (policy::AccessResult), for people
// and as the JSON document of README "access".
struct AccessInput {
  const policy::AccessResult& result;
  const policy::AccessClient& client;
  const model::Resource& destination;
  std::int64_t port = 0;
  const policy::AccessRequest& request;  // `http` false: a connection
};
void writeAccessText(std::ostream& out, const AccessInput& input, const TextOptions& options);
void writeAccessJson(std::ostream& out, const AccessInput& input);

// `policygraph diff`: what a change does (lib/diff), for people (text), for machines (JSON)
// and for a pull-request comment (Markdown: a summary table first, the details folded, a
// Mermaid picture of the affected part of the head's graph, at most `maxBytes` long).
struct DiffReportInput {
  const diff::Result& diff;
  // The head's analysis, or with environments one per environment compared (each change
  // names its environment, and the Markdown picture is drawn from that environment's head).
  const std::vector<const analysis::Analysis*>& heads;
  const std::vector<model::RuleInfo>& rules;
};
struct MarkdownOptions {
  // GitHub refuses comments over 65,536 characters; leave room for what a workflow adds.
  std::size_t maxBytes = 60000;
  // The picture is left out when the affected part of the graph has more nodes.
  std::size_t maxGraphNodes = 60;
};
void writeDiffText(std::ostream& out, const DiffReportInput& input, const TextOptions& options);
void writeDiffJson(std::ostream& out, const DiffReportInput& input);
void writeDiffMarkdown(std::ostream& out, const DiffReportInput& input,
                       const MarkdownOptions& options);
// The comment's first line, hidden when rendered, by which a workflow finds the comment it
// posted before and updates it.
inline constexpr std::string_view kDiffCommentMarker = "<!-- policygraph-diff -->";

// The fingerprints in a JSON report written by writeJson, for `--baseline`. Throws
// std::runtime_error when the text is not such a report.
std::set<std::string> readBaseline(std::string_view jsonText);

std::string_view toolVersion();
// Where the project lives, and where each rule's page is published.
std::string_view informationUri();
std::string ruleHelpUri(const model::RuleInfo& rule);

}  // namespace pg::report
