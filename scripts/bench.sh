#!/usr/bin/env bash
# scripts/bench.sh: the README's main job. Builds stealpool's benchmarks
# (installing what they need on a fresh Debian 12 machine, as root) and runs the
# comparisons, each in one run on this machine:
#   - fork-join (fib, nqueens, UTS T3): stealpool against oneTBB task_group,
#     OpenMP tasks and the serial code, 1 and 2 workers (stealpool_forkjoin);
#   - parallel loops (uniform, triangle, heavy-tailed, tiny): stealpool's three
#     partitioners against oneTBB parallel_for and OpenMP schedules (stealpool_loops);
#   - external-producer throughput: stealpool against a mutex+condvar pool and
#     oneTBB (stealpool_throughput);
#   - the CPU an idle pool burns (stealpool_idle_cpu).
#
# Usage: ./scripts/bench.sh [--micro] [--only forkjoin|loops|throughput|idle] [-- ARGS...]
#   --micro      also run the Google Benchmark micro-benchmarks (queues, spawn cost)
#   --only X     run one of the three comparisons
#   ARGS         passed to that one (see each tool's --help)
# Environment: STEALPOOL_SKIP_DEPS=1 skips the package check; JOBS sets build
# parallelism.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=lib/deps.sh
source "$ROOT/scripts/lib/deps.sh"

micro=0
only=""
args=()
while (($#)); do
  case "$1" in
    --micro) micro=1 ;;
    --only) shift; only="${1:-}" ;;
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
run() {  # run NAME TOOL: runs TOOL if no --only was given or it names NAME
  local name=$1; shift
  if [[ -z "$only" || "$only" == "$name" ]]; then
    echo
    if [[ -n "$only" ]]; then "$@" "${args[@]}"; else "$@"; fi
  fi
}
run forkjoin "$BUILD/bench/forkjoin/stealpool_forkjoin"
run loops "$BUILD/bench/loops/stealpool_loops"
run throughput "$BUILD/bench/throughput/stealpool_throughput"
run idle "$BUILD/bench/idle/stealpool_idle_cpu"
if ((micro)); then
  for b in "$BUILD"/bench/bench_*; do
    echo
    "$b" --benchmark_min_time=0.2
  done
fi
