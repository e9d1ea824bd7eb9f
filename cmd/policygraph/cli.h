// Pieces shared by the subcommands: exit codes, output pairs, colour.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace pg::cli {

enum ExitCode : int { kClean = 0, kFindings = 1, kUsage = 2, kInternal = 3 };

// A usage or configuration error: printed, exit status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct OutputSpec {
  std::string format;
  std::string path;  // empty: standard output
};

bool colorWanted(const std::string& mode);

}  // namespace pg::cli
