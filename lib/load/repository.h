// The files of the repository being analysed, by path relative to the root ('/'-separated, as
// reports name them): what the units stage reads beyond the loaded manifests (kustomizations,
// a base outside the PATHs, patches, generator inputs, the folders Flux and Argo CD apply).
// On disk, nothing outside the root is listed or read (symlinks that leave it name nothing);
// in a git revision, the commit's tree.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "lib/load/git.h"
#include "lib/model/file.h"

namespace pg::load {

class Repository {
 public:
  virtual ~Repository() = default;
  virtual model::ReadResult read(const std::string& path, std::uint64_t maxBytes) const = 0;
  virtual bool isFile(const std::string& path) const = 0;
  virtual bool isFolder(const std::string& path) const = 0;
  // The names in a folder ("" for the root), sorted, hidden ones left out.
  virtual std::vector<std::string> entries(const std::string& folder) const = 0;
};

// The files under `root` on disk.
std::unique_ptr<Repository> diskRepository(const std::filesystem::path& root);
// The files of a commit under `root` (a folder from the top of the repository).
std::unique_ptr<Repository> revisionRepository(const GitRevision& revision, std::string root);

// `folder/relative` with `.` and `..` resolved lexically, as reported paths are written: a
// `..` that climbs above the start is kept (`../x`), an absolute `relative` stays absolute.
std::string normalPath(std::string_view folder, std::string_view relative);

// normalPath, inside the root only: nothing when `relative` is absolute or climbs above it.
std::optional<std::string> joinPath(std::string_view folder, std::string_view relative);

// The folder of a path ("" for a top-level file).
std::string folderOf(std::string_view path);

}  // namespace pg::load
