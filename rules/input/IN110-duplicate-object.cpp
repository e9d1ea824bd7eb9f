#include <algorithm>

#include "lib/units/alternatives.h"
#include "rules/rule.h"

namespace pg::rules {
namespace {

// The later definition is the one the analysis uses, as `kubectl apply -f` on the folder
// keeps it; the finding goes on it, so an annotation that accepts the copy sits on the
// definition that counts.
void check(Context& ctx) {
  // In one alternative of a folder of alternatives, an object defined in two files is the
  // alternative's own redefinition over a file it shares (a test over the suite's base): two of
  // its own files that disagreed would have made it a folder of alternatives itself
  // (units/alternatives.h). Applied in that order, the alternative's is what the cluster keeps.
  const bool overrides = ctx.analysis().unitKind == units::UnitKind::Alternative;
  for (const model::Store::Duplicate& d : ctx.store().duplicates()) {
    const model::Resource& first = *d.first;
    const model::Resource& second = *d.second;
    if (overrides && first.file != second.file) continue;
    // A guide's steps (00.yaml, 01.yaml, ...): a later step updates what an earlier one made.
    if (first.file && second.file && first.file != second.file &&
        units::steps(first.file->path, second.file->path))
      continue;
    model::Location firstAt = first.locateField(first.metadata(), "name");
    const std::string at = firstAt.path + ":" + std::to_string(firstAt.start.line);
    const bool identical = yaml::sameValue(first.node, second.node);
    std::string message =
        identical ? second.display() + " is defined twice with the same content: also at " + at +
                        "; delete one copy"
                  : second.display() + " is defined twice and the definitions differ: this one, " +
                        "applied after " + at +
                        " (path order, as `kubectl apply -f` on the folder), is what the "
                        "cluster keeps and what is analysed; delete or rename one of them";
    model::Finding& f =
        ctx.report(second.locateField(second.metadata(), "name"), std::move(message), &second);
    if (identical) f.severity = std::min(f.severity, model::Severity::Note);
    f.related.push_back({firstAt, "earlier definition of " + first.display() +
                                      (identical ? " (same content)" : ", replaced")});
  }
}

}  // namespace

PG_RULE(IN110, "duplicate-object", "input", Error, "Two manifests define the same object", "*",
        check)

}  // namespace pg::rules
