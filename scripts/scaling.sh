#!/usr/bin/env bash
# scripts/scaling.sh: the scaling runs of docs/benchmarks.md ("16
# cores"), for a machine with many cores. Runs an already built stealbench in
# stages, most important first, each under its own time limit, and writes each
# stage's JSON and one log into OUTDIR. A stage that runs out of time loses its
# JSON but not the stages before it.
#
# Usage: scripts/scaling.sh OUTDIR [WORKERS]      (WORKERS default 1,2,4,8,16)
# Environment:
#   STEALBENCH  the command that runs stealbench
#               (default build/bench-release/bench/stealbench, as scripts/bench.sh builds it)
#   UTS_BUSY    the command that runs uts_busy (default beside stealbench); empty skips it
#
# Stages (about 6 minutes on 16 cores, 10 at most):
#   forkjoin    fib(35), nqueens(12), UTS T1 and T3 (join and a TaskGroup per node)
#               against oneTBB; OpenMP tasks on UTS T3 only (libgomp's tasks take
#               seconds a run on the others at many threads); 5 reps
#   taskgroup   UTS T3 with a TaskGroup per node against oneTBB's task_group at 1
#               and 2 workers, 9 reps (issue 14's goals at 1 and 2 workers)
#   wake        submit-to-start latency of a parked pool, p50 and p99, 5 reps
#   loops       uniform, triangle and pareto loops, tiny loops, parallel_reduce, 3 reps
#   throughput  10^6 external spawns, one per call and in batches of 256, 3 reps
#   idle        CPU of an idle pool at 1, 2 and the most workers, 3 reps
#   busy        uts_busy at the most workers: how each worker spent UTS T3
set -u

out=${1:?usage: scripts/scaling.sh OUTDIR [WORKERS]}
workers=${2:-1,2,4,8,16}
sb=${STEALBENCH:-build/bench-release/bench/stealbench}
busy=${UTS_BUSY-${sb%stealbench}uts_busy}
most=${workers##*,}
mkdir -p "$out"
log="$out/scaling.log"

stage() {
  local name=$1 limit=$2
  shift 2
  echo "== $name ($(date -u +%T), limit ${limit}s): stealbench $*" | tee -a "$log"
  # $sb may be a command with arguments (a loader, say): split on purpose.
  # shellcheck disable=SC2086
  timeout "$limit" $sb "$@" --json "$out/$name.json" >>"$log" 2>&1
  echo "== $name: exit $? at $(date -u +%T)" | tee -a "$log"
}

{
  echo "scaling.sh on $(hostname), $(date -u +%FT%TZ)"
  echo "nproc $(nproc); $(grep -m1 'model name' /proc/cpuinfo)"
  echo "load: $(cat /proc/loadavg)"
  [[ -r /sys/fs/cgroup/cpu.max ]] && echo "cgroup cpu.max: $(cat /sys/fs/cgroup/cpu.max)"
} | tee "$log"

stage forkjoin 180 --workers "$workers" --fib 35 --reps 5 \
  --only fib35/stealpool --only fib35/oneTBB --only uts_t3 \
  --only nqueens12/stealpool --only nqueens12/oneTBB --only uts_t1/stealpool --only uts_t1/oneTBB
stage taskgroup 60 --workers 1,2 --reps 9 --only uts_t3/stealpool/TaskGroup --only uts_t3/oneTBB
stage wake 80 --workers "$workers" --reps 5 --only wake
stage loops 120 --workers "$workers" --reps 3 --only loops
stage throughput 90 --workers "$workers" --reps 3 --only throughput
stage idle 40 --workers "1,2,$most" --reps 3 --only idle
if [[ -n "$busy" ]]; then
  echo "== busy: uts_busy --tree T3 --workers $most --runs 3" | tee -a "$log"
  # shellcheck disable=SC2086
  timeout 30 $busy --tree T3 --workers "$most" --runs 3 >>"$log" 2>&1
  echo "== busy: exit $?" | tee -a "$log"
fi
