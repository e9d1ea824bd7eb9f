#include "lib/load/skip.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>

#include "lib/load/repository.h"
#include "lib/model/file.h"
#include "lib/yaml/parser.h"

namespace pg::load {

namespace {

// The last element of a reported path.

std::string_view nameOf(std::string_view path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool isKustomizationName(std::string_view name) {
  return name == "kustomization.yaml" || name == "kustomization.yml" || name == "Kustomization";
}

// The entry's text; empty when it cannot be read or is over the size limit (the loader
// reports both).
std::string textOf(const SourceEntry& entry) {
  if (entry.content) return *entry.content;
  if (entry.absolutePath.empty()) return {};
  return model::readFile(entry.absolutePath, config::Limits{}.maxFileBytes).text;
}

// The files a kustomization names as patches, relative to its folder: `patches[].path`,
// `patchesJson6902[].path`, and the entries of `patchesStrategicMerge` that are file names
// (an inline patch holds a newline).
std::vector<std::string> patchFiles(const SourceEntry& kustomization) {
  std::vector<std::string> out;
  yaml::ParseResult parsed = yaml::parse(textOf(kustomization), {}, false);
  if (!parsed.problems.empty() || parsed.tree->documents().empty()) return out;
  yaml::NodeRef root = parsed.tree->root(0);
  if (!root.isMapping()) return out;
  for (std::string_view key : {"patches", "patchesJson6902"})
    for (yaml::NodeRef item : root.get(key).items())
      if (yaml::NodeRef path = item.get("path"); path.isString()) out.emplace_back(path.str());
  for (yaml::NodeRef item : root.get("patchesStrategicMerge").items())
    if (item.isString() && item.str().find('\n') == std::string_view::npos)
      out.emplace_back(item.str());
  return out;
}

std::optional<SkipReason> reasonByPath(std::string_view path,
                                       const std::set<std::string, std::less<>>& charts) {
  const std::string_view name = nameOf(path);
  if (isKustomizationName(name)) return SkipReason::Kustomization;
  if (name == "Chart.yaml" || name == "Chart.yml") return SkipReason::HelmChart;
  if ((name.starts_with("values") && (name.ends_with(".yaml") || name.ends_with(".yml"))) ||
      name == "values.schema.json")
    return SkipReason::HelmValues;
  if (name == "package.json" || name == "package-lock.json" || name == "tsconfig.json" ||
      name == "renovate.json" || path.starts_with(".github/") ||
      path.find("/.github/") != std::string_view::npos)
    return SkipReason::ToolConfig;
  // Under `<chart>/templates/`, at any depth.
  for (std::size_t at = path.find("templates/"); at != std::string_view::npos;
       at = path.find("templates/", at + 1)) {
    if (at != 0 && path[at - 1] != '/') continue;
    std::string_view chart = at == 0 ? std::string_view() : path.substr(0, at - 1);
    if (charts.contains(chart)) return SkipReason::HelmTemplate;
  }
  return std::nullopt;
}

}  // namespace

std::string_view skipReasonText(SkipReason reason) {
  switch (reason) {
    case SkipReason::Kustomization:
      return "kustomization";
    case SkipReason::KustomizePatch:
      return "kustomize patch";
    case SkipReason::HelmChart:
      return "Helm chart";
    case SkipReason::HelmValues:
      return "Helm values";
    case SkipReason::HelmTemplate:
      return "Helm template";
    case SkipReason::ToolConfig:
      return "CI or tool configuration";
    case SkipReason::Dashboard:
      return "dashboard";
    case SkipReason::NotKubernetes:
      return "no apiVersion or kind";
  }
  return "not a manifest";
}

std::vector<SkippedFile> skipNonManifests(std::vector<SourceEntry>& sources) {
  std::set<std::string, std::less<>> charts;  // folders holding a Chart.yaml
  std::set<std::string, std::less<>> patches;
  for (const SourceEntry& s : sources) {
    if (s.isStdin) continue;
    std::string_view name = nameOf(s.path);
    if (name == "Chart.yaml" || name == "Chart.yml") charts.emplace(folderOf(s.path));
    if (isKustomizationName(name))
      for (const std::string& patch : patchFiles(s))
        patches.insert(normalPath(folderOf(s.path), patch));
  }
  std::vector<SkippedFile> skipped;
  std::erase_if(sources, [&](const SourceEntry& s) {
    if (s.isStdin) return false;
    std::optional<SkipReason> reason = reasonByPath(s.path, charts);
    if (!reason && patches.contains(s.path)) reason = SkipReason::KustomizePatch;
    if (!reason) return false;
    skipped.push_back({s.path, *reason});
    return true;
  });
  return skipped;
}

std::string skippedSummary(const std::vector<SkippedFile>& skipped) {
  std::map<SkipReason, std::size_t> counts;
  for (const SkippedFile& s : skipped) ++counts[s.reason];
  std::string out;
  for (const auto& [reason, n] : counts)
    out +=
        (out.empty() ? "" : ", ") + std::to_string(n) + " " + std::string(skipReasonText(reason));
  return out;
}

}  // namespace pg::load
