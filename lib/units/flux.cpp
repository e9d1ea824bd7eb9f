#include "lib/units/flux.h"

#include <algorithm>
#include <functional>
#include <map>

#include "lib/model/encoding.h"
#include "lib/model/placeholder.h"
#include "lib/yaml/edit.h"

namespace pg::units {

namespace {

constexpr std::string_view kFluxGroup = "kustomize.toolkit.fluxcd.io";
constexpr std::string_view kDisabled = "kustomize.toolkit.fluxcd.io/substitute";

// `${...}` expanded in `text`; nothing when the text has no variable.
std::optional<std::string> expand(std::string_view text,
                                  const std::vector<std::pair<std::string, std::string>>& vars) {
  if (text.find('$') == std::string_view::npos) return std::nullopt;
  std::string out;
  bool changed = false;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == '$' && i + 1 < text.size() && text[i + 1] == '$') {
      out += '$';  // `$$` is a literal dollar
      i += 2;
      changed = true;
      continue;
    }
    if (text[i] != '$' || i + 1 >= text.size() || text[i + 1] != '{') {
      out += text[i++];
      continue;
    }
    const std::size_t close = text.find('}', i + 2);
    if (close == std::string_view::npos) {
      out += text.substr(i);
      break;
    }
    std::string_view inner = text.substr(i + 2, close - i - 2);
    std::string_view name = inner, fallback;
    bool hasDefault = false;
    for (std::string_view op : {":=", ":-", "=", "-"}) {
      if (std::size_t at = inner.find(op); at != std::string_view::npos) {
        name = inner.substr(0, at);
        fallback = inner.substr(at + op.size());
        hasDefault = true;
        break;
      }
    }
    std::string value;
    auto it =
        std::find_if(vars.begin(), vars.end(), [&](const auto& v) { return v.first == name; });
    if (it != vars.end() && !it->second.empty())
      value = it->second;
    else if (hasDefault)
      value = std::string(fallback);
    out += value;
    changed = true;
    i = close + 1;
  }
  if (!changed) return std::nullopt;
  return out;
}

// `resolved` is told the source node of each scalar left with no placeholder.
bool substituteIn(yaml::EditNode& n, const std::vector<std::pair<std::string, std::string>>& vars,
                  unsigned depth, const std::function<void(yaml::NodeRef)>& resolved) {
  if (depth > 200) return false;
  if (n.isScalar()) {
    std::optional<std::string> text = expand(n.text, vars);
    if (!text) return false;
    n.text = std::move(*text);
    if (resolved && !model::holdsPlaceholder(n.text)) resolved(n.source);
    return true;
  }
  bool changed = false;
  for (yaml::EditNode& c : n.children)
    changed = substituteIn(c, vars, depth + 1, resolved) || changed;
  return changed;
}

// The path a Flux Kustomization builds, from the root ("" for the root itself); nothing when
// it lies outside the root.
std::optional<std::string> pathOf(const model::Resource& ks, const Sources& sources,
                                  const std::string& rootInRepository) {
  return folderFromTop(sources.repository(), ks.spec().get("path").str(), rootInRepository);
}

struct Built {
  const model::Resource* ks;
  Build build;
  ResolvedLines resolved;  // lines of its files whose placeholders it substituted
};

}  // namespace

bool substitute(model::Resource& object,
                const std::vector<std::pair<std::string, std::string>>& vars, Arena& arena,
                yaml::NodeRef, ResolvedLines* resolved) {
  if (vars.empty() || !object.node) return false;
  if (object.label(kDisabled) == "disabled" || object.annotation(kDisabled) == "disabled")
    return false;
  std::string_view text = object.node.tree() ? object.node.tree()->text() : std::string_view();
  // Most objects hold no variable: only those whose file text has one are copied.
  if (!text.empty() && text.find("${") == std::string_view::npos &&
      text.find("$$") == std::string_view::npos)
    return false;
  yaml::EditNode edit = yaml::EditNode::copy(object.node);
  std::function<void(yaml::NodeRef)> onResolved;
  if (resolved)
    onResolved = [&](yaml::NodeRef source) {
      if (source) resolved->emplace(object.pathOf(source), source.start().line);
    };
  if (!substituteIn(edit, vars, 0, onResolved)) return false;
  arena.trees.push_back(yaml::build(edit, [](const yaml::Tree*) { return std::string(); }));
  object.node = arena.trees.back()->root(0);
  object.document = 0;
  object.metadataNode = {};
  object.specNode = {};
  yaml::NodeRef meta = object.node.get("metadata");
  if (meta.get("name").str() != object.name)
    object.name = arena.keep(std::string(meta.get("name").str()));
  if (yaml::NodeRef ns = meta.get("namespace"); ns.isScalar() && ns.str() != object.namespace_) {
    object.namespace_ = arena.keep(std::string(ns.str()));
    object.namespaceWritten = true;
  }
  return true;
}

