#include <nlohmann/json.hpp>
#include <set>

#include "lib/report/common.h"
#include "lib/report/message.h"
#include "lib/report/report.h"
#include "lib/report/unanalysed.h"
#include "lib/report/values.h"

namespace pg::report {

namespace detail {

Json locationJson(const model::Location& at) {
  return {{"path", at.path},
          {"line", at.start.line},
          {"column", at.start.column},
          {"endLine", at.end.line},
          {"endColumn", at.end.column}};
}

Json findingJson(const model::Finding& f, const std::vector<model::RuleInfo>& rules) {
  Json related = Json::array();
  for (const model::RelatedLocation& r : f.related)
    related.push_back({{"message", r.message}, {"location", locationJson(r.location)}});
  std::string_view name;
  for (const model::RuleInfo& rule : rules)
    if (rule.id == f.ruleId) name = rule.name;
  const MessageParts message = splitMessage(f.message);
  Json out = {{"ruleId", f.ruleId},
              {"ruleName", name},
              {"severity", model::toString(f.severity)},
              {"message", message.lead},
              {"detail", message.detail},
              {"location", locationJson(f.location)},
              {"related", related},
              {"objects", f.objects},
              {"fingerprint", f.fingerprint}};
  if (!f.environment.empty()) out["environment"] = f.environment;
  return out;
}

}  // namespace detail

void writeJson(std::ostream& out, const ReportInput& input) {
  std::size_t counts[3] = {0, 0, 0};
  nlohmann::ordered_json findings = nlohmann::ordered_json::array();
  for (const model::Finding& f : input.findings) {
    ++counts[static_cast<int>(f.severity)];
    findings.push_back(detail::findingJson(f, input.rules));
  }
  std::size_t objects = 0;
  std::set<const model::SourceFile*> fileSet;
  std::vector<std::string> environments;
  for (const analysis::Analysis* a : detail::analysesOf(input)) {
    // A file several units read is one file.
    for (const model::SourceFile* f : a->files) fileSet.insert(f);
    objects += a->store.size();
    if (!a->environment.empty()) environments.push_back(a->environment);
  }
  nlohmann::ordered_json doc = {{"tool", {{"name", "policygraph"}, {"version", toolVersion()}}},
                                {"summary",
                                 {{"files", fileSet.size()},
                                  {"objects", objects},
                                  {"errors", counts[2]},
                                  {"warnings", counts[1]},
                                  {"notes", counts[0]},
                                  {"suppressed", input.suppressed},
                                  {"baselined", input.baselined}}},
                                {"findings", findings}};
  if (!environments.empty()) doc["summary"]["environments"] = environments;
  nlohmann::ordered_json unanalysed = nlohmann::ordered_json::array();
  for (const UnanalysedKind& k : unanalysedKinds(detail::analysesOf(input)))
    unanalysed.push_back({{"group", k.group}, {"kind", k.kind}, {"count", k.objects.size()}});
  doc["summary"]["notAnalysed"] = std::move(unanalysed);
  // A file name that is not UTF-8 must not cost the whole report.
  out << doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
}

std::set<std::string> readBaseline(std::string_view jsonText) {
  nlohmann::json doc = nlohmann::json::parse(jsonText);
  if (!doc.is_object() || !doc.contains("findings") || !doc["findings"].is_array())
    throw std::runtime_error("it has no \"findings\" list");
  std::set<std::string> fingerprints;
  for (const auto& f : doc["findings"]) {
    if (!f.is_object() || !f.contains("fingerprint") || !f["fingerprint"].is_string())
      throw std::runtime_error("a finding has no fingerprint");
    fingerprints.insert(f["fingerprint"].get<std::string>());
  }
  return fingerprints;
}

}  // namespace pg::report
