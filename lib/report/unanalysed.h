// Kinds of objects in the input that nothing analyses: no stage reads them and no schema
// (built in, or a CRD in the input) describes them. The summaries list them, so that "no
// findings" never hides "not looked at".
#pragma once

#include <string>
#include <vector>

#include "lib/analysis/analysis.h"

namespace pg::report {

struct UnanalysedKind {
  std::string group;  // empty for the core group
  std::string kind;
  std::vector<std::string> objects;  // `path:line` of each object, in store order
};

// The kinds of every analysis (environments sharing folders count an object once), most
// objects first, then by kind and group.
std::vector<UnanalysedKind> unanalysedKinds(const std::vector<const analysis::Analysis*>& analyses);

// `3 ServiceMonitor, 1 Application`.
std::string unanalysedSummary(const std::vector<UnanalysedKind>& kinds);

}  // namespace pg::report
