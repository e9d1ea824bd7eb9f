#include "lib/units/argocd.h"

#include <algorithm>
#include <functional>
#include <map>

#include "lib/config/glob.h"

namespace pg::units {

namespace {

constexpr std::string_view kArgoGroup = "argoproj.io";

// One Application to build: what its source and destination say.
struct App {
  std::string name;
  std::string path;  // from the root
  std::string destinationNamespace;
  yaml::NodeRef source;                   // spec.source (or the spec.sources entry)
  const model::Resource* from = nullptr;  // the Application or ApplicationSet
  std::string cluster;                    // the destination cluster: its name, else its server
};

// How a destination names its cluster: `destination.name`, else the server, the one Argo CD
// runs in being `in-cluster` (its name for https://kubernetes.default.svc).
std::string clusterOf(yaml::NodeRef destination) {
  std::string_view name = destination.get("name").str(), server = destination.get("server").str();
  if (!name.empty()) return std::string(name);
  if (server.empty() || server == "https://kubernetes.default.svc") return "in-cluster";
  if (std::size_t scheme = server.find("://"); scheme != std::string_view::npos)
    server.remove_prefix(scheme + 3);
  std::string out(server);
  for (char& c : out)
    if (c == '/' || c == ':') c = '-';
  return out;
}

void placeInNamespace(std::vector<model::Resource>& objects, const std::string& space,
                      Arena& arena) {
  if (space.empty()) return;
  const std::string_view kept = arena.keep(space);
  for (model::Resource& r : objects)
    if ((!r.namespaceWritten || r.namespace_.empty()) && !r.universal &&
        !model::isBuiltinClusterScoped(r.group, r.kind)) {
      r.namespace_ = kept;
      r.namespaceWritten = true;
    }
}

// `{{path}}`, `{{path.basename}}`, `{{path[N]}}` and their Go-template forms, for one folder.
std::string fillTemplate(std::string_view text, const std::string& folder) {
  std::vector<std::string> parts;
  for (std::size_t start = 0; start <= folder.size();) {
    std::size_t slash = folder.find('/', start);
    parts.push_back(
        folder.substr(start, slash == std::string::npos ? std::string::npos : slash - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    std::size_t open = text.find("{{", i);
    if (open == std::string_view::npos) {
      out += text.substr(i);
      break;
    }
    out += text.substr(i, open - i);
    std::size_t close = text.find("}}", open + 2);
    if (close == std::string_view::npos) {
      out += text.substr(open);
      break;
    }
    std::string_view key = text.substr(open + 2, close - open - 2);
    while (!key.empty() && (key.front() == ' ' || key.front() == '.')) key.remove_prefix(1);
    while (!key.empty() && key.back() == ' ') key.remove_suffix(1);
    if (key == "path" || key == "path.path")
      out += folder;
    else if (key == "path.basename" || key == "path.basenameNormalized")
      out += parts.back();
    else if (key.starts_with("path[") && key.ends_with("]")) {
      std::size_t n = 0;
      for (char c : key.substr(5, key.size() - 6)) n = n * 10 + static_cast<std::size_t>(c - '0');
      out += n < parts.size() ? parts[n] : std::string();
    } else {
      out += text.substr(open, close + 2 - open);  // left as is, as Argo CD does
    }
    i = close + 2;
  }
  return out;
}

// Every folder under `folder` (itself included), sorted.
void folders(const load::Repository& repo, const std::string& folder, unsigned depth,
             std::vector<std::string>& out) {
  if (depth > 32) return;
  out.push_back(folder);
  for (const std::string& name : repo.entries(folder)) {
    const std::string path = folder.empty() ? name : folder + "/" + name;
    if (repo.isFolder(path)) folders(repo, path, depth + 1, out);
  }
}

std::vector<App> appsOf(const std::vector<model::Resource>& objects, Sources& sources,
                        const std::string& rootInRepository, std::vector<load::Problem>& notes) {
  std::vector<App> out;
  for (const model::Resource& r : objects) {
    if (r.group != kArgoGroup) continue;
    if (r.kind == "Application") {
      yaml::NodeRef spec = r.spec();
      std::vector<yaml::NodeRef> sourceList;
      if (spec.get("sources").isSequence())
        for (yaml::NodeRef s : spec.get("sources").items()) sourceList.push_back(s);
      else
        sourceList.push_back(spec.get("source"));
      for (yaml::NodeRef source : sourceList) {
        if (!source.get("path").isScalar()) continue;  // a chart from a Helm repository
        std::optional<std::string> path =
            folderFromTop(sources.repository(), source.get("path").str(), rootInRepository);
        if (!path) {
          notes.push_back({load::ProblemKind::UnitUnsupported,
                           r.locateField(source, "path"),
                           "Application " + std::string(r.name) + " applies " +
                               std::string(source.get("path").str()) +
                               ", which is not a folder of this repository (another "
                               "repository's): its objects are taken to exist elsewhere",
                           r.file ? r.file->path + "#argocd-path" : std::string(),
                           {}});
          continue;
        }
        out.push_back({std::string(r.name), *path,
                       std::string(spec.get("destination").get("namespace").str()), source, &r,
                       clusterOf(spec.get("destination"))});
      }
    } else if (r.kind == "ApplicationSet") {
      yaml::NodeRef tmpl = r.spec().get("template");
      yaml::NodeRef source = tmpl.get("spec").get("source");
      for (yaml::NodeRef generator : r.spec().get("generators").items()) {
        yaml::NodeRef git = generator.get("git");
        if (!git.get("directories").isSequence()) continue;
        std::vector<std::string> all;
        folders(sources.repository(), "", 0, all);
        for (const std::string& folder : all) {
          if (folder.empty()) continue;
          const std::string inRepo =
              rootInRepository.empty() ? folder : rootInRepository + "/" + folder;
          bool included = false, excluded = false;
          for (yaml::NodeRef d : git.get("directories").items()) {
            const bool match = config::globMatch(d.get("path").str(), inRepo);
            if (match && d.get("exclude").asBool().value_or(false)) excluded = true;
            if (match && !d.get("exclude").asBool().value_or(false)) included = true;
          }
          if (!included || excluded) continue;
          std::optional<std::string> path =
              folderFromTop(sources.repository(), fillTemplate(source.get("path").str(), inRepo),
                            rootInRepository);
          if (!path) continue;
          out.push_back(
              {fillTemplate(tmpl.get("metadata").get("name").str(), inRepo), *path,
               fillTemplate(tmpl.get("spec").get("destination").get("namespace").str(), inRepo),
               source, &r, clusterOf(tmpl.get("spec").get("destination"))});
        }
      }
    }
  }
  return out;
}

}  // namespace

ArgoApplications argoApplications(const std::vector<model::Resource>& objects,
                                  Kustomizer& kustomize, Sources& sources,
                                  const std::string& rootInRepository) {
  ArgoApplications out;
  std::vector<load::Problem> notes;
  std::vector<App> apps = appsOf(objects, sources, rootInRepository, notes);
  // Each Application's objects, then one unit per destination cluster: the Applications that
  // deploy to one cluster are applied to it together.
  std::map<std::string, Unit> clusters;
  std::map<std::string, std::vector<std::string>> names;
  for (const App& app : apps) {
    Unit unit;
    unit.where = app.from->locateField(app.source, "path");
    const load::Repository& repo = sources.repository();
    const bool isKustomize =
        kustomize.kustomizationIn(app.path).has_value() || app.source.get("kustomize").isMapping();
    const bool isHelm = app.source.get("helm").isMapping() || repo.isFile(app.path + "/Chart.yaml");
    if (isHelm && !isKustomize) {
      unit.why = std::string(app.from->kind) + " " + std::string(app.from->name) +
                 " renders the Helm chart in " + app.path + " (not rendered here)";
      unit.problems.push_back({load::ProblemKind::UnitUnsupported,
                               unit.where,
                               "Application " + app.name + " renders the Helm chart in " +
                                   app.path +
                                   ", which is not rendered here: its objects are taken to exist "
                                   "(lint `helm template` output piped to `policygraph lint -`)",
                               unit.where.path + "#" + app.name,
                               {}});
    } else if (isKustomize) {
      yaml::NodeRef k = app.source.get("kustomize");
      Overrides overrides;
      overrides.namespace_ = std::string(k.get("namespace").str());
      overrides.namePrefix = std::string(k.get("namePrefix").str());
      overrides.nameSuffix = std::string(k.get("nameSuffix").str());
      for (yaml::NodeRef p : k.get("patches").items()) overrides.patches.push_back(p);
      overrides.at = app.source.get("path");
      overrides.file = app.from->file;
      Build build = kustomize.build(app.path, overrides);
      unit.why = std::string(app.from->kind) + " " + std::string(app.from->name) +
                 " builds the kustomization in " + app.path;
      unit.files = std::move(build.files);
      unit.resources = std::move(build.objects);
      unit.problems = std::move(build.problems);
      out.read.insert(build.read.begin(), build.read.end());
    } else {
      // A folder of manifests: its own files, its sub-folders' with directory.recurse.
      const bool recurse = app.source.get("directory").get("recurse").asBool().value_or(false);
      std::function<void(const std::string&, unsigned)> add = [&](const std::string& folder,
                                                                  unsigned depth) {
        for (const std::string& name : repo.entries(folder)) {
          const std::string path = folder.empty() ? name : folder + "/" + name;
          if (repo.isFolder(path)) {
            if (recurse && depth < 32) add(path, depth + 1);
            continue;
          }
          if (!(name.ends_with(".yaml") || name.ends_with(".yml") || name.ends_with(".json")))
            continue;
          const Sources::Manifest* m = sources.manifest(path);
          if (!m) continue;
          out.read.insert(path);
          unit.files.push_back(m->file);
          unit.resources.insert(unit.resources.end(), m->objects.begin(), m->objects.end());
          unit.problems.insert(unit.problems.end(), m->problems.begin(), m->problems.end());
        }
      };
      add(app.path, 0);
      unit.why = std::string(app.from->kind) + " " + std::string(app.from->name) +
                 " applies the manifests in " + app.path + (recurse ? " and below" : "");
    }
    placeInNamespace(unit.resources, app.destinationNamespace, sources.arena());
    Unit& cluster = clusters[app.cluster];
    if (cluster.name.empty()) {
      cluster.name = "argocd/" + app.cluster;
      cluster.kind = UnitKind::ArgoCD;
      cluster.where = unit.where;
    }
    names[app.cluster].push_back(
        app.name + " (" + unit.why.substr(unit.why.find(' ', unit.why.find(' ') + 1) + 1) + ")");
    for (const model::SourceFile* f : unit.files)
      if (std::find(cluster.files.begin(), cluster.files.end(), f) == cluster.files.end())
        cluster.files.push_back(f);
    cluster.resources.insert(cluster.resources.end(), unit.resources.begin(), unit.resources.end());
    cluster.problems.insert(cluster.problems.end(), unit.problems.begin(), unit.problems.end());
  }
  for (auto& [name, cluster] : clusters) {
    std::string list;
    for (const std::string& n : names[name]) list += (list.empty() ? "" : "; ") + n;
    cluster.why = "the Argo CD Applications deploying to " + name + ": " + list;
    out.units.push_back(std::move(cluster));
  }
  out.notes = std::move(notes);
  return out;
}

}  // namespace pg::units
