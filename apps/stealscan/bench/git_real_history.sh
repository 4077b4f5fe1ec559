#!/usr/bin/env bash
# apps/stealscan/bench/git_real_history.sh: `stealscan secrets --git` on a real
# repository's whole history (issue 37's yardstick: git.git, 8 GB of blob
# content; Nosey Parker's published rate is about 270 MB/s a core), at each
# thread count asked for: the median wall and CPU time of --reps runs (after
# one untimed run that warms the page cache), the blob bytes read (from the
# summary line), MB/s, MB/s a core (over wall time and the threads), and the
# peak RSS. Prints a Markdown table.
#
# Usage: apps/stealscan/bench/git_real_history.sh [--reps N] [--threads "1 2"]
#                                                 [--build DIR] [--config FILE] REPO
#   REPO: a work tree or a bare repository, e.g. `git clone --bare
#   https://github.com/git/git`; --config: a rule file (default: the built-in rules).
set -euo pipefail

reps=3 threads="1 2" build=build/release config=()
repo=""
while (($#)); do
  case "$1" in
    --reps) reps="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --config) config=(--config "$2"); shift 2 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "git_real_history.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
    *) repo="$1"; shift ;;
  esac
done
[[ -n "$repo" ]] || { echo "git_real_history.sh: give a repository (try --help)" >&2; exit 2; }
bin="$build/apps/stealscan/stealscan"
[[ -x "$bin" ]] || { echo "git_real_history.sh: no $bin: build stealscan first (ninja -C $build stealscan)" >&2; exit 2; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

"$bin" secrets --git --no-progress -j 2 "${config[@]}" -f json -o /dev/null "$repo" 2>/dev/null || true  # warm
echo "| threads | wall s | CPU s | MB read | MB/s | MB/s a core | peak RSS MB | exit |"
echo "|---|---|---|---|---|---|---|---|"
for j in $threads; do
  walls="" cpus="" rss="" bytes=0 rc=0
  for ((r = 0; r < reps; r++)); do
    start=$EPOCHREALTIME
    set +e
    /usr/bin/time -o "$tmp/time" -f '%U %S %M' "$bin" secrets --git --no-progress -j "$j" "${config[@]}" \
      -f json -o /dev/null "$repo" 2>"$tmp/err"
    rc=$?
    set -e
    end=$EPOCHREALTIME
    walls+="$(awk -v s="$start" -v e="$end" 'BEGIN {print e - s}') "
    read -r u sy m < <(tail -1 "$tmp/time")
    cpus+="$(awk -v u="$u" -v s="$sy" 'BEGIN {print u + s}') "
    rss+="$m "
    bytes=$(sed -n 's/.* scanned (\([0-9]*\) bytes read).*/\1/p' "$tmp/err" | tail -1)
  done
  w=$(tr ' ' '\n' <<<"$walls" | grep . | median)
  c=$(tr ' ' '\n' <<<"$cpus" | grep . | median)
  m=$(tr ' ' '\n' <<<"$rss" | grep . | median)
  awk -v j="$j" -v w="$w" -v c="$c" -v b="${bytes:-0}" -v m="$m" -v rc="$rc" 'BEGIN {
    mb = b / 1e6
    printf "| %d | %.1f | %.1f | %.0f | %.0f | %.0f | %.0f | %d |\n", j, w, c, mb, mb / w, mb / w / j, m / 1024, rc
  }'
done
echo
echo "The summary line of the last run: $(tail -1 "$tmp/err")"
