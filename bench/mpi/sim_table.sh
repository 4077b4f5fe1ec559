#!/usr/bin/env bash
# bench/mpi/sim_table.sh <build dir> [trees] [workers] [ranks] [progress]: the predicted efficiency
# table of docs/distributed.md, from the rank simulator (sim/ranks/README.md),
# which runs the MPI executor's own protocol code over a simulated network.
# For each tree (default "T1 T3"), workers per rank (default "1 8") and network
# (InfiniBand-class: 1.5 us, 100 Gbit/s; Ethernet: 50 us, 10 Gbit/s), at 16, 64,
# 256 and 1,024 ranks (default): efficiency = serial time / (ranks x workers x
# simulated time), then the simulated time and, of it, the termination
# detection (from the last node's end to the last rank's exit), in ms, and the
# ideal scheduler's efficiency on the same cell (`stealpool_sim ranks --ideal`:
# every node seen at once, a move costs one latency; sim/ranks/README.md). Steals
# weigh the nodes (--weigh), as stealpool-uts-mpi does. Seed 1
# (a run is deterministic). progress: polling (default: the progress thread
# answers each message when it arrives) or sleeping (it follows the real
# Progress::run() rounds and sleeps; sim/ranks/README.md). The
# simulator checks every run (exact counts, termination) and this script stops
# at the first violation. Times here are simulated, not measured: the machine's
# load does not change them.
set -euo pipefail
build=${1:?usage: sim_table.sh <build dir> [trees] [workers] [ranks] [progress]}
trees=${2:-T1 T3}
workers_list=${3:-1 8}
exe="$build/sim/stealpool_sim"
read -r -a rank_counts <<<"${4:-16 64 256 1024}"
progress=${5:-polling}
networks=("1.5 100 InfiniBand-class (1.5 us, 100 Gbit/s)" "50 10 Ethernet (50 us, 10 Gbit/s)")
printf '| tree | workers/rank | network |'
for r in "${rank_counts[@]}"; do printf ' %s ranks |' "$r"; done
printf '\n|---|---|---|'
for _ in "${rank_counts[@]}"; do printf -- '---|'; done
printf '\n'
for tree in $trees; do
  for workers in $workers_list; do
    for net in "${networks[@]}"; do
      read -r lat bw name <<<"$net"
      printf '| %s | %s | %s |' "$tree" "$workers" "$name"
      for ranks in "${rank_counts[@]}"; do
        out=$(nice -n 19 "$exe" ranks --tree "$tree" --ranks "$ranks" --workers "$workers" \
                --latency-us "$lat" --bandwidth-gbps "$bw" --progress "$progress" --weigh --seed 1) || {
          echo "$out" >&2
          exit 1
        }
        eff=$(sed -n 's/.*efficiency=\([0-9.]*\).*/\1/p' <<<"$out")
        ms=$(sed -n 's/.* time_s=\([0-9.]*\).*/\1/p' <<<"$out" | awk '{printf "%.2f", $1 * 1000}')
        detect=$(sed -n 's/.* detect_s=\([0-9.]*\).*/\1/p' <<<"$out" | awk '{printf "%.2f", $1 * 1000}')
        ideal=$(nice -n 19 "$exe" ranks --ideal --tree "$tree" --ranks "$ranks" --workers "$workers" \
                  --latency-us "$lat" | sed -n 's/.*efficiency=\([0-9.]*\).*/\1/p')
        printf ' %s (%s ms, %s; ideal %s) |' "$eff" "$ms" "$detect" "$ideal"
      done
      printf '\n'
    done
  done
done
