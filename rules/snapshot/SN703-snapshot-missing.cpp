#include "rules/snapshot/snapshot_rules.h"

namespace pg::rules {
namespace {

void check(Context& ctx) {
  const analysis::Analysis& a = ctx.analysis();
  for (const snapshot::Drift& d : snapshotrules::driftOf(ctx)) {
    if (d.kind != snapshot::DriftKind::Missing) continue;
    std::string kinds;
    for (const policy::ObjectEffective& o : a.policies.effective) {
      if (o.object != d.object) continue;
      for (const policy::Effective& e : o.effective)
        if (kinds.find(e.profile->kind) == std::string::npos)
          kinds += (kinds.empty() ? "" : ", ") + e.profile->kind;
    }
    if (kinds.empty()) kinds = d.contents;  // Kuma and Linkerd: what lib/snapshot says
    // The object, not the file that does not exist: that is what a reviewer opens.
    model::Finding& f = ctx.report(
        d.object->locateField(d.object->metadata(), "name"),
        d.object->display() + " has effective policies (" + kinds + ") but no snapshot " + d.path +
            "; run `policygraph snapshot --update` and commit the new file",
        d.object);
    f.discriminator = d.file;
  }
}

}  // namespace

PG_RULE(SN703, "snapshot-missing", "snapshot", Error,
        "An object with effective policies has no snapshot", "*", check)

}  // namespace pg::rules
