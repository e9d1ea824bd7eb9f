#include "lib/units/infer.h"

#include <algorithm>

namespace pg::units {

namespace {

// The files, objects and problems of `input` that `keep` accepts (by file path), in order.
template <typename Keep>
Unit select(const InferInput& input, Keep keep) {
  Unit unit;
  for (const std::unique_ptr<model::SourceFile>& f : input.files)
    if (keep(f->path)) unit.files.push_back(f.get());
  for (const model::Resource& r : input.resources)
    if (r.file && keep(r.file->path)) unit.resources.push_back(r);
  for (const load::Problem& p : input.problems)
    if (keep(p.location.path)) unit.problems.push_back(p);
  return unit;
}

Unit environmentUnit(const InferInput& input, const config::Environment& e) {
  Unit unit = select(input, [&](std::string_view path) {
    for (const std::vector<std::string>* list : {&e.paths, &e.shared})
      for (const std::string& folder : *list)
        if (under(path, folder)) return true;
    return false;
  });
  unit.name = e.name;
  unit.kind = UnitKind::Environment;
  unit.why = "declared under environments: in " + e.where.path;
  unit.where = e.where;
  return unit;
}

}  // namespace

std::string_view kindName(UnitKind kind) {
  switch (kind) {
    case UnitKind::Input:
      return "input";
    case UnitKind::Environment:
      return "environment";
    case UnitKind::Kustomize:
      return "kustomize";
    case UnitKind::Flux:
      return "flux";
    case UnitKind::ArgoCD:
      return "argocd";
    case UnitKind::Alternative:
      return "alternative";
  }
  return "input";
}

bool under(std::string_view path, std::string_view folder) {
  while (folder.starts_with("./")) folder.remove_prefix(2);
  while (folder.size() > 1 && folder.ends_with('/')) folder.remove_suffix(1);
  if (folder.empty() || folder == ".") return true;
  return path == folder ||
         (path.size() > folder.size() && path.starts_with(folder) && path[folder.size()] == '/');
}

Units inferUnits(const InferInput& input) {
  Units out;
  if (!input.environments.empty()) {
    for (const config::Environment& e : input.environments)
      out.units.push_back(environmentUnit(input, e));
    return out;
  }
  Unit whole = select(input, [](std::string_view) { return true; });
  whole.why = "the whole input: nothing in it says it is applied as several units";
  out.units.push_back(std::move(whole));
  return out;
}

}  // namespace pg::units
