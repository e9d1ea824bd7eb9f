#include "rules/engine.h"

#include <algorithm>
#include <iterator>
#include <map>

#include "lib/config/glob.h"
#include "lib/model/parallel.h"
#include "rules/rule.h"
#include "rules/rule_pages.h"

namespace pg::rules {

namespace {

std::vector<Rule>& mutableRegistry() {
  static std::vector<Rule> rules;
  return rules;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool suppressedByConfig(const config::Config& config, const model::Finding& f) {
  for (const config::Suppression& s : config.suppressions) {
    if (s.rule != "*" && s.rule != f.ruleId) continue;
    if (!s.paths.empty() && !config::globMatch(s.paths, f.location.path)) continue;
    if (!s.objects.empty() &&
        std::none_of(f.objects.begin(), f.objects.end(),
                     [&](const std::string& o) { return config::globMatch(s.objects, o); }))
      continue;
    return true;
  }
  return false;
}

bool suppressedByAnnotation(const model::Finding& f) {
  if (!f.subject) return false;
  std::string_view value = f.subject->annotation(kIgnoreAnnotation);
  if (value.empty()) return false;
  for (const std::string& id : parseIgnoreAnnotation(value))
    if (id == f.ruleId) return true;
  return false;
}

}  // namespace

model::Finding& Context::report(model::Location where, std::string message,
                                const model::Resource* subject) {
  model::Finding& f = out_.emplace_back();
  f.ruleId = std::string(rule_.id);
  f.severity = rule_.severity;
  f.message = std::move(message);
  f.location = std::move(where);
  f.subject = subject;
  if (subject) f.objects.push_back(subject->display());
  return f;
}

bool registerRule(model::RuleInfo info, CheckFunction check) {
  mutableRegistry().push_back({info, check});
  return true;
}

const std::vector<Rule>& registry() {
  static const bool sorted = [] {
    auto& rules = mutableRegistry();
    std::sort(rules.begin(), rules.end(),
              [](const Rule& a, const Rule& b) { return a.info.id < b.info.id; });
    for (Rule& r : rules) {
      if (const RulePage* page = findRulePage(r.info.id, r.info.name)) {
        r.info.markdown = page->markdown;
        r.info.pagePath = page->path;
      }
    }
    return true;
  }();
  (void)sorted;
  return mutableRegistry();
}

const Rule* findRule(std::string_view id) {
  for (const Rule& r : registry())
    if (r.info.id == id) return &r;
  return nullptr;
}

std::vector<model::RuleInfo> catalogue() {
  std::vector<model::RuleInfo> out;
  for (const Rule& r : registry()) out.push_back(r.info);
  return out;
}

std::vector<std::string> parseIgnoreAnnotation(std::string_view value) {
  auto dashes = value.find("--");
  if (dashes != std::string_view::npos) value = value.substr(0, dashes);
  std::vector<std::string> ids;
  while (!value.empty()) {
    auto comma = value.find_first_of(", ");
    std::string_view id = trim(value.substr(0, comma));
    if (!id.empty()) ids.emplace_back(id);
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return ids;
}

RuleRun runRules(const analysis::Analysis& analysis, const std::set<std::string>& baseline) {
  RuleRun run;
  // The enabled rules with their configured severities, in ID order.
  std::vector<std::pair<const Rule*, model::RuleInfo>> enabled;
  for (const Rule& rule : registry()) {
    model::RuleInfo info = rule.info;
    auto setting = analysis.config.rules.find(info.id);
    if (setting != analysis.config.rules.end()) {
      if (setting->second.off) continue;
      if (setting->second.severity) info.severity = *setting->second.severity;
    }
    enabled.emplace_back(&rule, std::move(info));
  }
  // Rules only read the analysis (and the views they share), so they run on the analysis's
  // threads, each into findings of its own; joined in ID order, the findings are the same
  // whatever the number of threads.
  std::vector<std::vector<model::Finding>> found(enabled.size());
  SharedViews shared;
  model::parallelFor(model::workersFor(analysis.jobs, enabled.size()), enabled.size(),
                     [&](std::size_t i, unsigned) {
                       Context context(analysis, enabled[i].second, found[i], &shared);
                       enabled[i].first->check(context);
                     });
  std::size_t count = 0;
  for (const std::vector<model::Finding>& f : found) count += f.size();
  std::vector<model::Finding> all;
  all.reserve(count);
  for (std::vector<model::Finding>& f : found)
    all.insert(all.end(), std::make_move_iterator(f.begin()), std::make_move_iterator(f.end()));
  for (model::Finding& f : all) {
    analysis.rendered().relocate(f);
    f.environment = analysis.environment;
    f.fingerprint = model::fingerprintOf(f);
    if (suppressedByAnnotation(f) || suppressedByConfig(analysis.config, f)) {
      ++run.suppressed;
    } else if (baseline.count(f.fingerprint)) {
      ++run.baselined;
    } else {
      run.findings.push_back(std::move(f));
    }
  }
  std::stable_sort(run.findings.begin(), run.findings.end(), model::reportOrder);
  return run;
}

}  // namespace pg::rules
