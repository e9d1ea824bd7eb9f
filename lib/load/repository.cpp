#include "lib/load/repository.h"

#include <algorithm>
#include <optional>

namespace pg::load {

namespace fs = std::filesystem;

namespace {

class DiskRepository : public Repository {
 public:
  explicit DiskRepository(fs::path root) : root_(std::move(root)) {}

  model::ReadResult read(const std::string& path, std::uint64_t maxBytes) const override {
    const fs::path full = root_ / path;
    if (!model::resolvesInside(full, root_)) {
      model::ReadResult r;
      r.status = model::ReadResult::Status::Unreadable;
      r.error = "it resolves outside the repository";
      return r;
    }
    return model::readFile(full, maxBytes);
  }

  bool isFile(const std::string& path) const override {
    std::error_code ec;
    const fs::path full = root_ / path;
    return model::resolvesInside(full, root_) && fs::is_regular_file(full, ec);
  }

  bool isFolder(const std::string& path) const override {
    std::error_code ec;
    const fs::path full = root_ / path;
    return model::resolvesInside(full, root_) && fs::is_directory(full, ec);
  }

  std::vector<std::string> entries(const std::string& folder) const override {
    std::vector<std::string> out;
    if (!isFolder(folder)) return out;
    std::error_code ec;
    for (fs::directory_iterator it(root_ / folder, ec), end; !ec && it != end; it.increment(ec)) {
      std::string name = it->path().filename().string();
      if (!name.empty() && name.front() != '.') out.push_back(std::move(name));
    }
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  fs::path root_;
};

class RevisionRepository : public Repository {
 public:
  RevisionRepository(const GitRevision& revision, std::string root)
      : revision_(revision), root_(std::move(root)) {}

  model::ReadResult read(const std::string& path, std::uint64_t maxBytes) const override {
    model::ReadResult r;
    try {
      if (std::optional<std::string> text = revision_.readFile(inTree(path), maxBytes)) {
        r.text = std::move(*text);
        return r;
      }
      r.status = model::ReadResult::Status::Unreadable;
      r.error = "no such file in " + revision_.revision();
    } catch (const InputError& e) {
      r.status = model::ReadResult::Status::TooLarge;
      r.error = e.what();
    }
    return r;
  }
  bool isFile(const std::string& path) const override { return revision_.isFile(inTree(path)); }
  bool isFolder(const std::string& path) const override { return revision_.isFolder(inTree(path)); }
  std::vector<std::string> entries(const std::string& folder) const override {
    return revision_.entries(inTree(folder));
  }

 private:
  std::string inTree(const std::string& path) const {
    if (root_.empty()) return path;
    return path.empty() ? root_ : root_ + "/" + path;
  }
  const GitRevision& revision_;
  std::string root_;
};

}  // namespace

std::unique_ptr<Repository> diskRepository(const fs::path& root) {
  return std::make_unique<DiskRepository>(root);
}

std::unique_ptr<Repository> revisionRepository(const GitRevision& revision, std::string root) {
  return std::make_unique<RevisionRepository>(revision, std::move(root));
}

std::string normalPath(std::string_view folder, std::string_view relative) {
  std::vector<std::string_view> parts;
  auto push = [&](std::string_view text) {
    while (!text.empty()) {
      std::size_t slash = text.find('/');
      std::string_view part = text.substr(0, slash);
      if (part == "..") {
        if (!parts.empty() && parts.back() != "..")
          parts.pop_back();
        else
          parts.push_back(part);
      } else if (!part.empty() && part != ".") {
        parts.push_back(part);
      }
      if (slash == std::string_view::npos) break;
      text.remove_prefix(slash + 1);
    }
  };
  if (!relative.starts_with('/')) push(folder);
  push(relative);
  std::string out = relative.starts_with('/') ? "/" : "";
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? "/" : "") + std::string(parts[i]);
  return out;
}

std::optional<std::string> joinPath(std::string_view folder, std::string_view relative) {
  if (relative.starts_with('/')) return std::nullopt;
  // A `..` that climbs above the start stays first in the normal path, never popped.
  std::string out = normalPath(folder, relative);
  if (out == ".." || out.starts_with("../")) return std::nullopt;
  return out;
}

std::string folderOf(std::string_view path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string() : std::string(path.substr(0, slash));
}

}  // namespace pg::load
