// Most input rules report one kind of load problem each; this turns the problem into the
// rule's finding, adding the rule's advice to the loader's specific message.
#pragma once

#include "lib/load/problem.h"
#include "rules/rule.h"

namespace pg::rules {

inline void reportLoadProblems(Context& ctx, load::ProblemKind kind, std::string_view advice) {
  for (const load::Problem& p : ctx.analysis().problems) {
    if (p.kind != kind) continue;
    model::Finding& f = ctx.report(p.location, p.message + ": " + std::string(advice));
    f.related = p.related;
    f.discriminator = p.discriminator;
  }
}

// One line registers an input rule that reports load problems of kind PROBLEM.
#define PG_LOAD_PROBLEM_RULE(ID, NAME, SEVERITY, PROBLEM, SUMMARY, ADVICE) \
  namespace pg::rules {                                                    \
  namespace {                                                              \
  void check##ID(Context& ctx) {                                           \
    reportLoadProblems(ctx, load::ProblemKind::PROBLEM, ADVICE);           \
  }                                                                        \
  }                                                                        \
  PG_RULE(ID, NAME, "input", SEVERITY, SUMMARY, "file", check##ID)         \
  }

}  // namespace pg::rules
