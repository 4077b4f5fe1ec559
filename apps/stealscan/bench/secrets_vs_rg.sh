#!/usr/bin/env bash
# apps/stealscan/bench/secrets_vs_rg.sh: `stealscan secrets` with the built-in
# rules against ripgrep running the same rules' regexes (`rg -c -f`), issue 15's
# comparison, and the start-up with the built-in rules. Warm cache, medians of
# --reps interleaved runs, wall and CPU (user + sys) time. Prints Markdown tables.
#
# ripgrep is run twice over: as given (its regex engine is Unicode-aware by
# default, and the rules' \w, \s, [a-z] classes then grow into very large
# automata: minutes, so only on the smaller tree, once), and with (?-u) before
# each regex, bytes as our Latin-1 RE2 reads them: the fair comparison.
# stealscan runs with --no-archives (rg does not open archives; with them it
# also scans what the compressed files hold) and as it runs by default, and
# once with --keyword-scope file (gitleaks' semantics: a rule runs over every
# file holding one of its keywords, not only over the keywords' lines), and
# once with the same regexes as rules without keywords (the regex prefilter's
# row: one Vectorscan scan for all of them, RE2 on the lines it names).
#
# Usage: apps/stealscan/bench/secrets_vs_rg.sh [--reps N] [--build DIR] [--threads N] [--unicode] [DIR...]
#   DIR... default /usr/include /usr/share; --threads default 2; --unicode adds
#   the one run of Unicode-aware rg on the first DIR (minutes).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
reps=5
build="$ROOT/build/scan-bench"
threads=2
unicode=0
dirs=()
while (($#)); do
  case "$1" in
    --reps) reps="$2"; shift ;;
    --build) build="$2"; shift ;;
    --threads) threads="$2"; shift ;;
    --unicode) unicode=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "secrets_vs_rg.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
    *) dirs+=("$1") ;;
  esac
  shift
