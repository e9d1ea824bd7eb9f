#include "rules/engine.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <set>

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

namespace {

// The catalogue entry of a rule the engine reports itself (IN132, IN133), with the severity the
// config gives it; null when the config turns it off.
std::optional<model::RuleInfo> engineRule(const analysis::Analysis& analysis, std::string_view id) {
  const Rule* rule = findRule(id);
  if (!rule) return std::nullopt;
  model::RuleInfo info = rule->info;
  if (auto setting = analysis.config.rules.find(info.id); setting != analysis.config.rules.end()) {
    if (setting->second.off) return std::nullopt;
    if (setting->second.severity) info.severity = *setting->second.severity;
  }
  return info;
}

// Findings that rest on an object the unit does not hold: an error where the unit is the
// object's home, nothing where something produces it, else one IN133 note per object, at its
// first reference, the others related.
// How many units of the run each missing object is assumed by (its display → units).
using Assumptions = std::map<std::string, std::size_t>;

// An object no file of the input defines that this many units of the run name is what the
// environment that applies them provides (a test suite's certificates, a platform's Gateway):
// one or two units naming an object nothing defines is a mistake or a deliberate negative
// case; a third makes it the environment's.
constexpr std::size_t kAssumedByEnvironment = 3;

std::vector<model::Finding> weighAbsences(const analysis::Analysis& analysis,
                                          std::vector<model::Finding> all,
                                          const Assumptions& assumptions) {
  const std::optional<model::RuleInfo> note = engineRule(analysis, "IN133");
  std::vector<model::Finding> out;
  std::map<std::string, std::size_t> notes;  // missing object → its note in `out`
  for (model::Finding& f : all) {
    if (!f.missing) {
      out.push_back(std::move(f));
      continue;
    }
    analysis::Analysis::Absence absence = analysis.absenceOf(*f.missing);
    bool environment = false;
    if (absence == analysis::Analysis::Absence::Missing &&
        analysis.unitKind != units::UnitKind::Input &&
        analysis.unitKind != units::UnitKind::Environment) {
      auto it = assumptions.find(f.missing->display());
      if (it != assumptions.end() && it->second >= kAssumedByEnvironment) {
        absence = analysis::Analysis::Absence::Elsewhere;
        environment = true;
      }
    }
    if (absence == analysis::Analysis::Absence::Missing) {
      out.push_back(std::move(f));
      continue;
    }
    if (absence == analysis::Analysis::Absence::Produced || !note) continue;
    const std::string object = f.missing->display();
    if (auto it = notes.find(object); it != notes.end()) {
      model::Finding& n = out[it->second];
      n.related.push_back({f.location, "also assumes it (" + f.ruleId + ")"});
      continue;
    }
    model::Finding n;
    n.ruleId = std::string(note->id);
    n.severity = note->severity;
    // The finding names its unit: the message does not, so that units assuming the same
    // object give one note.
    const std::string unit =
        analysis.environment.empty() ? std::string("the input") : std::string("this unit");
    const bool selected = f.missing->bySelector();
    std::string notHome;
    if (selected)
      notHome = ", which runs no workload in namespace " + f.missing->namespace_;
    else if (f.missing->namespace_.empty())
      notHome = ", a cluster-scoped object, which the unit does not evidently own";
    else if (analysis.store.ofKind(f.missing->group, f.missing->kind).empty())
      notHome = ", which makes no " + f.missing->kind + " at all";
    else
      notHome = ", which does not create namespace " + f.missing->namespace_;
    const std::string_view definedIn = analysis.definitionOf(*f.missing);
    const std::size_t assumed =
        environment ? assumptions.find(f.missing->display())->second : std::size_t{0};
    n.message =
        object + (selected ? " are not in " : " is not in ") + unit +
        (environment ? ": no file of the input defines it and " + std::to_string(assumed) +
                           " units name it, so it is taken to be provided by what applies them "
                           "(" +
                           f.ruleId +
                           " is not reported here). If it should be in the "
                           "repository, add it; else declare it under external: in "
                           ".policygraph.yaml"
         : definedIn.empty() ? notHome + ": it is taken to exist elsewhere, and " + f.ruleId +
                                   " is not reported here. If it "
                                   "belongs in this unit, add it; if another repository or a "
                                   "controller makes it, declare it under external: in "
                                   ".policygraph.yaml"
                             : ": " + std::string(definedIn) +
                                   " defines it, in another unit, and it is taken to be applied "
                                   "too (" +
                                   f.ruleId +
                                   " is not reported here). If this unit is "
                                   "applied alone, include that file");
    n.location = f.location;
    n.objects = {object};
    n.discriminator = object;
    n.subject = f.subject;
    notes.emplace(object, out.size());
    out.push_back(std::move(n));
  }
  return out;
}

// Findings whose field holds a placeholder (`${VAR}`, `{NAME}`, `{{ x }}`) rest on a value
// substituted before apply: unknown, not wrong. They are dropped, and one IN132 note per unit
// names the placeholders they rested on.
std::vector<model::Finding> dropPlaceholders(const analysis::Analysis& analysis,
                                             std::vector<model::Finding> all) {
  analysis::PlaceholderLines placeholders(analysis.files, analysis.resolvedLines);
  std::vector<model::Finding> out;
  std::vector<std::pair<model::Location, std::string>> dropped;
  for (model::Finding& f : all) {
    std::string_view placeholderLine;
    for (std::uint32_t l = f.location.start.line;
         l >= 1 && l <= f.location.end.line && placeholderLine.empty(); ++l)
      placeholderLine = placeholders.at(f.location.path, l);
    const bool rests = !placeholderLine.empty();
    if (!rests) {
      out.push_back(std::move(f));
      continue;
    }
    std::string_view shown = placeholderLine;
    while (!shown.empty() && (shown.front() == ' ' || shown.front() == '-')) shown.remove_prefix(1);
    dropped.emplace_back(f.location, std::string(shown.substr(0, 120)));
  }
  const std::optional<model::RuleInfo> note = engineRule(analysis, "IN132");
  if (dropped.empty() || !note) return out;
  model::Finding n;
  n.ruleId = std::string(note->id);
  n.severity = note->severity;
  n.location = dropped.front().first;
  n.message = std::to_string(dropped.size()) +
              " finding(s) rest on values substituted before apply and are not reported: " +
              dropped.front().second +
              (dropped.size() > 1 ? " (and " + std::to_string(dropped.size() - 1) + " more)" : "") +
              ". Lint what is applied (the rendered output, e.g. `flux envsubst`, piped to "
              "`policygraph lint -`) to check them";
  n.discriminator = "placeholders";
  for (std::size_t i = 1; i < dropped.size() && i < 50; ++i)
    n.related.push_back({dropped[i].first, dropped[i].second});
  out.push_back(std::move(n));
  return out;
}

// Every enabled rule's findings on one analysis, with the severities the config gives.
std::vector<model::Finding> rawFindings(const analysis::Analysis& analysis) {
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
  for (std::vector<model::Finding>& list : found)
    for (model::Finding& f : list) all.push_back(std::move(f));
  return all;
}

// The findings of one analysis, weighed (absences, placeholders), after suppressions;
// `suppressed` counts those suppressed. Relocated (rendered input) and named by the unit.
std::vector<model::Finding> findingsOf(const analysis::Analysis& analysis,
                                       std::vector<model::Finding> raw,
                                       const Assumptions& assumptions, std::size_t& suppressed) {
  std::vector<model::Finding> all = std::move(raw);
  all = weighAbsences(analysis, std::move(all), assumptions);
  all = dropPlaceholders(analysis, std::move(all));
  std::vector<model::Finding> out;
  out.reserve(all.size());
  for (model::Finding& f : all) {
    analysis.rendered().relocate(f);
    f.environment = analysis.environment;
    if (suppressedByAnnotation(f) || suppressedByConfig(analysis.config, f))
      ++suppressed;
    else
      out.push_back(std::move(f));
  }
  return out;
}

// How a finding several units share names them: each, or how many when there are many.
std::string unitsOf(const std::vector<std::string>& names) {
  if (names.size() > 3) return std::to_string(names.size()) + " units";
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

RuleRun runRules(const analysis::Analysis& analysis, const std::set<std::string>& baseline) {
  return runRules(std::vector<const analysis::Analysis*>{&analysis}, baseline);
}

RuleRun runRules(const std::vector<const analysis::Analysis*>& units,
                 const std::set<std::string>& baseline) {
  RuleRun run;
  std::vector<model::Finding> all;
  // Each unit's findings, then which units assume each missing object, then each unit's
  // findings weighed against that.
  std::vector<std::vector<model::Finding>> raw;
  Assumptions assumptions;
  for (const analysis::Analysis* a : units) {
    raw.push_back(rawFindings(*a));
    std::set<std::string> named;
    for (const model::Finding& f : raw.back())
      if (f.missing && a->definitionOf(*f.missing).empty()) named.insert(f.missing->display());
    for (const std::string& n : named) ++assumptions[n];
  }
  for (std::size_t i = 0; i < units.size(); ++i) {
    const analysis::Analysis* a = units[i];
    std::vector<model::Finding> found =
        findingsOf(*a, std::move(raw[i]), assumptions, run.suppressed);
    all.insert(all.end(), std::make_move_iterator(found.begin()),
               std::make_move_iterator(found.end()));
  }
  // A file several units read gives the same finding in each: it is reported once, naming
  // them all.
  if (units.size() > 1) {
    std::stable_sort(all.begin(), all.end(), model::reportOrder);
    std::vector<model::Finding> merged;
    std::vector<std::string> names;
    auto flush = [&] {
      if (merged.empty() || names.size() <= 1) return;
      merged.back().environment = unitsOf(names);
    };
    for (model::Finding& f : all) {
      if (!merged.empty()) {
        const model::Finding& last = merged.back();
        if (last.ruleId == f.ruleId && last.location == f.location && last.message == f.message &&
            last.severity == f.severity) {
          if (std::find(names.begin(), names.end(), f.environment) == names.end())
            names.push_back(f.environment);
          continue;
        }
      }
      flush();
      names = {f.environment};
      merged.push_back(std::move(f));
    }
    flush();
    all = std::move(merged);
  }
  for (model::Finding& f : all) {
    f.fingerprint = model::fingerprintOf(f);
    if (baseline.count(f.fingerprint))
      ++run.baselined;
    else
      run.findings.push_back(std::move(f));
  }
  std::stable_sort(run.findings.begin(), run.findings.end(), model::reportOrder);
  return run;
}

}  // namespace pg::rules
