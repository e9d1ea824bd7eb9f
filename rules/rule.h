// What a rule is and how it registers: one `.cpp` per rule, one `PG_RULE(...)` line in it.
// A rule reads the Analysis through a Context and reports findings; it derives nothing the
// analysis already knows.
#pragma once

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lib/analysis/analysis.h"
#include "lib/model/finding.h"

namespace pg::rules {

// Views several rules derive from the same analysis (a policy's reach across every object,
// the drift of the snapshot folder), computed by the first rule that asks and kept for the
// rest of the run, so that no rule repeats another's work or I/O.
class SharedViews {
 public:
  // The view `key` names (the address of a static object beside the function that builds
  // it), built by `make` the first time.
  template <typename T, typename Make>
  const T& get(const void* key, Make make) {
    auto it = views_.find(key);
    if (it == views_.end()) it = views_.emplace(key, std::make_shared<T>(make())).first;
    return *static_cast<const T*>(it->second.get());
  }

 private:
  std::unordered_map<const void*, std::shared_ptr<void>> views_;
};

class Context {
 public:
  // `shared` outlives the context and is the same for every rule of one run; without it the
  // context keeps views of its own (one rule run alone).
  Context(const analysis::Analysis& analysis, const model::RuleInfo& rule,
          std::vector<model::Finding>& out, SharedViews* shared = nullptr)
      : analysis_(analysis), rule_(rule), out_(out), shared_(shared ? shared : &own_) {}
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const analysis::Analysis& analysis() const { return analysis_; }
  const model::Store& store() const { return analysis_.store; }
  const model::RuleInfo& rule() const { return rule_; }

  // Reports a finding of this rule at `where`; the returned finding may be given related
  // locations, objects and a discriminator. `subject` is the object the finding is about:
  // its display ref becomes the first object, and its annotations can suppress the finding.
  model::Finding& report(model::Location where, std::string message,
                         const model::Resource* subject = nullptr);

  SharedViews& shared() { return *shared_; }

 private:
  const analysis::Analysis& analysis_;
  const model::RuleInfo& rule_;
  std::vector<model::Finding>& out_;
  SharedViews own_;
  SharedViews* shared_;
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
