// What a rule is and how it registers: one `.cpp` per rule, one `PG_RULE(...)` line in it.
// A rule reads the Analysis through a Context and reports findings; it derives nothing the
// analysis already knows.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "lib/analysis/analysis.h"
#include "lib/model/finding.h"

namespace pg::rules {

class Context {
 public:
  Context(const analysis::Analysis& analysis, const model::RuleInfo& rule,
          std::vector<model::Finding>& out)
      : analysis_(analysis), rule_(rule), out_(out) {}

  const analysis::Analysis& analysis() const { return analysis_; }
  const model::Store& store() const { return analysis_.store; }
  const model::RuleInfo& rule() const { return rule_; }

  // Reports a finding of this rule at `where`; the returned finding may be given related
  // locations, objects and a discriminator. `subject` is the object the finding is about:
  // its display ref becomes the first object, and its annotations can suppress the finding.
  model::Finding& report(model::Location where, std::string message,
                         const model::Resource* subject = nullptr);

 private:
  const analysis::Analysis& analysis_;
  const model::RuleInfo& rule_;
  std::vector<model::Finding>& out_;
};

using CheckFunction = void (*)(Context&);

struct Rule {
  model::RuleInfo info;
  CheckFunction check;
};

// Called by PG_RULE at static initialisation.
bool registerRule(model::RuleInfo info, CheckFunction check);
// Every registered rule, ordered by ID, with its Markdown page attached.
const std::vector<Rule>& registry();
const Rule* findRule(std::string_view id);

// Kinds of subjects a rule checks, for reports that list every check (JUnit): "file" for
// rules about files, "*" for every object, else object kinds.
#define PG_RULE(ID, NAME, FAMILY, SEVERITY, SUMMARY, KINDS, CHECK)                          \
  namespace {                                                                               \
  const bool registered_##ID = ::pg::rules::registerRule(                                   \
      {#ID, NAME, FAMILY, ::pg::model::Severity::SEVERITY, SUMMARY, {}, {}, KINDS}, CHECK); \
  }

}  // namespace pg::rules
