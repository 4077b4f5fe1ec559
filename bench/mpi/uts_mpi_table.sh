#!/usr/bin/env bash
# bench/mpi/uts_mpi_table.sh <build dir> [reps] [configs] [args...]: the table of
# docs/distributed.md. Runs stealpool-uts-mpi on UTS T1 and T3 at each
# configuration RANKSxWORKERS of configs (default "1x1 1x2 2x1 2x2 4x1 4x2";
# "1x1 2x1 4x1 8x1 16x1 4x4 1x16" on 16 cores; args go to every executor run)
# and the serial walk (reps runs each, default 3, every run under `flock
# /tmp/stealpool-bench.lock` so it never overlaps another benchmark on the
# machine) and prints the median
# time with the per-rank messages and stolen batches of the median run.
# Ranks are not pinned (--bind-to none): Open MPI would otherwise bind each rank
# to one core, and a rank's workers and progress thread would share it.
set -euo pipefail
build=${1:?usage: uts_mpi_table.sh <build dir> [reps] [configs]}
reps=${2:-3}
configs=${3:-1x1 1x2 2x1 2x2 4x1 4x2}
shift $(($# < 3 ? $# : 3))
extra=("$@")
for c in $configs; do
  [[ "$c" =~ ^[1-9][0-9]*x[1-9][0-9]*$ ]] || { echo "uts_mpi_table.sh: a configuration is RANKSxWORKERS, like 4x2 (got '$c')" >&2; exit 2; }
done
exe="$build/apps/uts-mpi/stealpool-uts-mpi"
flags=(--bind-to none --oversubscribe)
[[ $(id -u) -eq 0 ]] && flags+=(--allow-run-as-root)
echo "| tree | ranks x workers | median time_s (runs) | messages sent per rank | batches stolen per rank |"
echo "|---|---|---|---|---|"
median_of() { sort -n | sed -n "$(((reps + 1) / 2))p"; }
for tree in T1 T3; do
  serial=()
  for ((i = 0; i < reps; i++)); do
    serial+=("$(flock /tmp/stealpool-bench.lock "$exe" --tree "$tree" --serial | sed -n 's/.*time_s=\([0-9.]*\).*/\1/p')")
  done
  echo "| $tree | serial walk | $(printf '%s\n' "${serial[@]}" | median_of) ($(printf '%s ' "${serial[@]}" | sed 's/ $//')) | - | - |"
  for c in $configs; do
    ranks=${c%x*} workers=${c#*x}
    runs=()
    for ((i = 0; i < reps; i++)); do
      out=$(flock /tmp/stealpool-bench.lock mpiexec "${flags[@]}" -np "$ranks" "$exe" --tree "$tree" --workers "$workers" --metrics "${extra[@]}")
      t=$(sed -n 's/.*time_s=\([0-9.]*\).*/\1/p' <<<"$out")
      msgs=$(grep -o 'messages_sent=[0-9]*' <<<"$out" | cut -d= -f2 | paste -sd/)
      stolen=$(grep -o 'batches_stolen=[0-9]*' <<<"$out" | cut -d= -f2 | paste -sd/)
      runs+=("$t $msgs $stolen")
    done
    median=$(printf '%s\n' "${runs[@]}" | median_of)
    all=$(printf '%s\n' "${runs[@]}" | cut -d' ' -f1 | paste -sd' ')
    read -r t msgs stolen <<<"$median"
    echo "| $tree | $ranks x $workers | $t ($all) | $msgs | $stolen |"
  done
done
