#include "lib/units/infer.h"

#include <algorithm>
#include <map>
#include <set>

#include "lib/units/alternatives.h"
#include "lib/units/argocd.h"
#include "lib/units/flux.h"
#include "lib/units/kustomize.h"
#include "lib/units/sources.h"

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
    case UnitKind::Rest:
      return "rest";
  }
  return "input";
}

Units inferUnits(const InferInput& input) {
  Units out;
  if (!input.environments.empty()) {
    for (const config::Environment& e : input.environments)
      out.units.push_back(environmentUnit(input, e));
    return out;
  }
  std::set<std::string> claimed, consumed;
  std::vector<load::Problem> pendingNotes;  // for the unit that holds their file
  if (input.repository) {
    // kustomize builds a folder's kustomization.yaml, kustomization.yml or Kustomization; a
    // Kustomization under another name is recognised (and skipped) but built by nothing.
    std::vector<std::string> kustomizations;
    for (const load::SkippedFile& f : input.skipped) {
      const std::string_view name = std::string_view(f.path).substr(f.path.rfind('/') + 1);
      if (f.reason == load::SkipReason::Kustomization &&
          (name == "kustomization.yaml" || name == "kustomization.yml" || name == "Kustomization"))
        kustomizations.push_back(f.path);
    }
    Sources sources(input.files, input.resources, input.problems, *input.repository, input.limits,
                    *out.arena);
    Kustomizer kustomize(sources);
    // Flux clusters and Argo CD Applications first: the kustomizations they build are theirs.
    FluxClusters flux = fluxClusters(input.resources, kustomize, sources, input.rootInRepository);
    ArgoApplications argo =
        argoApplications(input.resources, kustomize, sources, input.rootInRepository);
    for (Unit& u : flux.units) out.units.push_back(std::move(u));
    for (Unit& u : argo.units) out.units.push_back(std::move(u));
    claimed.insert(flux.read.begin(), flux.read.end());
    claimed.insert(argo.read.begin(), argo.read.end());
    pendingNotes = std::move(argo.notes);
    // Roots: kustomizations no other includes (as a resource, base or component), where a
    // Component that nothing includes includes nothing either (it is never built).
    auto isComponent = [&](const std::string& k) {
      const model::SourceFile* file = sources.document(k);
      return file && !file->tree->documents().empty() &&
             file->tree->root(0).get("kind").str() == "Component";
    };
    std::map<std::string, std::vector<std::string>> includes;  // kustomization → included
    std::set<std::string> includedByAny;
    for (const std::string& k : kustomizations) {
      for (const std::string& folder : kustomize.includedFolders(k))
        if (std::optional<std::string> inner = kustomize.kustomizationIn(folder)) {
          includes[k].push_back(*inner);
          includedByAny.insert(*inner);
        }
      for (std::string& f : kustomize.consumedFiles(k)) consumed.insert(std::move(f));
    }
    std::set<std::string> included;
    for (const auto& [k, inner] : includes)
      if (!isComponent(k) || includedByAny.count(k)) included.insert(inner.begin(), inner.end());
    for (const std::string& k : kustomizations) {
      if (claimed.count(k)) continue;  // built by Flux or Argo CD
      // A Component is built only into the kustomizations that name it.
      const model::SourceFile* file = sources.document(k);
      if (included.count(k) || !file || file->tree->documents().empty() || isComponent(k)) continue;
      const std::string folder = load::folderOf(k);
      Build build = kustomize.build(folder);
      Unit unit;
      unit.name = folder.empty() ? "." : folder;
      unit.kind = UnitKind::Kustomize;
      unit.why = "kustomization " + k + ", which no other kustomization includes";
      unit.where = {k, {1, 1}, {1, 1}};
      unit.files = std::move(build.files);
      unit.resources = std::move(build.objects);
      unit.problems = std::move(build.problems);
      claimed.insert(build.read.begin(), build.read.end());
      out.units.push_back(std::move(unit));
    }
  }
  // What no unit claims is applied as it is: alternatives where files define the same object
  // differently, each with the files in no folder of alternatives; else one unit.
  auto unclaimed = [&](std::string_view path) {
    const std::string p(path);
    return !claimed.count(p) && !consumed.count(p);
  };
  // A file no unit includes whose documents have neither apiVersion nor kind is something
  // else's (a tool's config, an OpenAPI document, a compose file): skipped and counted, not an
  // error. A unit that includes one gets its IN109.
  std::set<std::string> withObjects;
  for (const model::Resource& r : input.resources)
    if (r.file) withObjects.insert(r.file->path);
  struct Signs {
    bool allForeign = true;     // every problem of the file is of a non-manifest
    bool noKubernetes = false;  // some document has neither apiVersion nor kind
  };
  std::map<std::string, Signs> foreign;
  for (const load::Problem& p : input.problems) {
    Signs& signs = foreign[p.location.path];
    signs.allForeign =
        signs.allForeign &&
        (p.notKubernetes || p.kind == load::ProblemKind::InvalidYaml ||
         p.kind == load::ProblemKind::NotAnObject || p.kind == load::ProblemKind::DuplicateKey);
    signs.noKubernetes = signs.noKubernetes || p.notKubernetes;
  }
  for (auto it = foreign.begin(); it != foreign.end();) {
    if (!it->second.allForeign || !it->second.noKubernetes || withObjects.count(it->first) ||
        !unclaimed(it->first)) {
      it = foreign.erase(it);
    } else {
      out.skipped.push_back({it->first, load::SkipReason::NotKubernetes});
      ++it;
    }
  }
  auto loose = [&](std::string_view path) {
    const std::string p(path);
    return !claimed.count(p) && !consumed.count(p) && !foreign.count(p);
  };
  std::vector<std::string> rest;
  for (const std::unique_ptr<model::SourceFile>& f : input.files)
    if (loose(f->path)) rest.push_back(f->path);
  Alternatives alternatives = findAlternatives(rest, input.resources, input.defaultNamespace);
  if (alternatives.alternatives.empty()) {
    Unit unit = select(input, loose);
    if (!unit.files.empty() || !unit.problems.empty() || out.units.empty()) {
      unit.name = "other";
      if (!out.units.empty()) {
        unit.kind = UnitKind::Rest;
        unit.why = "the files no kustomization, Flux Kustomization or Application includes";
      } else {
        unit.why = "the whole input: nothing in it says it is applied as several units";
      }
      out.units.push_back(std::move(unit));
    }
  } else {
    for (const Alternative& a : alternatives.alternatives) {
      const std::set<std::string> files(a.files.begin(), a.files.end());
      Unit unit =
          select(input, [&](std::string_view path) { return files.count(std::string(path)) > 0; });
      // The files it shares are applied first and its own over them, as a step of a guide or
      // a test of a suite is applied over the base.
      auto own = [&](const model::SourceFile* f) { return under(f->path, a.entry); };
      std::stable_partition(unit.files.begin(), unit.files.end(),
                            [&](const model::SourceFile* f) { return !own(f); });
      std::stable_partition(unit.resources.begin(), unit.resources.end(),
                            [&](const model::Resource& r) { return !r.file || !own(r.file); });
      unit.name = a.entry;
      unit.kind = UnitKind::Alternative;
      const auto shared = std::count_if(unit.files.begin(), unit.files.end(),
                                        [&](const model::SourceFile* f) { return !own(f); });
      unit.why = "one of the alternatives in " + (a.folder.empty() ? std::string(".") : a.folder) +
                 " (" + a.because + ")";
      if (shared > 0)
        unit.why += ", applied with the " + std::to_string(shared) + " file(s) they share";
      out.units.push_back(std::move(unit));
    }
    // Files no alternative applies (an unrelated tree beside the folders of alternatives) are
    // applied together, as files no unit claims are.
    std::set<std::string> inSome;
    for (const Alternative& a : alternatives.alternatives)
      for (const std::string& f : a.files)
        if (std::find(a.borrowed.begin(), a.borrowed.end(), f) == a.borrowed.end())
          inSome.insert(f);
    Unit other = select(input, [&](std::string_view path) {
      const std::string p(path);
      return loose(p) && !inSome.count(p);
    });
    if (!other.files.empty() || !other.problems.empty()) {
      other.name = "other";
      other.kind = UnitKind::Rest;
      other.why =
          "the files no kustomization, Flux Kustomization, Application or alternative "
          "includes";
      out.units.push_back(std::move(other));
    }
  }
  for (load::Problem& note : pendingNotes) {
    auto it = std::find_if(out.units.begin(), out.units.end(), [&](const Unit& u) {
      return std::any_of(u.files.begin(), u.files.end(),
                         [&](const model::SourceFile* f) { return f->path == note.location.path; });
    });
    if (it != out.units.end()) it->problems.push_back(std::move(note));
  }
  // One unit is the whole run: it needs no name.
  if (out.units.size() == 1) out.units.front().name.clear();
  return out;
}

}  // namespace pg::units
