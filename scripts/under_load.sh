#!/usr/bin/env bash
# scripts/under_load.sh: runs a command while N other processes keep the CPUs
# busy, as on a shared machine or a CI runner: each is a shell loop that never
# sleeps. A pool's figures under load show what it does when its workers do not
# have the cores to themselves (docs/results-log.md, 2026-11-27 (evening), "Under load").
#
# Usage: scripts/under_load.sh N COMMAND [ARGS...]
#   e.g. scripts/under_load.sh 2 build/release/bench/stealbench --workers 1,2 --only throughput
# The busy processes start before the command and are stopped when it ends
# (also on Ctrl-C). Exit status: the command's.
set -u

n=${1:?usage: scripts/under_load.sh N COMMAND [ARGS...]}
shift
[[ "$n" =~ ^[0-9]+$ ]] || { echo "under_load.sh: N must be a count of processes (got '$n')" >&2; exit 2; }
(($# > 0)) || { echo "under_load.sh: no command given" >&2; exit 2; }

pids=()
stop() {
  ((${#pids[@]})) && kill "${pids[@]}" 2>/dev/null
  wait "${pids[@]}" 2>/dev/null
  pids=()
}
trap stop EXIT
trap 'exit 130' INT TERM

for ((i = 0; i < n; ++i)); do
  bash -c 'while :; do :; done' &
  pids+=($!)
done
sleep 0.2  # let the scheduler see them running

"$@"
