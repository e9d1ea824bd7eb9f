// Helpers shared by the writers for machines (SARIF, GitHub annotations).
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "lib/analysis/analysis.h"
#include "lib/model/finding.h"
#include "lib/model/source.h"
#include "lib/report/report.h"

namespace pg::report::detail {

// A location's span as a report may state it. Consumers reject spans that end before they
// start, so an unknown end, or one before the start, collapses onto the start. The end stays
// exclusive, as libyaml marks it. `start.line == 0` means the location has no position in the
// file (a folder, a symlink): say only the path.
struct Span {
  yaml::Mark start;
  yaml::Mark end;
};
Span reportSpan(const model::Location& at);

// Standard input has no path a consumer could open.
bool isStandardInput(std::string_view path);

// Paths as code hosts resolve them (SARIF, GitHub annotations): from the top of the repository
// (`Analysis::repositoryRoot`), where findings name them from policygraph's root, which may
// be a folder inside it (the config file's). Standard input, and a file outside the
// repository, name no file there: they keep the form the other reports give them.
class RepositoryPaths {
 public:
  explicit RepositoryPaths(const analysis::Analysis& analysis);
  // `path` (as in a finding: relative to the root, or absolute) from the repository root,
  // with '/' separators.
  std::string operator()(const std::string& path) const;
  // The repository root, absolute and normal.
  const std::filesystem::path& top() const { return top_; }

 private:
  std::filesystem::path root_;  // absolute and normal
  std::filesystem::path top_;
  bool sameRoot_;  // nothing to re-root but absolute paths
};

// `path:line:column`, which terminals and editors turn into links.
std::string position(const model::Location& at);

// Repository text (file names, object names, values quoted in messages) as a terminal may show
// it: C0 and C1 control characters and DEL as `\n`, `\t` or `\xNN` (an escape sequence would
// drive the reader's terminal, a line break split a finding), and the bidirectional controls
// that reorder what is shown (U+202A-U+202E, U+2066-U+2069) as `\u{NNNN}`. Unchanged, and
// not copied twice, when there is none.
std::string printable(std::string_view text);

// A finding's related locations, for formats with no field of their own for them: one
// "\npath:line:column: note: message" each, as the text report prints them; with `paths`,
// each path from the repository root.
std::string relatedLines(const model::Finding& finding, const RepositoryPaths* paths = nullptr);

// The analyses a report covers: each environment's, else the one analysis.
std::vector<const analysis::Analysis*> analysesOf(const ReportInput& input);

// `1 error`, `2 errors`.
std::string plural(std::size_t n, std::string_view word);

// A finding as the text report prints it: `path:line:col: severity: message [ID]`, then
// one indented line per related location; every line starts with `indent`.
void writeFindingText(std::ostream& out, const model::Finding& finding, bool color,
                      std::string_view indent = {});

// Each rule's position in the catalogue, by ID; SARIF refers to rules by index.
std::map<std::string_view, std::size_t> indexRules(const std::vector<model::RuleInfo>& rules);

}  // namespace pg::report::detail
