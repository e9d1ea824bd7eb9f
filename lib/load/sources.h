// Which files to read: explicit files, folders walked recursively, standard input.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "lib/config/config.h"
#include "lib/load/problem.h"

namespace pg::load {

// How standard input is named in reports.
inline constexpr std::string_view kStdinPath = "<stdin>";

// Folders nested deeper than this are not walked (a problem says so): no real repository comes
// near it, and the walkers recurse once per level.
inline constexpr std::size_t kMaxFolderDepth = 256;

struct SourceEntry {
  std::string path;                    // as reported, relative to the repository root
  std::filesystem::path absolutePath;  // empty for standard input and git blobs
  bool isStdin = false;
  // The text, when it does not come from a file on disk (a blob of a git revision).
  std::shared_ptr<const std::string> content;
  // A blob over the size limit, not read: its size (the loader reports it as too large).
  std::uint64_t oversize = 0;
};

// A PATH argument that names nothing: a usage error, not a finding.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// How a file is named in reports: relative to `root` when inside it, else absolute (a path
// relative to somewhere else would be resolved against the root by SARIF consumers).
std::string displayPath(const std::filesystem::path& path, const std::filesystem::path& root);

// `.yaml`, `.yml` and `.json` files are read when a folder is walked.
bool isManifestPath(std::string_view path);

// Whether the config's include/exclude globs leave out `rel` (relative to the repository
// root; `isDir` for a folder, which only exclude globs can leave out).
bool excludedByConfig(const config::Config& config, const std::string& rel, bool isDir);

// Walks the inputs in a deterministic order (sorted by name). Hidden files and folders
// (`.git`, `.policygraph`) are skipped inside folders; files named explicitly are always
// read. Symlinks are followed only while they stay inside the folder being walked, and a
// folder is never entered twice. Problems found on the way are appended to `problems`.
std::vector<SourceEntry> collectSources(const std::vector<std::string>& inputs,
                                        const std::filesystem::path& root,
                                        const config::Config& config,
                                        std::vector<Problem>& problems);

}  // namespace pg::load
