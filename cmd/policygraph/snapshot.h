#pragma once

#include <CLI/CLI.hpp>

namespace pg::cli {

// Adds `policygraph snapshot --update|--check` to the app; its callback stores the exit
// status in `exitCode`.
void addSnapshotCommand(CLI::App& app, int& exitCode);

}  // namespace pg::cli
