// Reads every source in parallel, parses it and splits its documents into objects.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lib/config/config.h"
#include "lib/load/problem.h"
#include "lib/load/skip.h"
#include "lib/load/sources.h"
#include "lib/model/resource.h"
#include "lib/model/source.h"

namespace pg::load {

struct LoadResult {
  std::vector<std::unique_ptr<model::SourceFile>> files;  // in source order
  std::vector<model::Resource> resources;                 // in file and document order
  std::vector<Problem> problems;  // in file order; deterministic whatever `jobs` is
  // Files whose content shows they are not manifests (a Kustomization under another name, a
  // Grafana dashboard): neither in `files` nor in `resources`.
  std::vector<SkippedFile> skipped;
};

struct LoadOptions {
  unsigned jobs = 1;
  std::string stdinText;  // what `-` reads (the caller reads standard input once)
  // Standard input gave more than the size limit: the caller stopped reading it there.
  bool stdinTooLarge = false;
};

LoadResult loadSources(const std::vector<SourceEntry>& sources, const config::Limits& limits,
                       const LoadOptions& options);

// One file's text, for tests and fuzzing: the same checks and splitting as a real file.
struct FileResult {
  std::unique_ptr<model::SourceFile> file;
  std::vector<model::Resource> resources;
  std::vector<Problem> problems;
  std::optional<SkipReason> skipped;  // the content is not a manifest: nothing else is set
};
FileResult loadText(std::string path, std::string text, const config::Limits& limits);

}  // namespace pg::load
