#include "rules/snapshot/snapshot_rules.h"

namespace pg::rules {
namespace {

constexpr std::size_t kListed = 5;  // enough to see what moved; the file diff shows the rest

void check(Context& ctx) {
  for (const snapshot::Drift& d : snapshotrules::driftOf(ctx)) {
    if (d.kind != snapshot::DriftKind::Changed) continue;
    std::string changes;
    for (std::size_t i = 0; i < d.changes.size() && i < kListed; ++i)
      changes += (i ? "; " : "") + d.changes[i];
    if (d.changes.size() > kListed)
      changes += " and " + std::to_string(d.changes.size() - kListed) + " more";
    model::Finding& f = ctx.report(snapshot::locationOf(d),
                                   "the effective policies on " + d.object->display() +
                                       " changed since the snapshot was written: " + changes +
                                       "; if the change is intended, run `policygraph snapshot "
                                       "--update` and commit the snapshot with it",
                                   d.object);
    f.discriminator = d.file;
  }
}

}  // namespace

PG_RULE(SN701, "snapshot-drift", "snapshot", Error,
        "The effective policies on an object differ from its checked-in snapshot", "*", check)

}  // namespace pg::rules
