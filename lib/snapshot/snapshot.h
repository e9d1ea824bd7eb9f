// Golden effective-policy files: one YAML file per object some policy reaches, holding what
// `policygraph explain` shows for it, written so that a reviewer reads the change in a pull
// request. `render` builds them from an Analysis, `update` writes them, `compare` finds where
// the files on disk and the analysis disagree (for SN701-SN703).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "lib/analysis/analysis.h"

namespace pg::snapshot {

// Relative to the repository root unless `snapshots: {dir: ...}` or `--dir` says otherwise.
inline constexpr std::string_view kDefaultFolder = ".policygraph/snapshots";

// The folder the snapshots of `analysis` live in, absolute.
std::filesystem::path folderOf(const analysis::Analysis& analysis);

// Whether lint compares snapshots: `snapshot --check` asks for it, the config file names a
// folder, or the folder exists. A repository that never wrote snapshots gets no findings.
bool checked(const analysis::Analysis& analysis);

struct Snapshot {
  std::string file;  // relative to the folder, '/'-separated: Kind/namespace/name.yaml
  const model::Resource* object = nullptr;
  std::string text;
  // What it records, for messages: the policy kinds, `Linkerd inbound`, `Kuma MeshTimeout`.
  std::string contents;
};

// `Kind/namespace/name.yaml`, `Kind/name.yaml` for cluster-scoped objects, and
// `Kind/@mesh/name.yaml` for Kuma Universal objects (a name is unique only within its mesh;
// no namespace starts with `@`).
std::string fileNameOf(const model::Resource& object);

// The snapshot of every object some policy reaches, ordered by file name: each object with
// GEP-713-style effective policies; each workload Linkerd injects (its `linkerd.inbound`); each
// Kuma proxy at least one Kuma policy selects (a Dataplane or MeshGateway object, or the
// workload a Kubernetes proxy is derived from, whose file then holds the `kuma` section).
std::vector<Snapshot> render(const analysis::Analysis& analysis);

struct UpdateResult {
  std::vector<std::string> written;  // created or changed, relative to the folder
  std::vector<std::string> deleted;  // snapshots of objects without effective policies
  std::size_t unchanged = 0;
};

// Writes every snapshot whose text changed and deletes the `.yaml` files of the folder no
// object accounts for. Each file is replaced atomically (a temporary file beside it, then a
// rename). Throws std::runtime_error, naming the file as reports do, when one cannot be
// written or removed: that file is left as it was, with no temporary file beside it; the
// files written before it stay written, and nothing is deleted.
UpdateResult update(const analysis::Analysis& analysis, const std::filesystem::path& folder);

enum class DriftKind { Changed, Orphaned, Missing };

// One disagreement between the folder and the analysis.
struct Drift {
  DriftKind kind = DriftKind::Changed;
  std::string file;  // relative to the folder
  std::string path;  // of the snapshot file, relative to the repository root as reports show it
  const model::Resource* object = nullptr;  // Changed, Missing: the object; Orphaned: if it exists
  std::string contents;                     // Changed, Missing: Snapshot::contents
  std::uint32_t line = 1;                   // Changed: the first line that differs
  std::string lineText;                     // Changed: that line on disk, for the location's end
  // Changed: each field that differs, `field: before → after`, in file order.
  std::vector<std::string> changes;
};

// Every drift, ordered by file name. A snapshot file that cannot be read counts as missing.
std::vector<Drift> compare(const analysis::Analysis& analysis, const std::filesystem::path& folder);

// Where a Changed or Orphaned drift's finding points: the line in the snapshot file, from its
// first character after the indentation to its last.
model::Location locationOf(const Drift& drift);

// The field-by-field difference of two snapshot texts, `field: before → after`, in the
// order of `after` (then fields only `before` has). Exposed for tests.
std::vector<std::string> changedFields(std::string_view before, std::string_view after);

}  // namespace pg::snapshot
