#include "lib/units/alternatives.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "lib/load/repository.h"
#include "lib/units/infer.h"

namespace pg::units {

namespace {

// The deepest folder holding both paths ("" for the root).
std::string commonFolder(std::string_view a, std::string_view b) {
  std::size_t common = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size() && a[i] == b[i]; ++i)
    if (a[i] == '/') common = i;
  // Up to the last slash both share as a whole folder name.
  std::string_view folder = a.substr(0, common);
  if (common == 0) return {};
  return std::string(folder);
}

// The entry of `folder` that holds `path`: `folder/name`, one level down.
std::string entryOf(std::string_view folder, std::string_view path) {
  std::string_view rest = folder.empty() ? path : path.substr(folder.size() + 1);
  std::size_t slash = rest.find('/');
  std::string_view name = rest.substr(0, slash);
  return folder.empty() ? std::string(name) : std::string(folder) + "/" + std::string(name);
}

std::string identityOf(const model::Resource& r, std::string_view defaultNamespace) {
  std::string space;
  if (r.universal)
    space = "@" + std::string(r.mesh);
  else if (!model::isBuiltinClusterScoped(r.group, r.kind))
    space = r.namespaceWritten && !r.namespace_.empty() ? std::string(r.namespace_)
                                                        : std::string(defaultNamespace);
  return std::string(r.group) + "/" + std::string(r.kind) + "/" + space + "/" + std::string(r.name);
}

}  // namespace

bool steps(std::string_view a, std::string_view b) {
  const std::size_t sa = a.rfind('/'), sb = b.rfind('/');
  if (a.substr(0, sa == std::string_view::npos ? 0 : sa) !=
      b.substr(0, sb == std::string_view::npos ? 0 : sb))
    return false;
  auto digit = [](std::string_view path, std::size_t slash) {
    const std::size_t at = slash == std::string_view::npos ? 0 : slash + 1;
    return at < path.size() && path[at] >= '0' && path[at] <= '9';
  };
  return digit(a, sa) && digit(b, sb);
}

namespace {

// The objects `r` names through the fields that make one object depend on another: route
// parents and backends, policy targets, a Gateway's class, its listeners' certificates, and its
// own namespace. As identities (`group/kind/namespace/name`).
std::vector<std::string> referencesOf(const model::Resource& r, std::string_view defaultNamespace) {
  std::vector<std::string> out;
  const std::string own = r.namespaceWritten && !r.namespace_.empty()
                              ? std::string(r.namespace_)
                              : std::string(defaultNamespace);
  if (!model::isBuiltinClusterScoped(r.group, r.kind)) out.push_back("/Namespace//" + own);
  auto add = [&](yaml::NodeRef ref, std::string_view group, std::string_view kind) {
    if (!ref.get("name").isScalar()) return;
    std::string_view g = ref.get("group") ? ref.get("group").str() : group;
    std::string_view k = ref.get("kind") ? ref.get("kind").str() : kind;
    std::string_view ns = ref.get("namespace").str();
    out.push_back(std::string(g) + "/" + std::string(k) + "/" +
                  (ns.empty() ? own : std::string(ns)) + "/" + std::string(ref.get("name").str()));
  };
  yaml::NodeRef spec = r.spec();
  for (yaml::NodeRef p : spec.get("parentRefs").items())
    add(p, "gateway.networking.k8s.io", "Gateway");
  for (yaml::NodeRef rule : spec.get("rules").items())
    for (yaml::NodeRef b : rule.get("backendRefs").items()) add(b, "", "Service");
  for (yaml::NodeRef t : spec.get("targetRefs").items()) add(t, "", "");
  if (spec.get("targetRef").isMapping()) add(spec.get("targetRef"), "", "");
  if (spec.get("gatewayClassName").isScalar())
    out.push_back("gateway.networking.k8s.io/GatewayClass//" +
                  std::string(spec.get("gatewayClassName").str()));
  for (yaml::NodeRef l : spec.get("listeners").items())
    for (yaml::NodeRef c : l.get("tls").get("certificateRefs").items()) add(c, "", "Secret");
  return out;
}

}  // namespace

