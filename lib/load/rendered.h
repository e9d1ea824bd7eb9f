// Rendered input keeps its source: manifests piped in from `kustomize build` (with
// `buildMetadata: [originAnnotations]`) or `helm template` name the file each object came
// from. Findings on standard input are moved to that file when the field at fault can be
// found there, and otherwise name it.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lib/config/config.h"
#include "lib/model/finding.h"
#include "lib/model/source.h"

namespace pg::load {

// Where one rendered document came from.
struct RenderedOrigin {
  enum class Tool { Kustomize, Helm };
  Tool tool = Tool::Kustomize;
  std::string path;  // as the tool wrote it: kustomize's `path:`, Helm's `# Source:`
  std::string repo;  // kustomize, a remote base: `repo:` and `ref:`
  std::string ref;
  // The file under the repository root that `path` names, relative to the root (empty when
  // none is found, or the origin is remote).
  std::string file;
};

// The origins of the documents of standard input, and the original files they name, parsed.
class RenderedSources {
 public:
  RenderedSources() = default;
  RenderedSources(RenderedSources&&) = default;
  RenderedSources& operator=(RenderedSources&&) = default;
  ~RenderedSources();

  // Reads the origins of every document of standard input among `files`, and the original
  // files under `root` they name (kustomize: the origin path from the root, else the one file
  // whose path ends with it once leading `../` are dropped; Helm: the file whose path ends
  // with the template's).
  static RenderedSources read(const std::vector<std::unique_ptr<model::SourceFile>>& files,
                              const std::filesystem::path& root, const config::Limits& limits);

  bool empty() const { return origins_.empty(); }
  // The origin of the document at `at` in a file of standard input, or null.
  const RenderedOrigin* originOf(const model::Location& at) const;

  // Moves the finding's location (and related locations) to the original file when the
  // field can be found there; otherwise keeps it and names the origin in the message.
  void relocate(model::Finding& finding) const;

 private:
  struct Document {
    yaml::Mark start;
    yaml::Mark end;
    yaml::NodeRef root;
    RenderedOrigin origin;
  };
  // The location in the original file; nothing when it cannot be found there, with
  // `changed` set when the field is there but the build gave it another value.
  std::optional<model::Location> map(const model::Location& at, const Document& doc,
                                     bool* changed = nullptr) const;
  const Document* documentAt(const model::Location& at) const;

  // Documents with an origin, by the path of their file (standard input).
  std::map<std::string, std::vector<Document>> origins_;
  // The original files, by their path relative to the root.
  std::map<std::string, std::unique_ptr<model::SourceFile>> originals_;
};

}  // namespace pg::load
