// Writing findings: text for people, JSON, SARIF 2.1.0, JUnit XML and GitHub workflow
// commands for machines. Every writer is deterministic: same input, same bytes.
#pragma once

#include <cstddef>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "lib/analysis/analysis.h"
#include "lib/model/finding.h"

namespace pg::report {

struct ReportInput {
  const analysis::Analysis& analysis;
  const std::vector<model::Finding>& findings;  // in report order
  const std::vector<model::RuleInfo>& rules;    // the whole catalogue, ordered by ID
  std::size_t suppressed = 0;
  std::size_t baselined = 0;
};

struct TextOptions {
  bool color = false;
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

// `policygraph explain`: the effective policies on one object (policy::effectiveOn), as a
// tree for the terminal, or the JSON/YAML document of DESIGN.md "Output contracts".
struct ExplainInput {
  const model::Resource& target;
  std::string_view section;  // a listener, rule or port; empty for the whole object
  const std::vector<policy::Effective>& effective;
};
void writeExplainText(std::ostream& out, const ExplainInput& input, const TextOptions& options);
void writeExplainJson(std::ostream& out, const ExplainInput& input);
void writeExplainYaml(std::ostream& out, const ExplainInput& input);
std::string explainJsonText(const ExplainInput& input);

// The fingerprints in a JSON report written by writeJson, for `--baseline`. Throws
// std::runtime_error when the text is not such a report.
std::set<std::string> readBaseline(std::string_view jsonText);

std::string_view toolVersion();
// Where the project lives, and where each rule's page is published.
std::string_view informationUri();
std::string ruleHelpUri(const model::RuleInfo& rule);

}  // namespace pg::report
