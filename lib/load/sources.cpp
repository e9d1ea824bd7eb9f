#include "lib/load/sources.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <utility>

#include "lib/config/glob.h"

namespace pg::load {

namespace fs = std::filesystem;

namespace {

using FileId = std::pair<dev_t, ino_t>;

bool isUnder(const fs::path& path, const fs::path& dir) {
  auto rel = path.lexically_relative(dir);
  return !rel.empty() && *rel.begin() != "..";
}

class Walker {
 public:
  Walker(const fs::path& root, const config::Config& config, std::vector<Problem>& problems,
         std::vector<SourceEntry>& out)
      : root_(root), config_(config), problems_(problems), out_(out) {}

  void walkFolder(const fs::path& dir) {
    std::error_code ec;
    boundary_ = fs::canonical(dir, ec);
    if (ec) boundary_ = fs::absolute(dir);
    struct stat st;
    if (::stat(dir.c_str(), &st) == 0) {
      visited_.insert({st.st_dev, st.st_ino});
      chain_.push_back({st.st_dev, st.st_ino});
    }
    walk(dir);
    chain_.clear();
  }

  void addFile(const fs::path& file) {
    struct stat st;
    if (::stat(file.c_str(), &st) == 0) {
      if (!files_.insert({st.st_dev, st.st_ino}).second) return;  // named twice
    }
    out_.push_back({displayPath(file, root_), fs::absolute(file), false, nullptr});
  }

 private:
  void problem(ProblemKind kind, const fs::path& at, std::string message) {
    std::string path = displayPath(at, root_);
    problems_.push_back({kind, {path, {1, 1}, {1, 1}}, std::move(message), path, {}});
  }

  void walk(const fs::path& dir) {
    std::error_code ec;
    std::vector<fs::path> entries;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      entries.push_back(it->path());
    if (ec) {
      problem(ProblemKind::Unreadable, dir, "cannot read folder: " + ec.message());
      return;
    }
    std::sort(entries.begin(), entries.end());
    for (const fs::path& entry : entries) visit(entry);
  }

  void visit(const fs::path& entry) {
    std::string name = entry.filename().string();
    if (!name.empty() && name[0] == '.') return;
    struct stat lst;
    if (::lstat(entry.c_str(), &lst) != 0) {
      problem(ProblemKind::Unreadable, entry, std::string("cannot read: ") + std::strerror(errno));
      return;
    }
    const bool isLink = S_ISLNK(lst.st_mode);
    // Only a link needs a second look: for anything else lstat already said what stat would.
    struct stat st = lst;
    if (isLink && ::stat(entry.c_str(), &st) != 0) {
      if (errno == ELOOP) {
        problem(ProblemKind::SymlinkLoop, entry, "symlink resolves to itself in a loop");
        return;
      }
      // A dangling link: worth a finding only where a manifest was meant to be.
      if (isManifestPath(entry.filename().native()))
        problem(ProblemKind::Unreadable, entry,
                std::string("cannot read: ") + std::strerror(errno) +
                    (isLink ? " (the symlink points at nothing)" : ""));
      return;
    }
    const bool isDir = S_ISDIR(st.st_mode);
    if (!isDir && !isManifestPath(entry.filename().native())) return;
    const std::string rel = displayPath(entry, root_);
    if (excludedByConfig(config_, rel, isDir)) return;
    if (isLink) {
      std::error_code ec;
      fs::path target = fs::canonical(entry, ec);
      if (ec || !isUnder(target, boundary_)) {
        // The target as written in the link, not as resolved: the same on every checkout.
        fs::path written = fs::read_symlink(entry, ec);
        problem(ProblemKind::SymlinkOutside, entry,
                "symlink points outside the folder being checked (to " +
                    (ec ? std::string("an unreadable path") : written.generic_string()) + ")");
        return;
      }
    }
    FileId id{st.st_dev, st.st_ino};
    if (isDir) {
      if (std::find(chain_.begin(), chain_.end(), id) != chain_.end()) {
        problem(ProblemKind::SymlinkLoop, entry, "symlink loops back to a folder that contains it");
        return;
      }
      if (!visited_.insert(id).second) return;  // reached again through a link
      if (chain_.size() >= kMaxFolderDepth) {
        problem(
            ProblemKind::Unreadable, entry,
            "folders nested more than " + std::to_string(kMaxFolderDepth) + " deep are not read");
        return;
      }
      chain_.push_back(id);
      walk(entry);
      chain_.pop_back();
      return;
    }
    if (!S_ISREG(st.st_mode)) {
      problem(ProblemKind::Unreadable, entry, "not a regular file (a FIFO, socket or device)");
      return;
    }
    if (!files_.insert(id).second) return;  // the same file through a link
    out_.push_back({rel, fs::absolute(entry), false, nullptr});
  }

  const fs::path& root_;
  const config::Config& config_;
  std::vector<Problem>& problems_;
  std::vector<SourceEntry>& out_;
  fs::path boundary_;
  std::set<FileId> visited_;
  std::set<FileId> files_;
  std::vector<FileId> chain_;
};

}  // namespace

bool isManifestPath(std::string_view path) {
  auto endsWith = [&](std::string_view suffix) {
    return path.size() >= suffix.size() && path.substr(path.size() - suffix.size()) == suffix;
  };
  return endsWith(".yaml") || endsWith(".yml") || endsWith(".json");
}

bool excludedByConfig(const config::Config& config, const std::string& rel, bool isDir) {
  for (const std::string& pattern : config.exclude) {
    if (config::globMatch(pattern, rel)) return true;
    if (isDir && config::globMatch(pattern, rel + "/")) return true;
  }
  if (isDir || config.include.empty()) return false;
  return std::none_of(config.include.begin(), config.include.end(),
                      [&](const std::string& p) { return config::globMatch(p, rel); });
}

std::string displayPath(const fs::path& path, const fs::path& root) {
  fs::path abs = fs::absolute(path).lexically_normal();
  fs::path rel = abs.lexically_relative(root);
  if (!rel.empty() && *rel.begin() != "..") return rel.generic_string();
  return abs.generic_string();
}

std::vector<SourceEntry> collectSources(const std::vector<std::string>& inputs,
                                        const fs::path& root, const config::Config& config,
                                        std::vector<Problem>& problems) {
  std::vector<SourceEntry> out;
  Walker walker(root, config, problems, out);
  bool sawStdin = false;
  for (const std::string& input : inputs) {
    if (input == "-") {
      if (!sawStdin) out.push_back({std::string(kStdinPath), {}, true, nullptr});
      sawStdin = true;
      continue;
    }
    std::error_code ec;
    fs::file_status status = fs::status(input, ec);
    if (ec || !fs::exists(status)) throw InputError("no such file or folder: " + input);
    if (fs::is_directory(status)) {
      walker.walkFolder(input);
    } else {
      walker.addFile(input);
    }
  }
  return out;
}

}  // namespace pg::load
