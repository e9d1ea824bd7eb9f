#!/usr/bin/env bash
# Configures and builds into ${PG_BUILD_DIR:-build}; extra CMake arguments in PG_CMAKE_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${PG_BUILD_DIR:-build}
# shellcheck disable=SC2086
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="${PG_BUILD_TYPE:-RelWithDebInfo}" ${PG_CMAKE_ARGS:-} >/dev/null
ninja -C "$build" "$@"
