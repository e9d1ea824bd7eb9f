#!/usr/bin/env bash
# Quick start 2: install, build, and run the whole test suite through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
ctest --test-dir "${PG_BUILD_DIR:-build}" --output-on-failure -j2
