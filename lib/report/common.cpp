#include "lib/report/common.h"

#include <algorithm>
#include <cstdint>
#include <tuple>

#include "lib/load/sources.h"

namespace pg::report::detail {

namespace {

namespace fs = std::filesystem;

bool before(const yaml::Mark& a, const yaml::Mark& b) {
  return std::tie(a.line, a.column) < std::tie(b.line, b.column);
}

std::string positionOf(const std::string& path, const model::Location& at) {
  return path + ':' + std::to_string(at.start.line) + ':' + std::to_string(at.start.column);
}

}  // namespace

Span reportSpan(const model::Location& at) {
  Span span{at.start, at.end};
  if (span.start.line == 0) return {};
  // A known line with an unknown column still points somewhere: the start of that line.
  span.start.column = std::max<std::uint32_t>(span.start.column, 1);
  if (span.end.line == 0 || span.end.column == 0 || before(span.end, span.start))
    span.end = span.start;
  return span;
}

// The name lib/load/sources.cpp gives standard input. A real file of that name at the root would
// be taken for it; manifests are not named so.
bool isStandardInput(std::string_view path) {
  return path == load::kStdinPath;
}

RepositoryPaths::RepositoryPaths(const analysis::Analysis& analysis)
    : root_(fs::absolute(analysis.root).lexically_normal()),
      top_(analysis.repositoryRoot.empty()
               ? root_
               : fs::absolute(analysis.repositoryRoot).lexically_normal()),
      sameRoot_(root_ == top_) {}

std::string RepositoryPaths::operator()(const std::string& path) const {
  if (isStandardInput(path) || path.empty()) return path;
  const fs::path given(path);
  if (sameRoot_ && given.is_relative()) return path;
  const fs::path rel = (root_ / given).lexically_normal().lexically_relative(top_);
  if (rel.empty() || *rel.begin() == "..") return path;
  std::string out = rel.generic_string();
  if (out.size() > 1 && out.back() == '/') out.pop_back();  // a folder: "sub/" for "sub/."
  return out;
}

std::string position(const model::Location& at) {
  return positionOf(at.path, at);
}

std::string relatedLines(const model::Finding& finding, const RepositoryPaths* paths) {
  std::string lines;
  for (const model::RelatedLocation& related : finding.related) {
    const model::Location& at = related.location;
    lines +=
        '\n' + positionOf(paths ? (*paths)(at.path) : at.path, at) + ": note: " + related.message;
  }
  return lines;
}

std::map<std::string_view, std::size_t> indexRules(const std::vector<model::RuleInfo>& rules) {
  std::map<std::string_view, std::size_t> index;
  for (std::size_t i = 0; i < rules.size(); ++i) index.emplace(rules[i].id, i);
  return index;
}

std::string plural(std::size_t n, std::string_view word) {
  std::string out = std::to_string(n) + " " + std::string(word);
  if (n != 1) out += 's';
  return out;
}

std::vector<const analysis::Analysis*> analysesOf(const ReportInput& input) {
  if (!input.environments.empty()) return input.environments;
  return {&input.analysis};
}

}  // namespace pg::report::detail
