// What a rule is and how it registers: one `.cpp` per rule, one `PG_RULE(...)` line in it.
// A rule reads the Analysis through a Context and reports findings; it derives nothing the
// analysis already knows.
#pragma once

#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lib/analysis/analysis.h"
#include "lib/model/finding.h"

namespace pg::rules {

// Views several rules derive from the same analysis (a policy's reach across every object,
// the drift of the snapshot folder), computed by the first rule that asks and kept for the
// rest of the run, so that no rule repeats another's work or I/O. Rules run on several
// threads: a view is built once even when two rules ask for it at the same time (the second
// waits for the first), and is never changed after.
class SharedViews {
 public:
  // The view `key` names (the address of a static object beside the function that builds
  // it), built by `make` the first time.
  template <typename T, typename Make>
  const T& get(const void* key, Make make) {
    View* view = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      std::unique_ptr<View>& slot = views_[key];
      if (!slot) slot = std::make_unique<View>();
      view = slot.get();
    }
    // A `make` that throws leaves the view unbuilt; the next rule that asks tries again.
    std::call_once(view->once, [&] { view->value = std::make_shared<T>(make()); });
    return *static_cast<const T*>(view->value.get());
  }

 private:
  struct View {
    std::once_flag once;
    std::shared_ptr<void> value;
  };
  std::mutex mutex_;
  std::unordered_map<const void*, std::unique_ptr<View>> views_;
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