Alternatives findAlternatives(const std::vector<std::string>& files,
                              const std::vector<model::Resource>& objects,
                              std::string_view defaultNamespace) {
  Alternatives out;
  std::set<std::string, std::less<>> considered(files.begin(), files.end());
  // Each identity's first definition per file.
  // Identities defined in more than one file: the first definition per identity, and the
  // others only where a second file defines it (most repositories have none).
  std::unordered_map<std::string, const model::Resource*> first;
  first.reserve(objects.size());
  std::map<std::string, std::vector<const model::Resource*>> byIdentity;  // only repeated ones
  for (const model::Resource& r : objects) {
    if (!r.file || r.name.empty() || r.kind.empty() || !considered.count(r.file->path)) continue;
    std::string identity = identityOf(r, defaultNamespace);
    auto [it, added] = first.try_emplace(identity, &r);
    if (added || it->second->file == r.file) continue;
    std::vector<const model::Resource*>& defs = byIdentity[std::move(identity)];
    if (defs.empty()) defs.push_back(it->second);
    if (std::none_of(defs.begin(), defs.end(),
                     [&](const model::Resource* d) { return d->file == r.file; }))
      defs.push_back(&r);
  }
  if (byIdentity.empty()) return out;
  // What each file defines and names, for whether two files are meant to be applied together;
  // worked out for the files that repeat an identity only.
  std::map<std::string, std::set<std::string>, std::less<>> defines, names;  // file → identities
  std::set<std::string, std::less<>> involved;
  for (const auto& [identity, defs] : byIdentity)
    for (const model::Resource* d : defs) involved.insert(d->file->path);
  for (const model::Resource& r : objects) {
    if (!r.file || !involved.count(r.file->path)) continue;
    defines[r.file->path].insert(identityOf(r, defaultNamespace));
    for (std::string& ref : referencesOf(r, defaultNamespace))
      names[r.file->path].insert(std::move(ref));
  }
  // Whether a file names what another one defines (beyond what it defines itself): the two are
  // applied together, and two definitions of one object there are a real duplicate.
  auto uses = [&](const std::string& a, const std::string& b) {
    const std::set<std::string>& own = defines[a];
    for (const std::string& ref : names[a])
      if (!own.count(ref) && defines[b].count(ref)) return true;
    return false;
  };
  struct Collision {
    std::string first, second, folder, why;
  };
  std::vector<Collision> collisions;
  for (const auto& [identity, defs] : byIdentity)
    for (std::size_t i = 0; i < defs.size(); ++i)
      for (std::size_t j = i + 1; j < defs.size(); ++j) {
        if (yaml::sameValue(defs[i]->node, defs[j]->node)) continue;
        const std::string& a = defs[i]->file->path;
        const std::string& b = defs[j]->file->path;
        // Steps of a guide update what the ones before made; files that depend on each other
        // are one apply: neither makes alternatives.
        if (steps(a, b) || uses(a, b) || uses(b, a)) continue;
        collisions.push_back({defs[i]->file->path, defs[j]->file->path,
                              commonFolder(defs[i]->file->path, defs[j]->file->path),
                              defs[i]->file->path + " and " + defs[j]->file->path +
                                  " both define " + std::string(defs[i]->kind) + " " +
                                  std::string(defs[i]->name) + ", differently"});
      }
  std::map<std::string, std::string> folders;  // folder of alternatives → why
  for (const Collision& c : collisions) folders.try_emplace(c.folder, c.why);
  // A file of a folder of alternatives that redefines an object of a file in none (a test that
  // redefines a backend of the suite's base) overrides it: that makes no folder of
  // alternatives of the two's common folder. Until nothing changes.
  auto inDeeper = [&](const std::string& path, const std::string& folder) {
    for (const auto& [f, why] : folders)
      if (f.size() > folder.size() && (folder.empty() || under(f, folder)) && under(path, f))
        return true;
    return false;
  };
  for (bool changed = true; changed;) {
    changed = false;
    std::map<std::string, std::string> kept;
    for (const Collision& c : collisions) {
      if (!folders.count(c.folder)) continue;
      const bool first = inDeeper(c.first, c.folder), second = inDeeper(c.second, c.folder);
      if (first != second) continue;  // an override, explained by the deeper folder
      kept.try_emplace(c.folder, c.why);
    }
    changed = kept.size() != folders.size();
    folders = std::move(kept);
  }
  if (folders.empty()) return out;
  // Every entry of a folder of alternatives is an alternative of its own (a test of a suite,
  // an example), except a file directly in it that collides with nothing and defines what the
  // colliding files name (the Gateway an examples folder's routes attach to): that one is
  // applied with each alternative instead.
  std::set<std::string> colliding;
  std::map<std::string, std::set<std::string>> named;  // folder → what its colliding files name
  for (const Collision& c : collisions)
    if (folders.count(c.folder)) {
      colliding.insert(entryOf(c.folder, c.first));
      colliding.insert(entryOf(c.folder, c.second));
      for (const std::string* file : {&c.first, &c.second})
        named[c.folder].insert(names[*file].begin(), names[*file].end());
    }
  std::set<std::string> sharedFiles;
  for (const model::Resource& r : objects) {
    if (!r.file || colliding.count(r.file->path) || sharedFiles.count(r.file->path)) continue;
    const std::string folder = load::folderOf(r.file->path);
    auto it = named.find(folder);
    if (it != named.end() && it->second.count(identityOf(r, defaultNamespace)))
      sharedFiles.insert(r.file->path);
  }
  // Each file's entries: one per folder of alternatives it lies in, outermost first.
  std::vector<std::vector<std::string>> entries(files.size());
  for (std::size_t i = 0; i < files.size(); ++i)
    for (const auto& [folder, why] : folders) {  // std::map: outer folders sort first
      if ((!folder.empty() && !under(files[i], folder)) || files[i] == folder) continue;
      std::string entry = entryOf(folder, files[i]);
      if (entry == files[i] && sharedFiles.count(entry)) continue;
      entries[i].push_back(std::move(entry));
    }
  // What each file of the input defines and names, for the alternatives of a top-level folder
  // (worked out once, when one needs it).
  std::map<std::string, std::set<std::string>, std::less<>> allDefines, allNames;
  auto defineAll = [&] {
    if (!allDefines.empty()) return;
    for (const model::Resource& r : objects) {
      if (!r.file || !considered.count(r.file->path)) continue;
      allDefines[r.file->path].insert(identityOf(r, defaultNamespace));
      for (std::string& ref : referencesOf(r, defaultNamespace))
        allNames[r.file->path].insert(std::move(ref));
    }
  };
  // An alternative per innermost entry; its files are those whose entries all are its own.
  std::map<std::string, Alternative> byEntry;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (entries[i].empty()) continue;
    const std::string& entry = entries[i].back();
    Alternative& a = byEntry[entry];
    if (!a.entry.empty()) continue;
    a.entry = entry;
    a.folder = load::folderOf(entry);
    a.because = folders[a.folder];
    const std::set<std::string> own(entries[i].begin(), entries[i].end());
    // What it shares lies beside its folder of alternatives: a conformance suite's base
    // manifests next to its tests, not the files of an unrelated tree of the repository.
    const std::string beside = a.folder.empty() ? std::string() : load::folderOf(a.folder);
    // A folder of alternatives at the root of the repository (guides/ beside examples/ and
    // config/) has the whole repository beside it, unrelated trees included: it shares the
    // files at the root and in its own folder, and of the other trees only the files that
    // define what it names (the Gateway its routes attach to), not a tree of examples that
    // redefines its objects.
    const bool topLevel = !a.folder.empty() && beside.empty();
    std::vector<std::size_t> chosen, fromOtherTrees;
    for (std::size_t j = 0; j < files.size(); ++j) {
      // A file of a deeper entry of the same alternative belongs to another one.
      if (entries[j].size() > entries[i].size()) continue;
      if (!beside.empty() && !under(files[j], beside)) continue;
      if (!std::all_of(entries[j].begin(), entries[j].end(),
                       [&](const std::string& e) { return own.count(e) > 0; }))
        continue;
      if (topLevel && entries[j].empty() && files[j].find('/') != std::string::npos &&
          !under(files[j], a.folder))
        fromOtherTrees.push_back(j);
      else
        chosen.push_back(j);
    }
    if (!fromOtherTrees.empty()) {
      defineAll();
      std::set<std::string> defined, named;
      auto take = [&](const std::string& file) {
        if (auto d = allDefines.find(file); d != allDefines.end())
          defined.insert(d->second.begin(), d->second.end());
        if (auto n = allNames.find(file); n != allNames.end())
          named.insert(n->second.begin(), n->second.end());
      };
      for (std::size_t j : chosen) take(files[j]);
      // Until no file of another tree defines something named and not yet defined.
      for (bool grew = true; grew;) {
        grew = false;
        for (std::size_t& j : fromOtherTrees) {
          if (j == files.size()) continue;
          auto d = allDefines.find(files[j]);
          if (d == allDefines.end() ||
              std::none_of(d->second.begin(), d->second.end(), [&](const std::string& id) {
                return named.count(id) && !defined.count(id);
              }))
            continue;
          take(files[j]);
          chosen.push_back(j);
          a.borrowed.push_back(files[j]);
          j = files.size();
          grew = true;
        }
      }
    }
    // In path order, as `files`.
    std::sort(chosen.begin(), chosen.end());
    for (std::size_t j : chosen) a.files.push_back(files[j]);
  }
  for (auto& [entry, a] : byEntry) out.alternatives.push_back(std::move(a));
  return out;
}

}  // namespace pg::units
