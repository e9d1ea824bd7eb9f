// A git revision as a source of files: the tree of one commit, read straight from the
// repository's object database through libgit2, with no checkout and no temporary clone.
// `policygraph diff` analyses a base revision this way.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/config/config.h"
#include "lib/load/problem.h"
#include "lib/load/sources.h"

namespace pg::load {

class GitRevision {
 public:
  // Opens the repository holding `start` (searching upward, as git does) and resolves
  // `revision` (anything `git rev-parse` takes: a branch, a tag, `HEAD~2`, a commit id) to a
  // commit. Throws InputError when there is no repository or the revision names no commit.
  GitRevision(const std::filesystem::path& start, const std::string& revision);
  ~GitRevision();
  GitRevision(GitRevision&&) noexcept;
  GitRevision& operator=(GitRevision&&) noexcept;

  // Whether `start` is inside a git repository where `revision` names a commit.
  static bool resolves(const std::filesystem::path& start, const std::string& revision);

  const std::string& revision() const;  // as given
  const std::string& commitId() const;  // the full object id of the commit
  // The repository's working tree (its top folder), absolute; empty for a bare repository.
  const std::filesystem::path& workdir() const;

  // The text of a file of the commit, by path from the repository's top; nothing when the
  // path is no file (or a symlink) in the commit. Throws InputError when the file has more
  // than `maxBytes` bytes (its size is read before its content is).
  std::optional<std::string> readFile(std::string_view path, std::uint64_t maxBytes) const;
  // Whether the path names a file of the commit (not a folder, link or submodule).
  bool isFile(std::string_view path) const;
  // Whether the path names a folder of the commit ("" is the top).
  bool isFolder(std::string_view path) const;
  // The names in a folder of the commit, sorted, hidden ones left out.
  std::vector<std::string> entries(std::string_view folder) const;

  // Like collectSources for a folder: the manifest files of the commit under each of
  // `inputs` (paths from the repository's top, "" or "." for all of it), hidden entries
  // skipped, the config's include/exclude globs applied. Names are relative to `root` (a
  // folder, from the repository's top) as reports show them. Symlinks are followed while
  // they stay inside the commit's tree; one that leaves it or loops is a problem. Throws
  // InputError when an input names nothing in the commit.
  std::vector<SourceEntry> collect(const std::vector<std::string>& inputs, const std::string& root,
                                   const config::Config& config,
                                   std::vector<Problem>& problems) const;

  struct State;  // libgit2's objects, kept out of this header

 private:
  std::unique_ptr<State> state_;
};

}  // namespace pg::load
