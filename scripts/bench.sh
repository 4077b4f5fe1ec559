#!/usr/bin/env bash
# scripts/bench.sh: the README's main job. Builds stealpool's benchmarks
# (installing what they need on a fresh Debian 12 machine, as root) and runs the
# external-producer throughput comparison: stealpool against a mutex+condvar pool
# and oneTBB, in one run, on this machine.
#
# Usage: ./scripts/bench.sh [--micro] [-- ARGS...]
#   --micro      also run the Google Benchmark micro-benchmarks (queues, spawn cost)
#   ARGS         passed to stealpool_throughput (--tasks N --workers W --reps R
#                --batch B --only NAME)
# Environment: STEALPOOL_SKIP_DEPS=1 skips the package check; JOBS sets build
# parallelism.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=lib/deps.sh
source "$ROOT/scripts/lib/deps.sh"

micro=0
args=()
while (($#)); do
  case "$1" in
    --micro) micro=1 ;;
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

echo
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
"$BUILD/bench/throughput/stealpool_throughput" "${args[@]}"
if ((micro)); then
  for b in "$BUILD"/bench/bench_*; do
    echo
    "$b" --benchmark_min_time=0.2
  done
fi
