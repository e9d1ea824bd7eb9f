#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <optional>

namespace pg::cli {

// Adds `policygraph diff` to the app; its callback stores the exit status in `exitCode`.
// `afterDashes` is how many arguments followed a `--` on the command line (the PATHs), set
// before parsing: the parser hands every positional over in one list.
void addDiffCommand(CLI::App& app, int& exitCode, const std::optional<std::size_t>& afterDashes);

}  // namespace pg::cli
