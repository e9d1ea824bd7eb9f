#include "lib/diff/sides.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "lib/config/config.h"
#include "lib/load/git.h"
#include "lib/load/sources.h"

namespace pg::diff {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kConfigName = ".policygraph.yaml";

bool inside(const fs::path& path, const fs::path& dir) {
  fs::path rel = path.lexically_relative(dir);
  return !rel.empty() && *rel.begin() != "..";
}

// The config file of a folder side: found upward from the first PATH, never above the
// folder itself (what lies above a checkout is not part of it).
std::optional<fs::path> configInFolder(const fs::path& folder, const std::string& firstPath) {
  std::error_code ec;
  fs::path start = (folder / firstPath).lexically_normal();
  if (!fs::is_directory(start, ec)) start = start.parent_path();
  for (fs::path dir = start; inside(dir, folder) || dir == folder; dir = dir.parent_path()) {
    if (fs::is_regular_file(dir / kConfigName, ec)) return dir / kConfigName;
    if (dir == folder || !dir.has_parent_path()) break;
  }
  return std::nullopt;
}

// A path given on the command line, as a path from the top of the revision's repository.
std::string inRepository(const load::GitRevision& revision, const std::string& path) {
  if (revision.workdir().empty()) return path;  // a bare repository: paths are from its top
  // Both resolved, so that a symlink on the way to the current folder does not matter.
  std::error_code ec;
  fs::path abs = fs::weakly_canonical(fs::absolute(path), ec);
  fs::path top = fs::weakly_canonical(revision.workdir(), ec);
  if (abs == top) return "";
  if (!inside(abs, top))
    throw load::InputError(path + " is outside the repository " + top.string());
  return abs.lexically_relative(top).generic_string();
}

std::string parentInTree(const std::string& path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

}  // namespace

SideSpec resolveSide(const std::string& arg) {
  std::error_code ec;
  const bool isFolder = fs::is_directory(arg, ec);
  const bool isRevision = load::GitRevision::resolves(fs::current_path(), arg);
  if (isFolder && isRevision)
    throw load::InputError(arg + " names both a folder and a git revision: write ./" + arg +
                           " for the folder or " + arg + "^{commit} for the revision");
  SideSpec side;
  if (isFolder) {
    side.kind = SideSpec::Kind::Folder;
    side.folder = fs::absolute(arg).lexically_normal();
    side.label = arg;
    return side;
  }
  if (!isRevision) {
    // Say why: the revision parser's own message is the more useful one.
    load::GitRevision probe(fs::current_path(), arg);
  }
  side.kind = SideSpec::Kind::Revision;
  side.revision = std::make_unique<load::GitRevision>(fs::current_path(), arg);
  side.label = arg + " (" + side.revision->commitId().substr(0, 12) + ")";
  return side;
}

SideSpec workingTree() {
  SideSpec side;
  side.kind = SideSpec::Kind::WorkingTree;
  side.label = "working tree";
  return side;
}

namespace {

// The files of a commit under one folder, for a revision's own config (`schemas:`).
class RevisionFiles : public config::ConfigFiles {
 public:
  RevisionFiles(const load::GitRevision& revision, std::string folder)
      : revision_(revision), folder_(std::move(folder)) {}

  std::optional<std::vector<std::string>> list(const std::string& path) const override {
    const std::string full = inTree(path);
    if (revision_.isFile(full)) return std::vector<std::string>{path};
    std::vector<load::Problem> ignored;
    std::vector<load::SourceEntry> found;
    try {
      found = revision_.collect({full}, folder_, config::Config{}, ignored);
    } catch (const load::InputError&) {
      return std::nullopt;
    }
    std::vector<std::string> out;
    for (const load::SourceEntry& e : found) out.push_back(e.path);
    std::sort(out.begin(), out.end());
    return out;
  }

  model::ReadResult read(const std::string& path, std::uint64_t maxBytes) const override {
    model::ReadResult r;
    try {
      std::optional<std::string> text = revision_.readFile(inTree(path), maxBytes);
      if (text) {
        r.text = std::move(*text);
        return r;
      }
      r.status = model::ReadResult::Status::Unreadable;
      r.error = "no such file in " + revision_.revision();
    } catch (const load::InputError& e) {
      r.status = model::ReadResult::Status::TooLarge;
      r.error = e.what();
    }
    return r;
  }

