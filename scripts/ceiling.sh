#!/usr/bin/env bash
# scripts/ceiling.sh: how much the machine itself slows a program down when every
# core is busy, with no scheduler involved. Runs N independent stealbench
# processes at once, each timing UTS T3 and fib(35) serially and with one
# worker, and the same alone before and after. If one process alone takes t1
# and each of N at once takes tN, no N-worker run can beat N * t1 / tN over a
# 1-worker run timed alone: that is the machine's ceiling for the "16 vs 1"
# ratio (docs/results-log.md, 2026-11-27, "Third lease"; docs/benchmarks.md, "Fourth lease").
#
# Usage: scripts/ceiling.sh OUTDIR [COUNTS]       (COUNTS default 8,16)
# Environment:
#   STEALBENCH  the command that runs stealbench
#               (default build/bench-release/bench/stealbench, as scripts/bench.sh builds it)
# Prints each process's medians (ms) and, per count, the median over processes.
# About 15 s a count on 16 cores.
set -u

out=${1:?usage: scripts/ceiling.sh OUTDIR [COUNTS]}
counts=${2:-8,16}
sb=${STEALBENCH:-build/bench-release/bench/stealbench}
mkdir -p "$out"

one() {  # one process: log file name
  # $sb may be a command with arguments (a loader, say): split on purpose.
  # shellcheck disable=SC2086
  timeout 120 $sb --workers 1 --reps 5 --fib 35 --only uts_t3/stealpool/join --only fib35/stealpool \
    > "$out/$1.log" 2>&1 || echo "ceiling.sh: $1 failed or timed out (exit $?)" >&2
}

# The median over a set of processes' logs of one row's median column.
# Rows look like "uts_t3  -  serial  <median> <min> <max> ms".
median_of() {  # pattern files...
  local pattern=$1
  shift
  awk -v p="$pattern" '$0 ~ p { for (i = 1; i <= NF; ++i) if ($i == "ms") { print $(i - 3); break } }' "$@" |
    sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "none"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

report() {  # label files...
  local label=$1
  shift
  printf '%-10s uts_t3 serial %8s  uts_t3 1 worker %8s  fib35 1 worker %8s  (%d process(es))\n' "$label" \
    "$(median_of '^uts_t3 +- +serial' "$@")" "$(median_of '^uts_t3 +1 +stealpool join' "$@")" \
    "$(median_of '^fib35 +1 +stealpool join' "$@")" "$#"
}

one alone_before
IFS=, read -r -a list <<< "$counts"
for n in "${list[@]}"; do
  for i in $(seq 1 "$n"); do one "at${n}_$i" & done
  wait
done
one alone_after

report alone "$out"/alone_*.log
for n in "${list[@]}"; do report "$n at once" "$out"/at"${n}"_*.log; done
