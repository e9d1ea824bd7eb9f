// What BASE and HEAD of `policygraph diff` name, and how each is analysed: a git revision
// (read from the object database), a folder (a checkout of the repository, say), or the
// working tree as `lint` reads it. Each side reads its own `.policygraph.yaml`, so a change
// to the config file shows in the diff like any other change.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lib/analysis/analysis.h"
#include "lib/load/git.h"

namespace pg::diff {

struct SideSpec {
  enum class Kind { Revision, Folder, WorkingTree };
  Kind kind = Kind::WorkingTree;
  std::string label;  // for reports: `main (3f2a1c9)`, `old/`, `working tree`
  std::unique_ptr<load::GitRevision> revision;  // Revision
  std::filesystem::path folder;                 // Folder: absolute
};

// BASE or HEAD as given: an existing folder, else a revision of the git repository holding
// the current folder. Throws load::InputError when it names neither, or both.
SideSpec resolveSide(const std::string& arg);

// HEAD when omitted: the files on disk, as `lint` reads them.
SideSpec workingTree();

struct SideOptions {
  // PATHs, relative to the current folder (Revision, WorkingTree) or to the folder (Folder).
  std::vector<std::string> paths;
  std::string configPath;  // --config: a file on disk for both sides; empty: each side's own
  unsigned jobs = 1;
  graph::TopologyOptions topology;
  // Applied to the config each side reads, before its analysis runs.
  std::function<void(config::Config&)> adjustConfig;
  // An environment (config `environments:`) to analyse instead of `paths`, which must then be
  // empty: its paths and shared paths, relative to the side's root, and its name given to the
  // analysis. One with no paths at all is an empty side (an environment the other side has).
  const config::Environment* environment = nullptr;
};

// The side's units, each analysed: one for an environment, else those lint infers. Throws
// load::InputError for a path that names nothing on that side, and config::ConfigError for a
// config file that cannot be used.
analysis::Run analyzeSide(const SideSpec& side, const SideOptions& options);

// The environments the side's config file declares (the one analyzeSide reads, found from
// `options.paths` or the current folder); none when there is no config file. Throws as
// analyzeSide does.
std::vector<config::Environment> sideEnvironments(const SideSpec& side, const SideOptions& options);

}  // namespace pg::diff
