#include "rules/snapshot/snapshot_rules.h"

namespace pg::rules {
namespace {

void check(Context& ctx) {
  for (const snapshot::Drift& d : snapshotrules::driftOf(ctx)) {
    if (d.kind != snapshot::DriftKind::Orphaned) continue;
    std::string name = d.file.substr(0, d.file.size() - std::string_view(".yaml").size());
    std::string why = d.object ? d.object->display() + " is no longer reached by any policy"
                               : name + " is no longer in the input";
    model::Finding& f = ctx.report(snapshot::locationOf(d),
                                   "snapshot " + d.path + " is orphaned: " + why +
                                       "; run `policygraph snapshot --update` to delete it, or "
                                       "restore what the snapshot recorded",
                                   d.object);
    f.discriminator = d.file;
  }
}

}  // namespace

PG_RULE(SN702, "snapshot-orphaned", "snapshot", Error,
        "A snapshot records an object that no longer exists or no longer has policies", "*",
        check)

}  // namespace pg::rules
