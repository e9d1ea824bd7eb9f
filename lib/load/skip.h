// Files that sit among manifests without being any: kustomize's and Helm's own files, CI and
// tool configuration, dashboards. They are recognised and left out of the analysis, and the
// reports count them, so "no findings" never hides "not looked at".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/load/sources.h"

namespace pg::load {

enum class SkipReason : std::uint8_t {
  Kustomization,   // kustomization.yaml, Kustomization, or a Kustomization/Component document
  KustomizePatch,  // named in a kustomization's patches, patchesStrategicMerge, patchesJson6902
  HelmChart,       // Chart.yaml
  HelmValues,      // values*.yaml, values.schema.json
  HelmTemplate,    // anything under the templates/ folder of a chart
  ToolConfig,      // .github/, package.json and friends
  Dashboard,       // a Grafana dashboard (JSON with panels, no apiVersion or kind)
  NotKubernetes,   // documents without apiVersion and kind, in a file no unit includes
};

// How the summary names the reason ("kustomization", "Helm template", ...).
std::string_view skipReasonText(SkipReason reason);

struct SkippedFile {
  std::string path;  // as reported
  SkipReason reason;
};

// Takes out of `sources` the files recognised by their path (and, for kustomize patches, by
// the kustomizations among them, read from disk or from the entry's content), in order, and
// returns them. Standard input is never skipped.
std::vector<SkippedFile> skipNonManifests(std::vector<SourceEntry>& sources);

// "3 kustomization, 1 Helm chart": the counts per reason, in the enum's order; empty when none.
std::string skippedSummary(const std::vector<SkippedFile>& skipped);

}  // namespace pg::load
