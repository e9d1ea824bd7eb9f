// Parsing YAML (and JSON, which libyaml reads as flow YAML) into a Tree.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lib/yaml/tree.h"

namespace pg::yaml {

struct ParseLimits {
  std::uint32_t maxDepth = 128;
  // How many nodes aliases and merge keys may add to one document beyond the nodes written
  // in it. Bounds "billion laughs" documents without touching ordinary ones.
  std::uint64_t maxAliasExpansion = 100000;
};

enum class ProblemKind : std::uint8_t {
  Syntax,          // the text is not YAML; the document is dropped
  DuplicateKey,    // a mapping repeats a key; the document is kept, the first value is read
  AliasExpansion,  // aliases would expand past the limit, or refer to themselves; dropped
  Depth,           // nesting deeper than the limit; dropped
};

struct ParseProblem {
  ProblemKind kind;
  Mark start;
  Mark end;
  std::string message;
};

struct ParseResult {
  std::unique_ptr<Tree> tree;
  std::vector<ParseProblem> problems;
};

// Never throws on bad input: every problem is reported and parsing resumes at the next
// document (`---` at the start of a line) after a syntax error.
// `asciiOnly` lets scalars point into the text (libyaml counts positions in characters).
// `json` reads the text as JSON where JSON and YAML differ (surrogate-pair escapes).
ParseResult parse(std::string text, const ParseLimits& limits, bool asciiOnly, bool json = false);

// A correction to libyaml's columns on one line, after text was rewritten before parsing.
struct ColumnFix {
  std::uint32_t line;
  std::uint32_t column;  // positions at or after this column (in the rewritten text) ...
  std::uint32_t delta;   // ... move right by this much
};
void rewriteSurrogatePairs(std::string& text, std::vector<ColumnFix>& columnFixes);

}  // namespace pg::yaml
