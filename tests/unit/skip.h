// A check that cannot run here (an oracle or a folder beside the repository is missing, the
// temporary folder is inside a git repository) says so instead of passing silently: it prints
// "SKIPPED: why". Under CI, which sets PG_REQUIRE_CHECKS=1 (.ci/run), such a check must run,
// and skipping it fails the test.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <string_view>

namespace pg::testing {

inline bool checksRequired() {
  const char* value = std::getenv("PG_REQUIRE_CHECKS");
  return value && std::string_view(value) == "1";
}

// Call, then return from the test case.
inline void skipCheck(const std::string& why) {
  if (checksRequired())
    FAIL("this check cannot run: ", why, " (PG_REQUIRE_CHECKS=1 says it must)");
  else
    MESSAGE("SKIPPED: ", why);
}

}  // namespace pg::testing