FluxClusters fluxClusters(const std::vector<model::Resource>& objects, Kustomizer& kustomize,
                          Sources& sources, const std::string& rootInRepository) {
  FluxClusters out;
  std::vector<const model::Resource*> kustomizations;
  for (const model::Resource& r : objects)
    if (r.group == kFluxGroup && r.kind == "Kustomization") kustomizations.push_back(&r);
  if (kustomizations.empty()) return out;

  // Every Flux Kustomization built from its path.
  std::vector<Built> built;
  for (const model::Resource* ks : kustomizations) {
    Built b{ks, {}, {}};
    yaml::NodeRef spec = ks->spec();
    std::optional<std::string> folder = pathOf(*ks, sources, rootInRepository);
    if (!folder) {
      b.build.problems.push_back(
          {load::ProblemKind::UnitUnsupported,
           ks->locateField(spec, "path"),
           "Kustomization " + std::string(ks->namespace_) + "/" + std::string(ks->name) +
               " builds " + std::string(spec.get("path").str()) +
               ", which is not a folder of this repository (another source's): its objects are "
               "taken to exist elsewhere",
           ks->file ? ks->file->path + "#flux-path" : std::string(),
           {}});
      built.push_back(std::move(b));
      continue;
    }
    Overrides overrides;
    overrides.namespace_ = std::string(spec.get("targetNamespace").str());
    overrides.namePrefix = std::string(spec.get("namePrefix").str());
    overrides.nameSuffix = std::string(spec.get("nameSuffix").str());
    for (yaml::NodeRef p : spec.get("patches").items()) overrides.patches.push_back(p);
    overrides.at = spec.get("path");
    overrides.file = ks->file;
    b.build = kustomize.build(*folder, overrides);
    built.push_back(std::move(b));
  }
  // Variables: postBuild.substitute over substituteFrom, ConfigMaps and Secrets of the same
  // namespace, read from the objects of every build (where a cluster keeps them).
  std::map<std::pair<std::string, std::string>, const model::Resource*> configs;
  for (const Built& b : built)
    for (const model::Resource& r : b.build.objects)
      if (r.group.empty() && (r.kind == "ConfigMap" || r.kind == "Secret"))
        configs.emplace(std::make_pair(std::string(r.kind) + "/" + std::string(r.namespace_),
                                       std::string(r.name)),
                        &r);
  for (const model::Resource& r : objects)
    if (r.group.empty() && (r.kind == "ConfigMap" || r.kind == "Secret"))
      configs.emplace(std::make_pair(std::string(r.kind) + "/" + std::string(r.namespace_),
                                     std::string(r.name)),
                      &r);
  for (Built& b : built) {
    yaml::NodeRef post = b.ks->spec().get("postBuild");
    if (!post) continue;
    std::vector<std::pair<std::string, std::string>> vars;
    auto set = [&](std::string key, std::string value) {
      value.erase(std::remove(value.begin(), value.end(), '\n'), value.end());
      auto it =
          std::find_if(vars.begin(), vars.end(), [&](const auto& v) { return v.first == key; });
      if (it == vars.end())
        vars.emplace_back(std::move(key), std::move(value));
      else
        it->second = std::move(value);
    };
    for (yaml::NodeRef from : post.get("substituteFrom").items()) {
      const std::string kind(from.get("kind").str());
      auto it = configs.find(
          {kind + "/" + std::string(b.ks->namespace_), std::string(from.get("name").str())});
      if (it == configs.end()) continue;
      for (auto [k, v] : it->second->node.get("data").entries())
        set(std::string(k.str()),
            kind == "Secret" ? model::decodeBase64(v.str()) : std::string(v.str()));
      if (kind == "Secret")
        for (auto [k, v] : it->second->node.get("stringData").entries())
          set(std::string(k.str()), std::string(v.str()));
    }
    for (auto [k, v] : post.get("substitute").entries())
      set(std::string(k.str()), std::string(v.str()));
    for (model::Resource& r : b.build.objects)
      substitute(r, vars, sources.arena(), post, &b.resolved);
  }

  // Which Kustomization's build holds which: an entry point is one no other Kustomization
  // builds (or only itself: a flux-system syncing its own folder).
  std::map<const model::Resource*, std::vector<std::size_t>> builds;  // ks → builds holding it
  for (std::size_t i = 0; i < built.size(); ++i)
    for (const Built& other : built)
      if (other.ks->file && built[i].build.read.count(other.ks->file->path))
        builds[other.ks].push_back(i);
  std::map<std::string, std::vector<std::size_t>> clusters;  // entry folder → entry points
  for (std::size_t i = 0; i < built.size(); ++i) {
    const std::vector<std::size_t>& by = builds[built[i].ks];
    const bool entry = std::all_of(by.begin(), by.end(), [&](std::size_t j) { return j == i; });
    if (!entry || !built[i].ks->file) continue;
    // `clusters/x/flux-system` (Flux's bootstrap) belongs to `clusters/x`.
    std::string folder = load::folderOf(built[i].ks->file->path);
    if (folder.ends_with("/flux-system") || folder == "flux-system")
      folder = load::folderOf(folder);
    clusters[folder].push_back(i);
  }
  for (auto& [folder, entries] : clusters) {
    std::set<std::size_t> reached(entries.begin(), entries.end());
    std::vector<std::size_t> queue(entries.begin(), entries.end());
    while (!queue.empty()) {
      const std::size_t i = queue.back();
      queue.pop_back();
      for (std::size_t j = 0; j < built.size(); ++j)
        if (!reached.count(j) && built[j].ks->file &&
            built[i].build.read.count(built[j].ks->file->path)) {
          reached.insert(j);
          queue.push_back(j);
        }
    }
    Unit unit;
    unit.name = folder.empty() ? "." : folder;
    unit.kind = UnitKind::Flux;
    unit.why = "the Flux Kustomizations reached from " + folder + " (" +
               std::to_string(reached.size()) + " Kustomization(s))";
    unit.where = built[entries.front()].ks->locate(built[entries.front()].ks->node);
    std::set<const model::SourceFile*> files;
    // The entry points' own files, when no build of theirs holds them.
    for (std::size_t i : entries) {
      const model::Resource* ks = built[i].ks;
      if (built[i].build.read.count(ks->file->path) || !files.insert(ks->file).second) continue;
      unit.files.push_back(ks->file);
      out.read.insert(ks->file->path);
      if (const Sources::Manifest* m = sources.manifest(ks->file->path)) {
        for (const model::Resource& r : m->objects) unit.resources.push_back(r);
        for (const load::Problem& p : m->problems) unit.problems.push_back(p);
      }
    }
    for (std::size_t i : reached) {
      Build& b = built[i].build;
      for (const model::SourceFile* f : b.files)
        if (files.insert(f).second) unit.files.push_back(f);
      unit.resources.insert(unit.resources.end(), b.objects.begin(), b.objects.end());
      unit.problems.insert(unit.problems.end(), b.problems.begin(), b.problems.end());
      unit.resolvedLines.insert(built[i].resolved.begin(), built[i].resolved.end());
      out.read.insert(b.read.begin(), b.read.end());
    }
    // dependsOn: Flux applies a Kustomization only once each one it depends on is ready. One
    // this cluster lacks, though the repository defines it for another, is never ready here:
    // nothing of the dependent is applied. (One the repository does not define at all may come
    // from elsewhere, as bootstrap's flux-system does: not reported.)
    auto spaceOf = [](const model::Resource& r) {
      return r.namespace_.empty() ? std::string_view("default") : r.namespace_;
    };
    for (std::size_t i : reached) {
      const model::Resource& ks = *built[i].ks;
      for (yaml::NodeRef dep : ks.spec().get("dependsOn").items()) {
        const std::string_view name = dep.get("name").str();
        const std::string_view space =
            dep.get("namespace").str().empty() ? spaceOf(ks) : dep.get("namespace").str();
        if (name.empty()) continue;
        auto same = [&](const model::Resource* r) {
          return r->name == name && spaceOf(*r) == space;
        };
        if (std::any_of(reached.begin(), reached.end(),
                        [&](std::size_t j) { return same(built[j].ks); }) ||
            std::none_of(kustomizations.begin(), kustomizations.end(), same))
          continue;
        unit.problems.push_back(
            {load::ProblemKind::UnitBuild,
             ks.locate(dep.get("name") ? dep.get("name") : dep),
             "Flux Kustomization " + std::string(spaceOf(ks)) + "/" + std::string(ks.name) +
                 " depends on Kustomization " + std::string(space) + "/" + std::string(name) +
                 ", which this cluster (" + unit.name +
                 ") does not apply, though the repository defines it for another: Flux waits "
                 "for it and applies nothing of " +
                 std::string(ks.name),
             "dependsOn/" + std::string(ks.name) + "/" + std::string(name),
             {}});
      }
    }
    std::sort(
        unit.files.begin(), unit.files.end(),
        [](const model::SourceFile* a, const model::SourceFile* b) { return a->path < b->path; });
    out.units.push_back(std::move(unit));
  }
  return out;
}

}  // namespace pg::units
