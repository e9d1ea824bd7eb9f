// Runs every enabled rule over an Analysis, then applies the config's severities, the
// suppressions (config and `policygraph.dev/ignore` annotations) and the baseline.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "lib/analysis/analysis.h"
#include "lib/model/finding.h"

namespace pg::rules {

struct RuleRun {
  std::vector<model::Finding> findings;  // in report order
  std::size_t suppressed = 0;            // by config or annotation
  std::size_t baselined = 0;             // by --baseline
};

RuleRun runRules(const analysis::Analysis& analysis, const std::set<std::string>& baseline = {});
// Every unit's findings as one report: a finding several units give alike (a file they share)
// is reported once, `environment` naming the units (or how many, past three).
RuleRun runRules(const std::vector<const analysis::Analysis*>& units,
                 const std::set<std::string>& baseline = {});

// The catalogue: every rule's entry, ordered by ID.
std::vector<model::RuleInfo> catalogue();

// The annotation that suppresses findings on an object: `"PA301,GW203 -- reason"`.
inline constexpr std::string_view kIgnoreAnnotation = "policygraph.dev/ignore";
// The rule IDs an ignore annotation names (everything before ` -- `, split on commas).
std::vector<std::string> parseIgnoreAnnotation(std::string_view value);

}  // namespace pg::rules
