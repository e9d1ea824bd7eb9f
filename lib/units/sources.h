// The files the units stage reads, each read and parsed once: the loaded manifests, and
// whatever a kustomization, a Flux Kustomization or an Application names beyond them (a base
// outside the PATHs, a kustomization file, a patch, a generator's input), read on demand from
// the repository (load/repository.h), bounded by the config's limits.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lib/config/config.h"
#include "lib/load/problem.h"
#include "lib/load/repository.h"
#include "lib/model/resource.h"
#include "lib/units/unit.h"

namespace pg::units {

// Whether `path` (a reported file path) lies at or under `folder` (a path relative to the root,
// "." or "" for all of it).
bool under(std::string_view path, std::string_view folder);

// The folder a Flux Kustomization or an Argo CD Application names (a path from the top of
// the git repository) as a path from the root ("" for the root itself), when it is a folder
// of `repository`; else, when the root is not the top, the same path from the root (a
// repository checked out inside another). Nothing when neither is a folder.
std::optional<std::string> folderFromTop(const load::Repository& repository, std::string_view path,
                                         const std::string& rootInRepository);

class Sources {
 public:
  Sources(const std::vector<std::unique_ptr<model::SourceFile>>& loaded,
          const std::vector<model::Resource>& resources, const std::vector<load::Problem>& problems,
          const load::Repository& repository, const config::Limits& limits, Arena& arena);

  // A manifest file: its objects in document order and the problems of reading it.
  struct Manifest {
    const model::SourceFile* file = nullptr;
    std::vector<model::Resource> objects;
    std::vector<load::Problem> problems;
    bool loaded = false;  // among the run's inputs (not read for a unit alone)
  };
  // Nothing when it cannot be read; `error` then says why.
  const Manifest* manifest(const std::string& path, std::string* error = nullptr);
  // A tool's own file (a kustomization, a patch), parsed whole: its first document's root,
  // and the file for positions. Nothing when it cannot be read or parsed (`error` says why).
  const model::SourceFile* document(const std::string& path, std::string* error = nullptr);
  // A file's bytes (a generator's input); nothing when it cannot be read (`error` says why).
  std::optional<std::string> text(const std::string& path, std::string* error = nullptr);

  const load::Repository& repository() const { return repository_; }
  const config::Limits& limits() const { return limits_; }
  Arena& arena() { return arena_; }
  // Every loaded manifest, in path order.
  const std::vector<std::unique_ptr<model::SourceFile>>& loaded() const { return loaded_; }

 private:
  const std::vector<std::unique_ptr<model::SourceFile>>& loaded_;
  const load::Repository& repository_;
  const config::Limits& limits_;
  Arena& arena_;
  std::map<std::string, Manifest, std::less<>> manifests_;
  std::map<std::string, const model::SourceFile*, std::less<>> documents_;
  std::map<std::string, std::string, std::less<>> unreadable_;
};

}  // namespace pg::units
