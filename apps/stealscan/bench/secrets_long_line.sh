#!/usr/bin/env bash
# apps/stealscan/bench/secrets_long_line.sh: `stealscan secrets` on one line full
# of findings against the same bytes split into lines (issue 37, part 2): a
# minified bundle or a one-line JSON dump must cost what its lines would. For
# each size, the median time (s) of the long line and of the split file, and
# their ratio; with the built-in rules, and with a global allowlist whose
# regex looks at the whole line (regexTarget = "line"). The target: at most
# 3x at 64 MiB. Checks that both forms give the same number of findings.
#
# Usage: apps/stealscan/bench/secrets_long_line.sh [--reps N] [--build DIR] [--sizes "1 4 64"]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
reps=3
build="$ROOT/build/scan-bench"
sizes="1 4 16 64"
while (($#)); do
  case "$1" in
    --reps) reps="$2"; shift ;;
    --build) build="$2"; shift ;;
    --sizes) sizes="$2"; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "secrets_long_line.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
  esac
  shift
done
cmake -S "$ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target stealscan >/dev/null
ss="$build/apps/stealscan/stealscan"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/line_allowlist.toml" <<'TOML'
[extend]
useDefault = true
[[allowlists]]
regexTarget = "line"
regexes = ['''never-here-[0-9]{3}''']
TOML

# median_time <args...>: the median wall time of `reps` runs; writes the number
# of findings (from the summary line) to $tmp/count.
median_time() {
  local times=() i start end err
  for ((i = 0; i < reps; i++)); do
    start=$(date +%s.%N)
    err=$("$ss" secrets --no-progress --no-cache --max-filesize 1G -j 1 -f json -o /dev/null "$@" 2>&1 >/dev/null || true)
    end=$(date +%s.%N)
    times+=("$(python3 -c "print($end - $start)")")
  done
  sed -n 's/^stealscan: \([0-9]*\) finding.*/\1/p' <<<"$err" | tail -1 >"$tmp/count"
  printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((reps + 1) / 2))p"
}

echo "| MiB | rules | findings | one line (s) | split (s) | ratio |"
echo "|---|---|---|---|---|---|"
for mib in $sizes; do
  python3 - "$tmp" "$mib" <<'PY'
import random, sys
tmp, mib = sys.argv[1], int(sys.argv[2])
random.seed(mib)
alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789"
parts, n = [], 0
while n < mib << 20:
    p = 'password="%s" ' % "".join(random.choice(alphabet) for _ in range(16))
    parts.append(p)
    n += len(p)
open(tmp + "/line.txt", "w").write("".join(parts) + "\n")
open(tmp + "/split.txt", "w").write("\n".join(parts) + "\n")
PY
  for rules in built-in line-allowlist; do
    cfg=()
    [[ $rules == line-allowlist ]] && cfg=(--config "$tmp/line_allowlist.toml")
    t_line=$(median_time "${cfg[@]}" "$tmp/line.txt"); n_line=$(cat "$tmp/count")
    t_split=$(median_time "${cfg[@]}" "$tmp/split.txt"); n_split=$(cat "$tmp/count")
    [[ "$n_line" == "$n_split" ]] || echo "secrets_long_line.sh: $mib MiB $rules: $n_line findings on one line, $n_split split" >&2
    printf '| %s | %s | %s | %.2f | %.2f | %.2fx |\n' "$mib" "$rules" "$n_line" "$t_line" "$t_split" \
      "$(python3 -c "print($t_line / $t_split)")"
  done
done
