#include "lib/load/git.h"

#include <git2.h>

#include <algorithm>
#include <mutex>
#include <set>
#include <utility>

namespace pg::load {

namespace fs = std::filesystem;

namespace {

// Follows at most this many symlinks on the way to one file, as the kernel bounds its own.
constexpr int kMaxLinkHops = 40;
// A symlink's blob is a path: nothing longer is one (the kernel's PATH_MAX).
constexpr std::uint64_t kMaxLinkBytes = 4096;

void initLibgit2() {
  static std::once_flag once;
  std::call_once(once, [] { git_libgit2_init(); });
}

std::string lastError(std::string_view fallback) {
  const git_error* e = git_error_last();
  return e && e->message ? std::string(e->message) : std::string(fallback);
}

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using Repository = std::unique_ptr<git_repository, Deleter<git_repository, git_repository_free>>;
using Object = std::unique_ptr<git_object, Deleter<git_object, git_object_free>>;
using Tree = std::unique_ptr<git_tree, Deleter<git_tree, git_tree_free>>;
using TreeEntry = std::unique_ptr<git_tree_entry, Deleter<git_tree_entry, git_tree_entry_free>>;
using Blob = std::unique_ptr<git_blob, Deleter<git_blob, git_blob_free>>;

// A path from the repository's top, '/'-separated, without `.` parts; empty for the top.
// Nothing when it climbs above the top.
std::optional<std::string> normalizeInTree(std::string_view path) {
  std::vector<std::string_view> parts;
  while (!path.empty()) {
    std::size_t slash = path.find('/');
    std::string_view part = path.substr(0, slash);
    path = slash == std::string_view::npos ? std::string_view{} : path.substr(slash + 1);
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (parts.empty()) return std::nullopt;
      parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  std::string out;
  for (std::string_view part : parts) {
    if (!out.empty()) out += '/';
    out += part;
  }
  return out;
}

std::string parentOf(const std::string& path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

std::string joinPath(const std::string& dir, std::string_view name) {
  return dir.empty() ? std::string(name) : dir + "/" + std::string(name);
}

bool isHidden(std::string_view name) {
  return !name.empty() && name.front() == '.';
}

}  // namespace

struct GitRevision::State {
  Repository repo;
  Object commit;
  Tree tree;
  std::string revision;
  std::string commitId;
  fs::path workdir;

  // The blob's size, read from its header without inflating it.
  std::uint64_t blobSize(const git_oid* id) const {
    git_odb* odb = nullptr;
    if (git_repository_odb(&odb, repo.get()) != 0)
      throw InputError("cannot read the objects of " + revision + ": " +
                       lastError("unknown error"));
    std::size_t size = 0;
    git_object_t type = GIT_OBJECT_INVALID;
    const int error = git_odb_read_header(&size, &type, odb, id);
    git_odb_free(odb);
    if (error != 0)
      throw InputError("cannot read a blob of " + revision + ": " + lastError("unknown error"));
    return size;
  }

  // The blob's text when it has at most `maxBytes` bytes (checked before it is inflated).
  std::optional<std::string> boundedBlobText(const git_oid* id, std::uint64_t maxBytes) const {
    if (blobSize(id) > maxBytes) return std::nullopt;
    return blobText(id);
  }

  std::string blobText(const git_oid* id) const {
    git_blob* raw = nullptr;
    if (git_blob_lookup(&raw, repo.get(), id) != 0)
      throw InputError("cannot read a blob of " + revision + ": " + lastError("unknown error"));
    Blob blob(raw);
    const char* data = static_cast<const char*>(git_blob_rawcontent(blob.get()));
    return std::string(data, static_cast<std::size_t>(git_blob_rawsize(blob.get())));
  }

  TreeEntry entryAt(const std::string& path) const {
    git_tree_entry* raw = nullptr;
    if (path.empty() || git_tree_entry_bypath(&raw, tree.get(), path.c_str()) != 0) return nullptr;
    return TreeEntry(raw);
  }

  Tree subtree(const git_tree_entry* entry) const {
    git_tree* raw = nullptr;
    if (git_tree_lookup(&raw, repo.get(), git_tree_entry_id(entry)) != 0)
      throw InputError("cannot read a folder of " + revision + ": " + lastError("unknown error"));
    return Tree(raw);
  }
};

GitRevision::GitRevision(const fs::path& start, const std::string& revision)
    : state_(std::make_unique<State>()) {
  initLibgit2();
  state_->revision = revision;
  git_repository* repo = nullptr;
  if (git_repository_open_ext(&repo, start.c_str(), 0, nullptr) != 0)
    throw InputError("not inside a git repository (" + start.string() + "), so the revision " +
                     revision + " cannot be read");
  state_->repo.reset(repo);
  git_object* object = nullptr;
  if (git_revparse_single(&object, repo, revision.c_str()) != 0)
    throw InputError("no revision " + revision + " in this repository: " + lastError("not found"));
  Object named(object);
  git_object* commit = nullptr;
  if (git_object_peel(&commit, named.get(), GIT_OBJECT_COMMIT) != 0)
    throw InputError(revision + " does not name a commit: " + lastError("not a commit"));
  state_->commit.reset(commit);
  git_tree* tree = nullptr;
  if (git_commit_tree(&tree, reinterpret_cast<git_commit*>(commit)) != 0)
    throw InputError("cannot read the tree of " + revision + ": " + lastError("unknown error"));
  state_->tree.reset(tree);
  state_->commitId = git_oid_tostr_s(git_object_id(commit));
  if (const char* workdir = git_repository_workdir(repo))
    state_->workdir = fs::path(workdir).lexically_normal();
  std::string w = state_->workdir.string();
  if (w.size() > 1 && w.back() == '/') state_->workdir = w.substr(0, w.size() - 1);
}

GitRevision::~GitRevision() = default;
GitRevision::GitRevision(GitRevision&&) noexcept = default;
GitRevision& GitRevision::operator=(GitRevision&&) noexcept = default;

bool GitRevision::resolves(const fs::path& start, const std::string& revision) {
  try {
    GitRevision probe(start, revision);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

const std::string& GitRevision::revision() const {
  return state_->revision;
}
const std::string& GitRevision::commitId() const {
  return state_->commitId;
}
const fs::path& GitRevision::workdir() const {
  return state_->workdir;
}

bool GitRevision::isFile(std::string_view path) const {
  std::optional<std::string> normal = normalizeInTree(path);
  if (!normal) return false;
  TreeEntry entry = state_->entryAt(*normal);
  return entry && git_tree_entry_type(entry.get()) == GIT_OBJECT_BLOB &&
         git_tree_entry_filemode(entry.get()) != GIT_FILEMODE_LINK;
}

bool GitRevision::isFolder(std::string_view path) const {
  std::optional<std::string> normal = normalizeInTree(path);
  if (!normal) return false;
  if (normal->empty()) return true;
  TreeEntry entry = state_->entryAt(*normal);
  return entry && git_tree_entry_filemode(entry.get()) == GIT_FILEMODE_TREE;
}

std::vector<std::string> GitRevision::entries(std::string_view folder) const {
  std::vector<std::string> out;
  std::optional<std::string> normal = normalizeInTree(folder);
  if (!normal || !isFolder(*normal)) return out;
  Tree sub;
  const git_tree* tree = state_->tree.get();
  if (!normal->empty()) {
    TreeEntry entry = state_->entryAt(*normal);
    sub = state_->subtree(entry.get());
    tree = sub.get();
  }
  for (std::size_t i = 0, n = git_tree_entrycount(tree); i < n; ++i) {
    std::string name = git_tree_entry_name(git_tree_entry_byindex(tree, i));
    if (!isHidden(name)) out.push_back(std::move(name));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::string> GitRevision::readFile(std::string_view path,
                                                 std::uint64_t maxBytes) const {
  std::optional<std::string> normal = normalizeInTree(path);
  if (!normal) return std::nullopt;
  TreeEntry entry = state_->entryAt(*normal);
  if (!entry || git_tree_entry_type(entry.get()) != GIT_OBJECT_BLOB ||
      git_tree_entry_filemode(entry.get()) == GIT_FILEMODE_LINK)
    return std::nullopt;
  std::optional<std::string> text =
      state_->boundedBlobText(git_tree_entry_id(entry.get()), maxBytes);
  if (!text)
    throw InputError(*normal + " in " + state_->revision + " has more than " +
                     std::to_string(maxBytes) + " bytes");
  return text;
}

namespace {

// The walk over one commit's tree, mirroring the folder walker of sources.cpp.
class TreeWalker {
 public:
  TreeWalker(const GitRevision::State& state, const std::string& root, const config::Config& config,
             std::vector<Problem>& problems, std::vector<SourceEntry>& out)
      : state_(state), root_(root), config_(config), problems_(problems), out_(out) {}

  void walkInput(const std::string& input) {
    if (input.empty()) {
      walkTree(state_.tree.get(), "", "", 0);
      return;
    }
    TreeEntry entry = state_.entryAt(input);
    if (!entry) throw InputError("no such file or folder in " + state_.revision + ": " + input);
    visit(entry.get(), input, input, /*named=*/true, 0);
  }

 private:
  std::string shown(const std::string& path) const {
    if (root_.empty()) return path;
    return fs::path(path).lexically_relative(root_).generic_string();
  }

  void problem(ProblemKind kind, const std::string& at, std::string message) {
    std::string path = shown(at);
    problems_.push_back({kind, {path, {1, 1}, {1, 1}}, std::move(message), path, {}});
  }

  // `path` is where the entry is seen (through links), `real` where it is in the tree.
  void walkTree(const git_tree* tree, const std::string& path, const std::string& real, int hops) {
    if (chain_.size() >= kMaxFolderDepth) {
      problem(ProblemKind::Unreadable, path,
              "folders nested more than " + std::to_string(kMaxFolderDepth) + " deep are not read");
      return;
    }
    chain_.push_back(real);
    std::vector<std::pair<std::string, const git_tree_entry*>> entries;
    for (std::size_t i = 0, n = git_tree_entrycount(tree); i < n; ++i) {
      const git_tree_entry* e = git_tree_entry_byindex(tree, i);
      entries.emplace_back(git_tree_entry_name(e), e);
    }
    // Byte order of names, like the folder walker's sorted paths (git's own order puts
    // `a.yaml` after a folder `a`).
    std::sort(entries.begin(), entries.end());
    for (const auto& [name, e] : entries) {
      if (isHidden(name)) continue;
      visit(e, joinPath(path, name), joinPath(real, name), false, hops);
    }
    chain_.pop_back();
  }

  void visit(const git_tree_entry* entry, const std::string& path, const std::string& real,
             bool named, int hops) {
    git_filemode_t mode = git_tree_entry_filemode(entry);
    if (mode == GIT_FILEMODE_COMMIT) return;  // a submodule: not part of this repository
    if (mode == GIT_FILEMODE_LINK) {
      followLink(entry, path, real, named, hops);
      return;
    }
    const bool isDir = mode == GIT_FILEMODE_TREE;
    if (!isDir && !named && !isManifestPath(path)) return;
    if (!named && excludedByConfig(config_, shown(path), isDir)) return;
    if (isDir) {
      Tree sub = state_.subtree(entry);
      walkTree(sub.get(), path, real, hops);
      return;
    }
    if (!files_.insert(real).second) return;  // the same file through a link
    const git_oid* id = git_tree_entry_id(entry);
    SourceEntry source{shown(path), {}, false, nullptr};
    if (const std::uint64_t size = state_.blobSize(id); size > config_.limits.maxFileBytes)
      source.oversize = size;  // the loader reports it; never inflated
    else
      source.content = std::make_shared<std::string>(state_.blobText(id));
    out_.push_back(std::move(source));
  }

  void followLink(const git_tree_entry* link, const std::string& path, const std::string& real,
                  bool named, int hops) {
    std::string written =
        state_.boundedBlobText(git_tree_entry_id(link), kMaxLinkBytes).value_or("/");
    std::optional<std::string> target = written.empty() || written.front() == '/'
                                            ? std::nullopt
                                            : normalizeInTree(joinPath(parentOf(real), written));
    TreeEntry resolved = target ? state_.entryAt(*target) : nullptr;
    const bool toDir = resolved && git_tree_entry_filemode(resolved.get()) == GIT_FILEMODE_TREE;
    // Links that lead nowhere interesting are skipped as the folder walker skips them: only
    // a link to a folder or with a manifest's name is worth a finding.
    if (!named && !toDir && !isManifestPath(path) && !(target && isManifestPath(*target))) return;
    if (!named && excludedByConfig(config_, shown(path), toDir)) return;
    if (!target) {
      problem(ProblemKind::SymlinkOutside, path,
              "symlink points outside the repository (to " + written + ")");
      return;
    }
    if (hops >= kMaxLinkHops || target->empty() ||
        (toDir && std::find(chain_.begin(), chain_.end(), *target) != chain_.end())) {
      problem(ProblemKind::SymlinkLoop, path, "symlink loops back to a folder that contains it");
      return;
    }
    if (!resolved) {
      problem(ProblemKind::Unreadable, path,
              "cannot read: the symlink points at nothing in " + state_.revision + " (" + written +
                  ")");
      return;
    }
    visit(resolved.get(), path, *target, named, hops + 1);
  }

  const GitRevision::State& state_;
  const std::string& root_;
  const config::Config& config_;
  std::vector<Problem>& problems_;
  std::vector<SourceEntry>& out_;
  std::vector<std::string> chain_;  // the real folders being walked, outermost first
  std::set<std::string> files_;
};

}  // namespace

std::vector<SourceEntry> GitRevision::collect(const std::vector<std::string>& inputs,
                                              const std::string& root, const config::Config& config,
                                              std::vector<Problem>& problems) const {
  std::vector<SourceEntry> out;
  std::optional<std::string> normalRoot = normalizeInTree(root);
  std::string rootPath = normalRoot.value_or("");
  TreeWalker walker(*state_, rootPath, config, problems, out);
  for (const std::string& input : inputs) {
    std::optional<std::string> normal = normalizeInTree(input);
    if (!normal) throw InputError(input + " is outside the repository");
    walker.walkInput(*normal);
  }
  return out;
}

}  // namespace pg::load
