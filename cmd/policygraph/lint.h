#pragma once

#include <CLI/CLI.hpp>

namespace pg::cli {

// Adds `policygraph lint` to the app; its callback stores the exit status in `exitCode`.
void addLintCommand(CLI::App& app, int& exitCode);

}  // namespace pg::cli
