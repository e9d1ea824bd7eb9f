#pragma once

#include <CLI/CLI.hpp>

namespace pg::cli {

// Adds `policygraph explain REF`.
void addExplainCommand(CLI::App& app, int& exitCode);

}  // namespace pg::cli
