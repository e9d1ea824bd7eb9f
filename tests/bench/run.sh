#!/usr/bin/env bash
# Builds Release, generates the benchmark repository (20,000 routes, about 15 MB; or one mesh
# family) in a temporary folder, and prints: the bare libyaml parse time, `policygraph lint`
# whole-process times with one and two jobs, their ratios against the budget, and the per-stage
# table.
#
# Environment: PG_BENCH_BUILD (build folder, default build-bench at the repository root),
# PG_BENCH_FAMILY (gateway, kuma or linkerd; default gateway), PG_BENCH_ROUTES (gateway family,
# default 20000), PG_BENCH_WORKLOADS (mesh families, default 5000), PG_BENCH_RUNS (runs per
# timing, default 5), PG_BENCH_ROUNDS (rounds of the interleaved measure, default 10; 0 skips
# it), PG_BENCH_INSTRUCTIONS (1: also count instructions under callgrind, about a minute more).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
build=${PG_BENCH_BUILD:-$source_dir/build-bench}
family=${PG_BENCH_FAMILY:-gateway}
routes=${PG_BENCH_ROUTES:-20000}
workloads=${PG_BENCH_WORKLOADS:-5000}
runs=${PG_BENCH_RUNS:-5}
rounds=${PG_BENCH_ROUNDS:-10}

cmake -S "$source_dir" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C "$build" policygraph pg_bench pg_bench_gen >/dev/null

lint=$build/policygraph
bench=$build/tests/bench/pg_bench
work=$(mktemp -d "${TMPDIR:-/tmp}/pg-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
repo=$work/repo

if [[ $family == gateway ]]; then
  "$build/tests/bench/pg_bench_gen" "$repo" --routes "$routes"
else
  "$build/tests/bench/pg_bench_gen" "$repo" --family "$family" --workloads "$workloads"
fi
if ! "$lint" lint "$repo" --jobs 2 >"$work/lint.txt"; then
  echo "run.sh: the generated repository has findings; the figures would time reporting them:" >&2
  head -20 "$work/lint.txt" >&2
  exit 1
fi
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

# Best wall time in seconds of `runs` runs of a command (after one warm-up run).
best_of() {
  if command -v hyperfine >/dev/null 2>&1; then
    hyperfine --shell=none --style none --warmup 1 --runs "$runs" --export-csv "$work/t.csv" "$*" >/dev/null
    # Columns: command,mean,stddev,median,user,system,min,max
    tail -n 1 "$work/t.csv" | awk -F, '{print $(NF-1)}'
  else
    local best="" t
    "$@" >/dev/null
    for _ in $(seq "$runs"); do
      t=$({ TIMEFORMAT=%R; time "$@" >/dev/null 2>&1; } 2>&1)
      if [[ -z $best ]] || awk -v a="$t" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$t; fi
    done
    echo "$best"
  fi
}

tool=$(command -v hyperfine >/dev/null 2>&1 && echo hyperfine || echo "bash time")
echo "whole-process wall times, best of $runs ($tool):"
bare=$(best_of "$bench" "$repo" --bare-only --repeat 1)
j1=$(best_of "$lint" lint "$repo" --jobs 1)
j2=$(best_of "$lint" lint "$repo" --jobs 2)
awk -v bare="$bare" -v j1="$j1" -v j2="$j2" 'BEGIN {
  printf "  bare libyaml parse (pg_bench --bare-only)  %8.1f ms\n", bare * 1000
  printf "  policygraph lint --jobs 1                  %8.1f ms\n", j1 * 1000
  printf "  policygraph lint --jobs 2                  %8.1f ms\n", j2 * 1000
  printf "  lint --jobs 1 / bare libyaml               %8.2f   (budget: at most 2.5)\n", j1 / bare
  printf "  speed-up --jobs 2 over --jobs 1            %8.2fx\n", j1 / j2
}'

# Interleaved rounds: the bare parse and `lint --jobs 1` one after the other, so that both see
# the same machine; the ratio of each round, then their median and range.
if [[ $rounds -gt 0 ]]; then
  python3 - "$rounds" "$bench" "$lint" "$repo" <<'PY'
import statistics, subprocess, sys, time
rounds, bench, lint, repo = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
def wall(cmd):
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start
bare_cmd = [bench, repo, "--bare-only", "--repeat", "1"]
lint_cmd = [lint, "lint", repo, "--jobs", "1", "--quiet"]
wall(bare_cmd), wall(lint_cmd)  # warm the page cache
ratios = [wall(lint_cmd) / wall(bare_cmd) for _ in range(rounds)]
print(f"interleaved, {rounds} rounds: lint --jobs 1 / bare libyaml median {statistics.median(ratios):.2f}"
      f" [{min(ratios):.2f}-{max(ratios):.2f}]   (budget: at most 2.5)")
PY
fi

# Instructions: repeatable whatever else the machine is doing.
if [[ ${PG_BENCH_INSTRUCTIONS:-0} == 1 ]] && command -v valgrind >/dev/null 2>&1; then
  instructions() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
      sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
  }
  bare_i=$(instructions "$bench" "$repo" --bare-only --repeat 1)
  lint_i=$(instructions "$lint" lint "$repo" --jobs 1 --quiet)
  awk -v b="$bare_i" -v l="$lint_i" 'BEGIN {
    printf "instructions: lint --jobs 1 %.3fG / bare libyaml %.3fG = %.2f   (budget: at most 1.8)\n",
           l / 1e9, b / 1e9, l / b }'
fi

echo
echo "stages (pg_bench, in-process):"
"$bench" "$repo" --jobs 2 --repeat "$runs"
