#!/usr/bin/env bash
# scripts/bench.sh: the README's main job. Builds stealbench (installing what it
# needs on a fresh Debian 12 machine, as root) and runs it: stealpool against
# oneTBB, OpenMP (libgomp), a mutex+condvar pool and the serial code, in one run,
# on fork-join (fib, nqueens, UTS T1/T3), parallel loops (uniform, skewed, tiny,
# reduce), external-producer throughput, wake-up latency and idle CPU. Prints the
# tables and writes the JSON and the chart (3-4 minutes on 2 cores: 215 s on
# 2026-11-27, with 25 ms of quiet before each run).
#
# Usage: ./scripts/bench.sh [--micro] [--out DIR] [-- STEALBENCH_ARGS...]
#   --out DIR    where stealbench.json and stealbench.svg go (default build/bench-results)
#   --micro      also run the Google Benchmark micro-benchmarks (queues, spawn cost)
#   ARGS         passed to stealbench, e.g. -- --only forkjoin --reps 7, or -- --full
#                (stealbench --help lists them)
# Environment: STEALPOOL_SKIP_DEPS=1 skips the package check; JOBS sets build
# parallelism.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=lib/deps.sh
source "$ROOT/scripts/lib/deps.sh"

micro=0
out="$ROOT/build/bench-results"
args=()
while (($#)); do
  case "$1" in
    --micro) micro=1 ;;
    --out) shift; out="${1:?--out needs a directory}" ;;
    --) shift; args+=("$@"); break ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
  shift
done

stealpool_install_deps
BUILD="$ROOT/build/bench-release"
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTEALPOOL_BUILD_TESTS=OFF \
      -DSTEALPOOL_BUILD_EXAMPLES=OFF -DSTEALPOOL_BUILD_BENCH=ON >/dev/null
cmake --build "$BUILD" -j "${JOBS:-$(nproc)}"

mkdir -p "$out"
echo
"$BUILD/bench/stealbench" --json "$out/stealbench.json" --svg "$out/stealbench.svg" "${args[@]}"
if ((micro)); then
  for b in "$BUILD"/bench/bench_*; do
    echo
    "$b" --benchmark_min_time=0.2
  done
fi
