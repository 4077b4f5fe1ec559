#!/usr/bin/env bash
# apps/stealscan/bench.sh: stealscan -c against ripgrep (rg -c) and GNU grep
# (grep -rc) on real trees, warm cache, a table of pattern sets, 1 and 2 threads.
#
# Every tool scans the same files: all regular files, hidden ones and .gitignore'd
# ones included, binary files read as text, symbolic links not followed:
#   stealscan -c --no-ignore --hidden -a -j N   (Unicode semantics, its default)
#   rg        -c --no-ignore --hidden -a -j N   (Unicode semantics, its default)
#   grep      -rc -a, LC_ALL=C, single-threaded, files with 0 dropped; only in the
#             rows whose meaning is the same on bytes (no \w, no (?i), no lazy
#             repeats) and in the first thread count
# Rows: 1, 10, 200 and 5,000 literals; -i and -w literals; regexes of several
# shapes (class + literal, alternation, \w+_t\b, anchored); a file of 20
# secret-token regexes (bench/secret_rules.txt). The literal sets of 200 and 5,000
# are identifiers taken from the first tree, every k-th of the sorted distinct ones
# (deterministic for a given tree).
#
# For each row the script first checks that the per-file counts agree (sorted
# outputs equal: stealscan = rg, and = grep where grep runs), then times each tool
# --reps times, interleaved, after one untimed run, and prints the medians (ms) and
# stealscan / rg (< 1: stealscan is faster), as a Markdown table. It also prints
# stealscan's max RSS over the whole table.
#
# Usage: apps/stealscan/bench.sh [--reps N] [--threads "1 2"] [--build DIR]
#                                [--stealscan EXE] [--rows SUBSTRING] [PATH...]
#   defaults: 5 reps; threads 1 and 2; build dir build/scan-bench (configured and
#   built here, Release); all rows; paths /usr/include /usr/share. --stealscan
#   runs a stealscan built elsewhere and builds nothing (a machine without the
#   build's packages).
# Installs ripgrep with apt-get when it is missing and we are root.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/apps/stealscan"
reps=5
threads="1 2"
build="$ROOT/build/scan-bench"
only=""
ss=""
paths=()
while (($#)); do
  case "$1" in
    --reps) reps="$2"; shift ;;
    --threads) threads="$2"; shift ;;
    --build) build="$2"; shift ;;
    --rows) only="$2"; shift ;;
    --stealscan) ss="$2"; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "bench.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
    *) paths+=("$1") ;;
  esac
  shift
done
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || { echo "bench.sh: --reps must be a positive number (got '$reps')" >&2; exit 2; }
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

if [[ -z "$ss" ]]; then
  cmake -S "$ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" --target stealscan >/dev/null
  ss="$build/apps/stealscan/stealscan"
fi
[[ -x "$ss" ]] || { echo "bench.sh: no stealscan at '$ss'" >&2; exit 2; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Literal sets: distinct identifiers of the first tree, every k-th.
LC_ALL=C grep -rhoaE '\b[A-Za-z_][A-Za-z0-9_]{5,30}\b' "${paths[0]}" 2>/dev/null | LC_ALL=C sort -u >"$tmp/idents" || true
pick() {  # pick N FILE: N lines spread over the sorted identifiers
  awk -v n="$1" -v total="$(wc -l <"$tmp/idents")" 'BEGIN { step = total / n } NR >= next_at && taken < n { print; taken++; next_at += step }' "$tmp/idents" >"$2"
}
pick 200 "$tmp/lit200"
pick 5000 "$tmp/lit5000"
printf '%s\n' AKIA ghp_ -----BEGIN password= secret_key xoxb- sk_live_ api_key BEGIN_RSA token= >"$tmp/lit10"
# Each rule in its own group: rg joins -f patterns into one alternation, where a
# leading (?i) would reach the rules after it.
sed 's/^\(.*\)$/(?:\1)/' "$HERE/bench/secret_rules.txt" >"$tmp/secret_rules_rg"

# Rows: name ; stealscan args ; rg args ; grep args ("-" = grep does not run it).
# Arguments are split at spaces.
rows=(
  "1 literal \`include\`;-F -e include;-F -e include;-F -e include"
  "10 literals (secret-like);-F -f $tmp/lit10;-F -f $tmp/lit10;-F -f $tmp/lit10"
  "200 literals;-F -f $tmp/lit200;-F -f $tmp/lit200;-F -f $tmp/lit200"
  "5,000 literals;-F -f $tmp/lit5000;-F -f $tmp/lit5000;-F -f $tmp/lit5000"
  "-i \`error\`;-i -F -e error;-i -F -e error;-i -F -e error"
  "-w \`int\`;-w -F -e int;-w -F -e int;-"
  "regex \`[A-Z][a-z]+Exception\`;-E -e [A-Z][a-z]+Exception;-e [A-Z][a-z]+Exception;-E -e [A-Z][a-z]+Exception"
  "regex \`foo\|bar\|baz\|quux\`;-E -e foo|bar|baz|quux;-e foo|bar|baz|quux;-E -e foo|bar|baz|quux"
  "regex \`\w+_t\b\`;-E -e \w+_t\b;-e \w+_t\b;-"
  "regex \`^\s*#\s*include\`;-E -e ^\s*#\s*include;-e ^\s*#\s*include;-"
  "20 secret-token regexes (-f);-E -f $HERE/bench/secret_rules.txt;-f $tmp/secret_rules_rg;-"
)

now_us() { local t=${EPOCHREALTIME/./}; echo "$t"; }
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
max_rss_kb=0

# run_tool TOOL THREADS ARGS: the tool's -c output on stdout
run_tool() {
  local tool="$1" t="$2" args="$3"
  local -a a
  read -r -a a <<<"$args"
  case "$tool" in
    ss) "$ss" -c --no-ignore --hidden -a --no-progress -j "$t" "${a[@]}" "${paths[@]}" ;;
    rg) rg -c --no-ignore --hidden -a --no-messages -j "$t" "${a[@]}" "${paths[@]}" ;;
    grep) LC_ALL=C grep -rc -a "${a[@]}" "${paths[@]}" | grep -v ':0$' ;;
  esac
}
time_ms() {  # time_ms TOOL THREADS ARGS: wall ms
  local a b
  a=$(now_us); run_tool "$@" >/dev/null 2>&1 || true; b=$(now_us)
  echo $(((b - a) / 1000))
}

