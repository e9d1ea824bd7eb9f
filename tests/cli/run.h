// Running the built binary from CLI tests, as a user would.
#pragma once

#include <doctest/doctest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/unit/test_folder.h"

namespace pg::testing {

struct Run {
  int status;
  std::string out;
  std::string err;
};

inline std::string readAll(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs `policygraph ARGS` in `cwd`, with `input` on standard input.
inline Run run(const std::filesystem::path& cwd, const std::string& args,
               const std::string& input = "") {
  TestFolder io;
  io.write("in", input);
  std::string command = "cd " + quote(cwd.string()) + " && NO_COLOR=1 " + quote(PG_BINARY) + " " +
                        args + " <" + quote((io.path() / "in").string()) + " >" +
                        quote((io.path() / "out").string()) + " 2>" +
                        quote((io.path() / "err").string());
  int raw = std::system(command.c_str());
  REQUIRE(WIFEXITED(raw));
  return {WEXITSTATUS(raw), readAll(io.path() / "out"), readAll(io.path() / "err")};
}

// Runs `git ARGS` in `dir`, as a user with a name and `main` for a first branch; output is
// dropped, and a failure fails the test.
inline void git(const std::filesystem::path& dir, const std::string& args) {
  std::string command = "cd " + quote(dir.string()) +
                        " && git -c user.name=policygraph -c user.email=test@example.com "
                        "-c init.defaultBranch=main " +
                        args + " >/dev/null 2>&1";
  REQUIRE_MESSAGE(std::system(command.c_str()) == 0, command);
}

}  // namespace pg::testing