 private:
  std::string inTree(const std::string& path) const {
    return folder_.empty() ? path : folder_ + "/" + path;
  }
  const load::GitRevision& revision_;
  std::string folder_;
};

// How a side is read: its inputs, its config, and for a revision the root from the top of
// the repository.
struct Prepared {
  analysis::Inputs inputs;
  config::Config config;
  std::string revisionRoot;
};

Prepared prepare(const SideSpec& side, const SideOptions& options) {
  std::vector<std::string> paths =
      options.paths.empty() ? std::vector<std::string>{"."} : options.paths;
  Prepared prepared;
  analysis::Inputs& inputs = prepared.inputs;
  inputs.jobs = options.jobs;
  inputs.topology = options.topology;

  config::Config& config = prepared.config;
  std::string& revisionRoot = prepared.revisionRoot;  // Revision: from the top of the repository
  std::optional<fs::path> configFile;
  if (!options.configPath.empty()) configFile = fs::absolute(options.configPath);

  switch (side.kind) {
    case SideSpec::Kind::WorkingTree: {
      if (!configFile) {
        std::string first = paths.front() == "-" ? "." : paths.front();
        configFile = config::findConfig(first);
      }
      for (const std::string& p : paths)
        if (p == "-") throw load::InputError("diff reads no standard input");
      inputs.root = analysis::findRoot(paths, configFile ? configFile->string() : "");
      inputs.paths = paths;
      break;
    }
    case SideSpec::Kind::Folder: {
      if (!configFile) configFile = configInFolder(side.folder, paths.front());
      inputs.root = configFile && inside(*configFile, side.folder)
                        ? fs::absolute(*configFile).parent_path().lexically_normal()
                        : side.folder;
      // The folder stands for a checkout's top, as the workdir does for a revision: whatever
      // repository lies around it is not part of the side, and two folders line up.
      inputs.repositoryRoot = side.folder;
      for (const std::string& p : paths) {
        if (p == "-") throw load::InputError("diff reads no standard input");
        inputs.paths.push_back((side.folder / p).lexically_normal().string());
      }
      break;
    }
    case SideSpec::Kind::Revision: {
      const load::GitRevision& revision = *side.revision;
      for (const std::string& p : paths) {
        if (p == "-") throw load::InputError("diff reads no standard input");
        inputs.paths.push_back(inRepository(revision, p));
      }
      if (configFile) {
        if (!revision.workdir().empty() && inside(*configFile, revision.workdir()))
          revisionRoot =
              configFile->parent_path().lexically_relative(revision.workdir()).generic_string();
      } else {
        // The commit's own config file, found upward from the first PATH.
        std::string dir = inputs.paths.front();
        if (revision.isFile(dir)) dir = parentInTree(dir);
        for (;;) {
          std::string candidate =
              dir.empty() ? std::string(kConfigName) : dir + "/" + std::string(kConfigName);
          if (std::optional<std::string> text =
                  revision.readFile(candidate, config::kMaxConfigBytes)) {
            // Its schemas: come from the same commit, from the config's folder down.
            config = config::parseConfig(std::move(*text), std::string(kConfigName),
                                         RevisionFiles(revision, dir));
            revisionRoot = dir;
            break;
          }
          if (dir.empty()) break;
          dir = parentInTree(dir);
        }
      }
      // The workdir stands for the commit's top folder, so that reports name files the way
      // the working tree's side does; it is the repository root too.
      const fs::path top = revision.workdir().empty() ? fs::current_path() : revision.workdir();
      inputs.root = (top / revisionRoot).lexically_normal();
      inputs.repositoryRoot = top;
      break;
    }
  }
  if (configFile) {
    config = config::loadConfig(*configFile, load::displayPath(*configFile, inputs.root));
  }
  return prepared;
}

// An environment's path in a revision, from the top of the repository.
std::string environmentPath(const Prepared& prepared, const std::string& path) {
  std::string out = (fs::path(prepared.revisionRoot) / path).lexically_normal().generic_string();
  while (!out.empty() && out.back() == '/') out.pop_back();
  return out == "." ? std::string() : out;
}

}  // namespace

analysis::Run analyzeSide(const SideSpec& side, const SideOptions& options) {
  Prepared prepared = prepare(side, options);
  analysis::Inputs& inputs = prepared.inputs;
  bool empty = false;
  if (const config::Environment* environment = options.environment) {
    inputs.environment = environment->name;
    inputs.paths.clear();
    if (side.kind != SideSpec::Kind::Revision) {
      inputs.paths = environment->folders(prepared.inputs.root);  // confined to the root
    } else {
      for (const std::vector<std::string>* list : {&environment->paths, &environment->shared})
        for (const std::string& p : *list) inputs.paths.push_back(environmentPath(prepared, p));
    }
    empty = inputs.paths.empty();
  }
  if (options.adjustConfig) options.adjustConfig(prepared.config);
  // An environment is one unit, the whole of its folders; without one, the side's units are
  // inferred as lint infers them.
  const analysis::UnitChoice units{options.environment ? analysis::UnitChoice::Mode::Whole
                                                       : analysis::UnitChoice::Mode::Infer};
  // An empty side reads nothing, from no revision.
  if (side.kind != SideSpec::Kind::Revision || empty)
    return analysis::analyzeRun(std::move(prepared.config), inputs, units);
  analysis::RevisionInputs revision{*side.revision, prepared.revisionRoot};
  return analysis::analyzeRun(std::move(prepared.config), inputs, units, &revision);
}

std::vector<config::Environment> sideEnvironments(const SideSpec& side,
                                                  const SideOptions& options) {
  return prepare(side, options).config.environments;
}

}  // namespace pg::diff
