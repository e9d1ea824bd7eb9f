#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/) with clang, runs them over their seeds and every
# past crash, then fuzzes each for PG_FUZZ_SECONDS (default 60) from a scratch corpus seeded by
# the committed one. A crash, a timeout or an out-of-memory input fails the script and is kept
# in PG_FUZZ_ARTIFACTS (default /tmp/fuzz) with the input that caused it.
#
# Environment: PG_FUZZ_BUILD (build folder, default build-fuzz), PG_FUZZ_SECONDS,
# PG_FUZZ_ARTIFACTS.
set -euo pipefail
cd "$(dirname "$0")/.."

build=${PG_FUZZ_BUILD:-build-fuzz}
seconds=${PG_FUZZ_SECONDS:-60}
artifacts=${PG_FUZZ_ARTIFACTS:-/tmp/fuzz}

scripts/install-deps.sh clang libclang-rt-14-dev
cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DPG_FUZZ=ON -DPG_TESTS=ON \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C "$build" fuzz_loader fuzz_analysis fuzz_cel
ctest --test-dir "$build" -R _seeds --output-on-failure

mkdir -p "$artifacts"
fuzz() {  # target seeds dictionary max_len
  local target=$1 seeds=$2 dict=$3 max_len=$4
  local scratch="$artifacts/corpus-$target"
  mkdir -p "$scratch"
  echo "fuzzing $target for ${seconds}s"
  "$build/tests/fuzz/$target" "$scratch" "$seeds" -dict="$dict" -max_len="$max_len" \
    -timeout=10 -rss_limit_mb=2048 -max_total_time="$seconds" \
    -artifact_prefix="$artifacts/" -print_final_stats=1 2>"$artifacts/$target.log" || {
    tail -n 60 "$artifacts/$target.log" >&2
    echo "fuzz.sh: $target failed; the input is in $artifacts/" >&2
    return 1
  }
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb" "$artifacts/$target.log" || true
}
fuzz fuzz_loader tests/fuzz/corpus tests/fuzz/yaml.dict 16384
fuzz fuzz_analysis tests/fuzz/corpus tests/fuzz/yaml.dict 16384
fuzz fuzz_cel tests/fuzz/corpus_cel tests/fuzz/cel.dict 4096
