#include "lib/units/sources.h"

#include "lib/load/loader.h"
#include "lib/yaml/parser.h"

namespace pg::units {

bool under(std::string_view path, std::string_view folder) {
  while (folder.starts_with("./")) folder.remove_prefix(2);
  while (folder.size() > 1 && folder.ends_with('/')) folder.remove_suffix(1);
  if (folder.empty() || folder == ".") return true;
  return path == folder ||
         (path.size() > folder.size() && path.starts_with(folder) && path[folder.size()] == '/');
}

std::optional<std::string> folderFromTop(const load::Repository& repository, std::string_view path,
                                         const std::string& rootInRepository) {
  if (std::optional<std::string> fromTop = load::joinPath("", path)) {
    if (rootInRepository.empty()) {
      if (repository.isFolder(*fromTop)) return fromTop;
    } else if (under(*fromTop, rootInRepository)) {
      std::string fromRoot = fromTop->size() == rootInRepository.size()
                                 ? std::string()
                                 : fromTop->substr(rootInRepository.size() + 1);
      if (repository.isFolder(fromRoot)) return fromRoot;
    }
  }
  // A repository vendored or checked out inside another: its paths are its own root's.
  if (std::optional<std::string> fromRoot = load::joinPath("", path);
      fromRoot && !rootInRepository.empty() && repository.isFolder(*fromRoot))
    return fromRoot;
  return std::nullopt;
}

Sources::Sources(const std::vector<std::unique_ptr<model::SourceFile>>& loaded,
                 const std::vector<model::Resource>& resources,
                 const std::vector<load::Problem>& problems, const load::Repository& repository,
                 const config::Limits& limits, Arena& arena)
    : loaded_(loaded), repository_(repository), limits_(limits), arena_(arena) {
  for (const std::unique_ptr<model::SourceFile>& f : loaded) {
    Manifest& m = manifests_[f->path];
    m.file = f.get();
    m.loaded = true;
  }
  for (const model::Resource& r : resources)
    if (r.file) manifests_[r.file->path].objects.push_back(r);
  for (const load::Problem& p : problems)
    if (auto it = manifests_.find(p.location.path); it != manifests_.end())
      it->second.problems.push_back(p);
}

std::optional<std::string> Sources::text(const std::string& path, std::string* error) {
  if (auto it = unreadable_.find(path); it != unreadable_.end()) {
    if (error) *error = it->second;
    return std::nullopt;
  }
  model::ReadResult read = repository_.read(path, limits_.maxFileBytes);
  if (read.ok()) return std::move(read.text);
  std::string why = read.status == model::ReadResult::Status::TooLarge
                        ? "it has " + read.error + ", more than the limit of " +
                              std::to_string(limits_.maxFileBytes) + " bytes"
                        : read.error;
  if (error) *error = why;
  unreadable_.emplace(path, std::move(why));
  return std::nullopt;
}

const Sources::Manifest* Sources::manifest(const std::string& path, std::string* error) {
  if (auto it = manifests_.find(path); it != manifests_.end()) return &it->second;
  std::optional<std::string> text = this->text(path, error);
  if (!text) return nullptr;
  load::FileResult read = load::loadText(path, std::move(*text), limits_);
  Manifest& m = manifests_[path];
  m.objects = std::move(read.resources);
  m.problems = std::move(read.problems);
  m.file = read.file.get();
  arena_.files.push_back(std::move(read.file));
  return &m;
}

const model::SourceFile* Sources::document(const std::string& path, std::string* error) {
  if (auto it = documents_.find(path); it != documents_.end()) {
    if (!it->second && error) *error = unreadable_[path];
    return it->second;
  }
  const model::SourceFile*& slot = documents_[path];
  std::optional<std::string> text = this->text(path, error);
  if (!text) return nullptr;
  yaml::ParseResult parsed =
      yaml::parse(std::move(*text), {limits_.maxDepth, limits_.maxAliasExpansion}, false);
  if (!parsed.problems.empty()) {
    const yaml::ParseProblem& p = parsed.problems.front();
    std::string why = "line " + std::to_string(p.start.line) + ": " + p.message;
    if (error) *error = why;
    unreadable_[path] = std::move(why);
    return nullptr;
  }
  auto file = std::make_unique<model::SourceFile>();
  file->path = path;
  file->tree = std::move(parsed.tree);
  slot = file.get();
  arena_.files.push_back(std::move(file));
  return slot;
}

}  // namespace pg::units
