// What the snapshot rules (SN7xx) share: the drift of the snapshot folder, read and compared
// once per rule run, whichever of them asks first.
#pragma once

#include <vector>

#include "lib/snapshot/snapshot.h"
#include "rules/rule.h"

namespace pg::rules::snapshotrules {

// Every drift between the snapshot folder and the analysis; none when lint does not compare
// snapshots (no `snapshot --check`, no configured or existing folder).
inline const std::vector<snapshot::Drift>& driftOf(Context& ctx) {
  static const char key = 0;
  const analysis::Analysis& a = ctx.analysis();
  return ctx.shared().get<std::vector<snapshot::Drift>>(&key, [&] {
    return snapshot::checked(a) ? snapshot::compare(a, snapshot::folderOf(a))
                                : std::vector<snapshot::Drift>{};
  });
}

}  // namespace pg::rules::snapshotrules
