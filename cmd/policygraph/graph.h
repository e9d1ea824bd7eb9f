#pragma once

#include <CLI/CLI.hpp>

namespace pg::cli {

// Adds `policygraph graph`.
void addGraphCommand(CLI::App& app, int& exitCode);

}  // namespace pg::cli