done
((${#dirs[@]})) || dirs=(/usr/include /usr/share)
command -v rg >/dev/null || { echo "secrets_vs_rg.sh: needs ripgrep (apt-get install ripgrep)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "secrets_vs_rg.sh: needs python3 (to read the rules' TOML)" >&2; exit 1; }
cmake -S "$ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target stealscan >/dev/null
ss="$build/apps/stealscan/stealscan"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 - "$ROOT/apps/stealscan/src/secrets/rules/builtin" "$tmp" <<'PY'
import glob, sys, tomllib
rules = [r for f in sorted(glob.glob(sys.argv[1] + "/*.toml")) for r in tomllib.load(open(f, "rb")).get("rules", [])]
regexes = [r["regex"] for r in rules if "regex" in r]
with open(sys.argv[2] + "/rules.txt", "w") as f:
    f.write("\n".join(regexes) + "\n")
with open(sys.argv[2] + "/rules-bytes.txt", "w") as f:
    f.write("\n".join("(?-u)" + r for r in regexes) + "\n")
# The same regexes as a rule file without keywords (as Nosey Parker's and
# Kingfisher's rules come): every rule then goes through the regex prefilter.
with open(sys.argv[2] + "/no-keywords.toml", "w") as f:
    for i, r in enumerate(regexes):
        f.write(f"[[rules]]\nid = \"r{i}\"\nregex = '''{r}'''\n\n")
print(f"{len(regexes)} rule regexes", file=sys.stderr)
PY
mkdir -p "$tmp/empty" "$tmp/cache"
export STEALSCAN_CACHE_DIR="$tmp/cache"
# ripgrep must take every regex (status 2: one it refuses), or its row would
# time an error message.
rg_status=0
rg -q -f "$tmp/rules-bytes.txt" "$tmp/empty" 2>"$tmp/rg-err" || rg_status=$?
if ((rg_status == 2)); then
  echo "secrets_vs_rg.sh: ripgrep refuses a rule's regex: $(tail -1 "$tmp/rg-err")" >&2
  exit 2
fi

# time_ms <cmd...>: "wall_ms cpu_ms" of one run (output discarded); wall from
# bash's microsecond clock, CPU from GNU time (10 ms steps).
time_ms() {
  local start end
  start=$EPOCHREALTIME
  /usr/bin/time -o "$tmp/time" -f '%U %S' "$@" >/dev/null 2>&1 || true
  end=$EPOCHREALTIME
  tail -1 "$tmp/time" | awk -v s="$start" -v e="$end" '{printf "%.1f %d\n", (e - s) * 1000, ($1 + $2) * 1000}' 
}
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

declare -A wall cpu
run_row() {  # run_row <name> <cmd...>
  local name="$1"; shift
  read -r w c < <(time_ms "$@")
  wall[$name]+="$w "; cpu[$name]+="$c "
}

echo "warming the page cache..." >&2
rg -c -j "$threads" --no-ignore --hidden -a zzzzqqqq "${dirs[@]}" >/dev/null 2>&1 || true
"$ss" secrets --no-progress -j "$threads" --no-ignore --hidden "${dirs[@]}" >/dev/null 2>&1 || true

for ((r = 1; r <= reps; r++)); do
  echo "rep $r/$reps" >&2
  run_row "rg -c -f (bytes)" rg -c -j "$threads" --no-ignore --hidden -f "$tmp/rules-bytes.txt" "${dirs[@]}"
  run_row "stealscan secrets --no-archives" "$ss" secrets --no-progress -j "$threads" --no-ignore --hidden --no-archives "${dirs[@]}"
  run_row "stealscan secrets" "$ss" secrets --no-progress -j "$threads" --no-ignore --hidden "${dirs[@]}"
  run_row "stealscan secrets --decode-depth 0 --no-archives" "$ss" secrets --no-progress -j "$threads" --no-ignore --hidden --decode-depth 0 --no-archives "${dirs[@]}"
  run_row "stealscan secrets --keyword-scope file --no-archives" "$ss" secrets --no-progress -j "$threads" --no-ignore --hidden --keyword-scope file --no-archives "${dirs[@]}"
  run_row "stealscan secrets, rules without keywords, --no-archives" "$ss" secrets --no-progress -j "$threads" --no-ignore --hidden --no-archives --config "$tmp/no-keywords.toml" "${dirs[@]}"
done

echo
echo "Scan of ${dirs[*]}, $threads threads, warm, median of $reps (ms):"
echo
echo "| run | wall ms | CPU ms | wall / rg |"
echo "|---|---|---|---|"
rg_wall="$(tr ' ' '\n' <<<"${wall["rg -c -f (bytes)"]}" | grep . | median)"
for name in "rg -c -f (bytes)" "stealscan secrets --no-archives" "stealscan secrets --decode-depth 0 --no-archives" \
            "stealscan secrets --keyword-scope file --no-archives" "stealscan secrets" \
            "stealscan secrets, rules without keywords, --no-archives"; do
  w="$(tr ' ' '\n' <<<"${wall[$name]}" | grep . | median)"
  c="$(tr ' ' '\n' <<<"${cpu[$name]}" | grep . | median)"
  printf '| %s | %.0f | %d | %.2f |\n' "$name" "$w" "$c" "$(awk -v a="$w" -v b="$rg_wall" 'BEGIN {print a / b}')"
done

# ripgrep's default (Unicode) reading of the same regexes, once, on the first directory.
if ((unicode)); then
  read -r uw uc < <(time_ms timeout 900 rg -c -j "$threads" --no-ignore --hidden -f "$tmp/rules.txt" "${dirs[0]}")
  read -r sw sc < <(time_ms "$ss" secrets --no-progress -j "$threads" --no-ignore --hidden --no-archives "${dirs[0]}")
  echo
  echo "Unicode-aware rg (its default) on ${dirs[0]}, one run: rg $uw ms wall ($uc ms CPU)," \
       "stealscan secrets --no-archives $sw ms ($sc ms CPU)"
fi

# Start-up: an empty directory, the built-in rules.
declare -A st
for ((r = 1; r <= 20; r++)); do
  rm -rf "$tmp/cache"
  read -r w _ < <(time_ms "$ss" secrets --no-progress "$tmp/empty"); st[cold]+="$w "
  read -r w _ < <(time_ms "$ss" secrets --no-progress "$tmp/empty"); st[cached]+="$w "
  read -r w _ < <(time_ms "$ss" secrets --no-progress --no-cache "$tmp/empty"); st[nocache]+="$w "
  read -r w _ < <(time_ms "$ss" --version); st[version]+="$w "
  read -r w _ < <(time_ms rg -c zzzz "$tmp/empty"); st[rg]+="$w "
done
echo
echo "Start-up, empty directory, median of 20 (ms): "
echo
echo "| run | wall ms |"
echo "|---|---|"
for k in cold cached nocache version rg; do
  case $k in
    cold) label="stealscan secrets, no cache yet (compiles, writes the cache)" ;;
    cached) label="stealscan secrets, cached keyword database" ;;
    nocache) label="stealscan secrets --no-cache" ;;
    version) label="stealscan --version (process start alone)" ;;
    rg) label="rg on an empty directory" ;;
  esac
  printf '| %s | %s |\n' "$label" "$(tr ' ' '\n' <<<"${st[$k]}" | grep . | median)"
done
