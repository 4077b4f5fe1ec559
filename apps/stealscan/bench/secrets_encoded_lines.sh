#!/usr/bin/env bash
# apps/stealscan/bench/secrets_encoded_lines.sh: `stealscan secrets` on files of
# many encoded lines (each a value percent-encoded inside base64, so that every
# decoding pass has as many pieces as the file has lines): the median time of
# --reps runs per size and the time per 1,000 lines, which must stay flat as
# the file grows (a pass once looked through all the pieces for each segment
# it decoded: 20,000 lines took 0.89 s, 80,000 would take about 15 s).
#
# Usage: apps/stealscan/bench/secrets_encoded_lines.sh [--reps N] [--build DIR] [--lines "20000 80000 320000"]
set -euo pipefail

reps=3 build=build/release lines="20000 80000 320000"
while (($#)); do
  case "$1" in
    --reps) reps="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --lines) lines="$2"; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "secrets_encoded_lines.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
  esac
done
ss="$build/apps/stealscan/stealscan"
[[ -x "$ss" ]] || { echo "secrets_encoded_lines.sh: no $ss: build stealscan first" >&2; exit 2; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "| lines | median s | ms per 1,000 lines | findings |"
echo "|---|---|---|---|"
for n in $lines; do
  python3 - "$tmp/in.txt" "$n" <<'PY'
import base64, sys
with open(sys.argv[1], "w") as f:
    for i in range(int(sys.argv[2])):
        f.write("v%d = %s\n" % (i, base64.b64encode(("api_key%%3D%s%07d" % ("Zq8x", i)).encode()).decode()))
PY
  times=()
  for ((r = 0; r < reps; r++)); do
    start=$EPOCHREALTIME
    "$ss" secrets --no-progress --no-cache -j 1 -f json -o "$tmp/out.json" "$tmp/in.txt" 2>"$tmp/err" || true
    end=$EPOCHREALTIME
    times+=("$(awk -v s="$start" -v e="$end" 'BEGIN {print e - s}')")
  done
  med=$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
  found=$(sed -n 's/^stealscan: \([0-9]*\) finding.*/\1/p' "$tmp/err" | tail -1)
  awk -v n="$n" -v m="$med" -v f="${found:-0}" 'BEGIN {printf "| %d | %.2f | %.2f | %s |\n", n, m, m * 1e6 / n, f}'
done
