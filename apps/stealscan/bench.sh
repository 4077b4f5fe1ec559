#!/usr/bin/env bash
# apps/stealscan/bench.sh: stealscan -c against ripgrep (rg -c -F) and GNU grep
# (grep -rcF) on real trees, warm cache, the same patterns, 1 and 2 threads.
#
# Every tool scans the same set of files: all regular files, hidden ones and
# .gitignore'd ones included, binary files read as text, symbolic links not
# followed:
#   stealscan -c -F --no-ignore --hidden -a -j N
#   rg        -c -F --no-ignore --hidden -a -j N
#   grep      -rcF -a            (single-threaded; LC_ALL=C; files with 0 dropped)
# The script checks that the three outputs agree (sorted) before timing, then
# runs each tool --reps times, interleaved (stealscan, rg, grep, stealscan, ...),
# after one untimed warm-up run each, and prints the median wall time of each and
# stealscan's ratio to rg (< 1: stealscan is faster).
#
# Usage: apps/stealscan/bench.sh [--reps N] [--threads "1 2"] [--build DIR]
#                                [-e PATTERN]... [PATH...]
#   defaults: 7 reps; threads 1 and 2; build dir build/scan-bench (configured
#   and built here, Release); patterns AKIA ghp_ -----BEGIN return; paths
#   /usr/include /usr/share
# Installs ripgrep with apt-get when it is missing and we are root (as
# scripts/lib/deps.sh does for the project's packages).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
reps=7
threads="1 2"
build="$ROOT/build/scan-bench"
patterns=()
paths=()
while (($#)); do
  case "$1" in
    --reps) reps="$2"; shift ;;
    --threads) threads="$2"; shift ;;
    --build) build="$2"; shift ;;
    -e) patterns+=("$2"); shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "bench.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
    *) paths+=("$1") ;;
  esac
  shift
done
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || { echo "bench.sh: --reps must be a positive number (got '$reps')" >&2; exit 2; }
((${#patterns[@]})) || patterns=(AKIA ghp_ -----BEGIN return)
((${#paths[@]})) || paths=(/usr/include /usr/share)
for p in "${paths[@]}"; do [[ -e "$p" ]] || { echo "bench.sh: no such path '$p'" >&2; exit 2; }; done

if ! command -v rg >/dev/null; then
  if [[ $(id -u) -eq 0 ]]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends ripgrep ||
      { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends ripgrep; }
  else
    echo "bench.sh: ripgrep is missing: sudo apt-get install ripgrep" >&2; exit 1
  fi
fi

cmake -S "$ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target stealscan >/dev/null
ss="$build/apps/stealscan/stealscan"

pat_args=()
for p in "${patterns[@]}"; do pat_args+=(-e "$p"); done
ss_cmd() { "$ss" -c -F --no-ignore --hidden -a --no-progress -j "$1" "${pat_args[@]}" "${paths[@]}"; }
rg_cmd() { rg -c -F --no-ignore --hidden -a --no-messages -j "$1" "${pat_args[@]}" "${paths[@]}"; }
grep_cmd() { LC_ALL=C grep -rcF -a "${pat_args[@]}" "${paths[@]}"; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "stealscan bench: patterns ${patterns[*]}; paths ${paths[*]}; $reps reps; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  $("$ss" --version) | $(rg --version | head -1) | $(grep --version | head -1)"

# Same counts (this run also warms the page cache).
ss_cmd 2 | sort >"$tmp/ss" || true
rg_cmd 2 | sort >"$tmp/rg" || true
grep_cmd | grep -v ':0$' | sort >"$tmp/grep" || true
files=$(wc -l <"$tmp/ss")
lines=$(awk -F: '{ s += $NF } END { print s + 0 }' "$tmp/ss")
if cmp -s "$tmp/ss" "$tmp/rg" && cmp -s "$tmp/ss" "$tmp/grep"; then
  echo "  counts equal: $files files with a match, $lines matching lines (stealscan = rg = grep)"
else
  echo "bench.sh: the counts differ:" >&2
  diff "$tmp/ss" "$tmp/rg" | head -5 >&2 || true
  diff "$tmp/ss" "$tmp/grep" | head -5 >&2 || true
  exit 1
fi

now_us() { local t=${EPOCHREALTIME/./}; echo "$t"; }
time_ms() {  # prints the wall time of "$@" in ms
  local a b
  a=$(now_us); "$@" >/dev/null 2>&1 || true; b=$(now_us)
  echo $(((b - a) / 1000))
}
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

printf '\n  %-8s %14s %14s %14s %12s\n' threads "stealscan ms" "rg ms" "grep ms" "ss / rg"
for t in $threads; do
  : >"$tmp/t_ss"; : >"$tmp/t_rg"; : >"$tmp/t_grep"
  time_ms ss_cmd "$t" >/dev/null; time_ms rg_cmd "$t" >/dev/null  # warm-up
  for ((r = 0; r < reps; r++)); do
    time_ms ss_cmd "$t" >>"$tmp/t_ss"
    time_ms rg_cmd "$t" >>"$tmp/t_rg"
    if [[ "$t" == "${threads%% *}" ]]; then time_ms grep_cmd >>"$tmp/t_grep"; fi
  done
  m_ss=$(median <"$tmp/t_ss"); m_rg=$(median <"$tmp/t_rg")
  m_grep=$( [[ -s "$tmp/t_grep" ]] && median <"$tmp/t_grep" || echo "-")
  printf '  %-8s %14s %14s %14s %12s\n' "$t" "$m_ss" "$m_rg" "$m_grep" "$(awk -v a="$m_ss" -v b="$m_rg" 'BEGIN { printf "%.2f", a / b }')"
done
echo "  (grep is single-threaded: timed in the first row only)"
