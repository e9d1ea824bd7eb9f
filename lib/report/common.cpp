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

namespace {

// The length of the control sequence at `i` that printable() escapes, 0 when there is none.
std::size_t controlAt(std::string_view s, std::size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  if (b < 0x20 || b == 0x7F) return 1;
  if (b == 0xC2 && i + 1 < s.size()) {  // U+0080-U+009F
    const auto c = static_cast<unsigned char>(s[i + 1]);
    if (c >= 0x80 && c <= 0x9F) return 2;
  }
  if (b == 0xE2 && i + 2 < s.size()) {  // U+202A-U+202E, U+2066-U+2069
    const auto c = static_cast<unsigned char>(s[i + 1]);
    const auto d = static_cast<unsigned char>(s[i + 2]);
    if ((c == 0x80 && d >= 0xAA && d <= 0xAE) || (c == 0x81 && d >= 0xA6 && d <= 0xA9)) return 3;
  }
  return 0;
}

}  // namespace

std::string printable(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::size_t i = 0;
  while (i < text.size() && controlAt(text, i) == 0) ++i;
  if (i == text.size()) return std::string(text);
  std::string out(text.substr(0, i));
  while (i < text.size()) {
    const std::size_t n = controlAt(text, i);
    if (n == 0) {
      out += text[i++];
      continue;
    }
    const auto b = static_cast<unsigned char>(text[i]);
    if (n == 1 && b == '\n') {
      out += "\\n";
    } else if (n == 1 && b == '\t') {
      out += "\\t";
    } else if (n == 1 && b == '\r') {
      out += "\\r";
    } else if (n == 1) {
      out += "\\x";
      out += kHex[b >> 4];
      out += kHex[b & 15];
    } else if (n == 2) {
      const auto c = static_cast<unsigned char>(text[i + 1]);
      out += "\\u{";
      out += "00";
      out += kHex[c >> 4];
      out += kHex[c & 15];
      out += '}';
    } else {
      const unsigned cp = ((b & 0x0Fu) << 12) |
                          ((static_cast<unsigned char>(text[i + 1]) & 0x3Fu) << 6) |
                          (static_cast<unsigned char>(text[i + 2]) & 0x3Fu);
      out += "\\u{";
      for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(cp >> shift) & 15];
      out += '}';
    }
    i += n;
  }
  return out;
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
