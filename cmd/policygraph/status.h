#pragma once

#include <CLI/CLI.hpp>

namespace pg::cli {

// Adds `policygraph status`.
void addStatusCommand(CLI::App& app, int& exitCode);

}  // namespace pg::cli
