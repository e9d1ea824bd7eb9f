// The rules' Markdown pages, embedded at build time (see cmake/EmbedRulePages.cmake).
#pragma once

#include <string_view>

namespace pg::rules {

struct RulePage {
  std::string_view path;  // rules/<family>/<ID>-<name>.md
  std::string_view markdown;
};

// The page named `<id>-<name>.md`, or null.
const RulePage* findRulePage(std::string_view id, std::string_view name);
// Every embedded page, for the test that pairs pages with rules.
const RulePage* rulePages(std::size_t& count);

}  // namespace pg::rules