echo "stealscan bench: paths ${paths[*]}; $reps reps; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$("$ss" --version) | $(rg --version 2>/dev/null | head -1) | $(grep --version | head -1)"
echo
header="| patterns |"; sep="|---|"
for t in $threads; do header+=" stealscan ${t}T ms | rg ${t}T ms | ratio ${t}T |"; sep+="---|---|---|"; done
header+=" grep ms | files, lines |"; sep+="---|---|"
echo "$header"; echo "$sep"
first_t="${threads%% *}"
for row in "${rows[@]}"; do
  IFS=';' read -r name ss_args rg_args grep_args <<<"$row"
  [[ -z "$only" || "$name" == *"$only"* ]] || continue
  run_tool ss 2 "$ss_args" | LC_ALL=C sort >"$tmp/ss" || true
  run_tool rg 2 "$rg_args" | LC_ALL=C sort >"$tmp/rg" || true
  if ! cmp -s "$tmp/ss" "$tmp/rg"; then
    echo "bench.sh: row '$name': stealscan and rg counts differ:" >&2
    diff "$tmp/ss" "$tmp/rg" | head -5 >&2 || true
    exit 1
  fi
  if [[ "$grep_args" != "-" ]]; then
    run_tool grep 1 "$grep_args" | LC_ALL=C sort >"$tmp/grep" || true
    if ! cmp -s "$tmp/ss" "$tmp/grep"; then
      echo "bench.sh: row '$name': stealscan and grep counts differ:" >&2
      diff "$tmp/ss" "$tmp/grep" | head -5 >&2 || true
      exit 1
    fi
  fi
  files=$(wc -l <"$tmp/ss"); lines=$(awk -F: '{ s += $NF } END { print s + 0 }' "$tmp/ss")
  line="| $name |"
  m_grep="-"
  for t in $threads; do
    : >"$tmp/t_ss"; : >"$tmp/t_rg"; : >"$tmp/t_grep"
    for ((r = 0; r < reps; r++)); do
      time_ms ss "$t" "$ss_args" >>"$tmp/t_ss"
      time_ms rg "$t" "$rg_args" >>"$tmp/t_rg"
      if [[ "$t" == "$first_t" && "$grep_args" != "-" ]]; then time_ms grep 1 "$grep_args" >>"$tmp/t_grep"; fi
    done
    m_ss=$(median <"$tmp/t_ss"); m_rg=$(median <"$tmp/t_rg")
    [[ -s "$tmp/t_grep" ]] && m_grep=$(median <"$tmp/t_grep")
    line+=" $m_ss | $m_rg | $(awk -v a="$m_ss" -v b="$m_rg" 'BEGIN { printf "%.2f", a / b }') |"
  done
  # stealscan's peak memory on this row (2 threads)
  read -r -a ssa <<<"$ss_args"
  rss=$( { /usr/bin/time -f '%M' "$ss" -c --no-ignore --hidden -a --no-progress -j 2 "${ssa[@]}" "${paths[@]}" >/dev/null; } 2>&1 | tail -1 )
  [[ "$rss" =~ ^[0-9]+$ ]] && ((rss > max_rss_kb)) && max_rss_kb=$rss
  echo "$line $m_grep | $files, $lines |"
done
echo
echo "stealscan max RSS over the rows (2 threads): $((max_rss_kb / 1024)) MiB. Counts: stealscan = rg in every row, = grep where it ran."
