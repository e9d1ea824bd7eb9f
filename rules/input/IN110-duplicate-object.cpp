#include "rules/rule.h"

namespace pg::rules {
namespace {

void check(Context& ctx) {
  for (const model::Store::Duplicate& d : ctx.store().duplicates()) {
    const model::Resource& first = *d.first;
    const model::Resource& second = *d.second;
    model::Location firstAt = first.locateField(first.metadata(), "name");
    model::Finding& f = ctx.report(
        second.locateField(second.metadata(), "name"),
        second.display() + " is defined twice (first at " + firstAt.path + ":" +
            std::to_string(firstAt.start.line) +
            "); the cluster keeps whichever is applied last: delete or rename one of them",
        &second);
    f.related.push_back({firstAt, "first definition of " + first.display()});
  }
}

}  // namespace

PG_RULE(IN110, "duplicate-object", "input", Error, "Two manifests define the same object", "*",
        check)

}  // namespace pg::rules
