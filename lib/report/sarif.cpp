// SARIF 2.1.0, for code scanning services (GitHub code scanning, Azure DevOps, IDE viewers).
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "lib/report/common.h"
#include "lib/report/report.h"

namespace pg::report {

namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kSchema = "https://json.schemastore.org/sarif-2.1.0.json";
// The conventional name for the root of the sources; consumers map it to their checkout.
constexpr const char* kRootId = "SRCROOT";
// Versioned, so a future change of fingerprint recipe does not match old alerts by accident.
constexpr const char* kFingerprintKey = "policygraph/v1";

// RFC 3986 `pchar` and '/', except ':': in a relative reference a colon in the first segment
// would make `a:b.yaml` read as scheme `a`, and an encoded colon names the same file.
bool keptInUri(unsigned char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("-._~!$&'()*+,;=@/").find(static_cast<char>(c)) != std::string_view::npos;
}

// File names are bytes; anything a URI reference cannot hold (spaces, '%', '#', '?', UTF-8)
// is percent-encoded byte by byte, as RFC 3986 and RFC 8089 do for file paths.
std::string percentEncode(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(path.size());
  for (unsigned char c : path) {
    if (keptInUri(c)) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  return out;
}

// `path` from the repository root (detail::RepositoryPaths).
Json artifactLocation(const std::string& path) {
  // Standard input is no file, but a result needs a valid URI to carry its region.
  if (detail::isStandardInput(path)) return {{"uri", "stdin"}, {"uriBaseId", kRootId}};
  // A file named by an absolute path outside the repository has no place under SRCROOT.
  if (!path.empty() && path.front() == '/') return {{"uri", "file://" + percentEncode(path)}};
  return {{"uri", percentEncode(path)}, {"uriBaseId", kRootId}};
}

Json physicalLocation(const model::Location& at, const detail::RepositoryPaths& paths) {
  Json location = {{"artifactLocation", artifactLocation(paths(at.path))}};
  const detail::Span span = detail::reportSpan(at);
  if (span.start.line != 0) {
    location["region"] = {{"startLine", span.start.line},
                          {"startColumn", span.start.column},
                          {"endLine", span.end.line},
                          {"endColumn", span.end.column}};
  }
  return location;
}

std::string_view trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

// The first paragraph of prose on a rule's page. Headings are skipped rather than ending the
// search, so a page that opens with "## What it detects" yields that section's first
// paragraph; code blocks are examples, not a description.
std::string firstParagraph(std::string_view markdown) {
  std::string paragraph;
  bool inCode = false;
  while (!markdown.empty()) {
    const auto newline = markdown.find('\n');
    const std::string_view line = trimmed(markdown.substr(0, newline));
    markdown.remove_prefix(newline == std::string_view::npos ? markdown.size() : newline + 1);
    const bool fence = line.starts_with("```") || line.starts_with("~~~");
    const bool prose = !fence && !inCode && !line.empty() && !line.starts_with('#');
    if (!prose && !paragraph.empty()) break;
    if (fence) inCode = !inCode;
    if (!prose) continue;
    if (!paragraph.empty()) paragraph += ' ';  // a soft line break inside a paragraph
    paragraph += line;
  }
  return paragraph;
}

Json ruleDescriptor(const model::RuleInfo& rule) {
  const std::string_view page = rule.markdown.empty() ? rule.summary : rule.markdown;
  std::string description = firstParagraph(rule.markdown);
  if (description.empty()) description = rule.summary;
  return {{"id", rule.id},
          {"name", rule.name},
          {"shortDescription", {{"text", rule.summary}}},
          {"fullDescription", {{"text", description}}},
          {"help", {{"text", page}, {"markdown", page}}},
          {"helpUri", ruleHelpUri(rule)},
          {"defaultConfiguration", {{"level", model::toString(rule.severity)}}},
          {"properties", {{"tags", Json::array({rule.family})}}}};
}

Json result(const model::Finding& finding, const std::map<std::string_view, std::size_t>& rules,
            const detail::RepositoryPaths& paths) {
  Json out = {{"ruleId", finding.ruleId}};
  if (auto rule = rules.find(finding.ruleId); rule != rules.end()) out["ruleIndex"] = rule->second;
  out["level"] = model::toString(finding.severity);
  out["message"] = {{"text", finding.message}};
  Json location = {{"physicalLocation", physicalLocation(finding.location, paths)}};
  out["locations"] = Json::array({location});
  if (!finding.related.empty()) {
    Json related = Json::array();
    for (const model::RelatedLocation& r : finding.related) {
      related.push_back({{"id", related.size() + 1},
                         {"physicalLocation", physicalLocation(r.location, paths)},
                         {"message", {{"text", r.message}}}});
    }
    out["relatedLocations"] = std::move(related);
  }
  if (!finding.environment.empty()) out["properties"] = {{"environment", finding.environment}};
  // The rule engine fills fingerprints; a finding made elsewhere still gets the same identity.
  out["partialFingerprints"] = {{kFingerprintKey, finding.fingerprint.empty()
                                                      ? model::fingerprintOf(finding)
                                                      : finding.fingerprint}};
  return out;
}

// SARIF wants a base URI that is absolute and ends with '/', so it can be joined with the
// relative artifact URIs. It is the top of the repository (detail::RepositoryPaths), from
// which GitHub code scanning reads relative URIs.
std::string rootUri(const std::filesystem::path& root) {
  std::string path = std::filesystem::absolute(root).lexically_normal().generic_string();
  if (path.empty() || path.back() != '/') path += '/';
  return "file://" + percentEncode(path);
}

}  // namespace

void writeSarif(std::ostream& out, const ReportInput& input) {
  Json rules = Json::array();
  for (const model::RuleInfo& rule : input.rules) rules.push_back(ruleDescriptor(rule));
  const std::map<std::string_view, std::size_t> ruleIndex = detail::indexRules(input.rules);
  const detail::RepositoryPaths paths(input.analysis);
  Json results = Json::array();
  for (const model::Finding& finding : input.findings)
    results.push_back(result(finding, ruleIndex, paths));

  Json run;
  run["tool"]["driver"] = {{"name", "policygraph"},
                           {"semanticVersion", toolVersion()},
                           {"informationUri", informationUri()},
                           {"rules", std::move(rules)}};
  Json invocation = {{"executionSuccessful", true}};
  run["invocations"] = Json::array({invocation});
  run["originalUriBaseIds"][kRootId]["uri"] = rootUri(paths.top());
  run["columnKind"] = "unicodeCodePoints";
  run["results"] = std::move(results);

  Json log;
  log["$schema"] = kSchema;
  log["version"] = "2.1.0";
  log["runs"] = Json::array({run});
  // File names and messages quoting them may hold bytes that are not UTF-8; a report with a
  // replacement character beats no report.
  out << log.dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
}

}  // namespace pg::report
