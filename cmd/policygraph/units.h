// `policygraph units`: how the repository is applied, as the analysis reads it.
#pragma once

#include <CLI/CLI.hpp>

namespace pg::cli {

void addUnitsCommand(CLI::App& app, int& exitCode);

}  // namespace pg::cli
