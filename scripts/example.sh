#!/usr/bin/env bash
# Quick start 1: install, build, and lint the bundled example repository.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh policygraph >/dev/null
set +e
"${PG_BUILD_DIR:-build}/policygraph" lint testdata/examples "$@"
status=$?
set -e
# The example repository carries deliberate mistakes, so findings (status 1) are the expected
# outcome; 2 and 3 are real failures.
echo "policygraph exited with status $status (1 = findings at or above --fail-on)" >&2
[ "$status" -le 1 ]
