#!/usr/bin/env bash
# apps/stealscan/bench/pathological.sh: the inputs that once made stealscan's time
# grow faster than its input (issue 13, part 3), timed against ripgrep: regexes that
# could match across lines on many short lines, one very long line, a very long
# regex, and a hostile .gitignore glob. Prints a Markdown table of medians (ms),
# stealscan's max RSS, and the ratio to rg; checks that both print the same count.
#
# Usage: apps/stealscan/bench/pathological.sh [--reps N] [--build DIR] [--big] [--rows SUBSTRING]
#   --big adds the 2 GB single-line file (needs 2 GB of free space in $TMPDIR).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
reps=3
build="$ROOT/build/scan-bench"
big=0
only=""
while (($#)); do
  case "$1" in
    --reps) reps="$2"; shift ;;
    --build) build="$2"; shift ;;
    --big) big=1 ;;
    --rows) only="$2"; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "pathological.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
  esac
  shift
done
command -v rg >/dev/null || { echo "pathological.sh: needs ripgrep (apt-get install ripgrep)" >&2; exit 1; }
cmake -S "$ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target stealscan >/dev/null
ss="$build/apps/stealscan/stealscan"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" <<'EOF'
import random, sys
tmp = sys.argv[1]
for name, text in (("blank256k", "\n" * 262144), ("blank20k", "\n" * 20000), ("blank40k", "\n" * 40000),
                   ("a40k", "a\n" * 40000)):
    with open(tmp + "/" + name + ".txt", "w") as f:
        f.write(text)
with open(tmp + "/line200m.txt", "w") as f:
    f.write("x" * 200_000_000 + "Exception\n")
# One 100 MB line of words, some of them the patterns' (IOException, gamma_t).
vocab = ["alpha", "beta", "gamma_t", "delta", "eta_x", "theta", "kappa", "lambda", "mu", "Epsilon", "IOException"]
random.seed(2)
with open(tmp + "/words100m.txt", "w") as f:
    piece = " ".join(random.choice(vocab) for _ in range(100_000))
    while f.tell() < 100_000_000:
        f.write(piece + " ")
    f.write("\n")
random.seed(1)
words = ["".join(random.choice("abcdefghijklmnop") for _ in range(7)) for _ in range(12500)]
with open(tmp + "/regex100k.txt", "w") as f:
    f.write("|".join(words)[:99_999].rsplit("|", 1)[0] + "\n")
with open(tmp + "/text200k.txt", "w") as f:
    f.write("\n".join(" ".join(random.choice(words) if random.random() < 0.01 else "zzzz" for _ in range(10))
                      for _ in range(4000)))
EOF
if ((big)); then
  python3 -c "
import sys
with open(sys.argv[1], 'w') as f:
    for _ in range(20): f.write('x' * 100_000_000)
    f.write('Exception\n')" "$tmp/line2g.txt"
fi
# A hostile ignore file: ten stars against a 60-character name.
mkdir -p "$tmp/tree"
printf '*a*a*a*a*a*a*a*a*a*a*b\n' >"$tmp/tree/.gitignore"
printf 'needle\n' >"$tmp/tree/$(printf 'a%.0s' $(seq 60))"
git -C "$tmp/tree" init -q 2>/dev/null || mkdir -p "$tmp/tree/.git"

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# measure OUT_PREFIX CMD...: median wall ms and max RSS (KiB) over the reps
measure() {
  local prefix="$1"; shift
  : >"$tmp/t"; : >"$tmp/m"
  for ((r = 0; r < reps; r++)); do
    local a=${EPOCHREALTIME/./} b
    /usr/bin/time -f '%M' -o "$tmp/tm" "$@" >"$tmp/${prefix}.out" 2>/dev/null || true
    b=${EPOCHREALTIME/./}
    echo $(((b - a) / 1000)) >>"$tmp/t"
    tail -1 "$tmp/tm" >>"$tmp/m"  # (a failing command adds a line before it)
  done
  echo "$(median <"$tmp/t") $(sort -n "$tmp/m" | tail -1)"
}

rows=(
  "\`^\\s*\$\`, 256 KiB of blank lines;-c -E -e ^\\s*\$ $tmp/blank256k.txt;-c -e ^\\s*\$ $tmp/blank256k.txt"
  "\`^\\s*\$\`, 20,000 blank lines;-c -E -e ^\\s*\$ $tmp/blank20k.txt;-c -e ^\\s*\$ $tmp/blank20k.txt"
  "\`^\\s*\$\`, 40,000 blank lines;-c -E -e ^\\s*\$ $tmp/blank40k.txt;-c -e ^\\s*\$ $tmp/blank40k.txt"
  "\`a[^q]*z\`, 40,000 lines \`a\`;-c -E -e a[^q]*z $tmp/a40k.txt;-c -e a[^q]*z $tmp/a40k.txt"
  "\`[A-Z][a-z]+Exception\`, one 200 MB line;-c -E -e [A-Z][a-z]+Exception $tmp/line200m.txt;-c -e (?-u)[A-Z][a-z]+Exception $tmp/line200m.txt"
  "\`[A-Z][a-z]+Exception\`, one 100 MB line of words;-c -e [A-Z][a-z]+Exception $tmp/words100m.txt;-c -e [A-Z][a-z]+Exception $tmp/words100m.txt"
  "\`\\w+_t\\b\`, one 100 MB line of words;-c -e \\w+_t\\b $tmp/words100m.txt;-c -e \\w+_t\\b $tmp/words100m.txt"
  "\`zqzqzq[0-9]\` (no match), one 100 MB line of words;-c -e zqzqzq[0-9] $tmp/words100m.txt;-c -e zqzqzq[0-9] $tmp/words100m.txt"
  "100,000-byte regex (alternation), 200 KB file;-c -E -f $tmp/regex100k.txt $tmp/text200k.txt;-c -f $tmp/regex100k.txt $tmp/text200k.txt"
  "hostile \`.gitignore\` glob (10 stars, 60-byte name);-c needle $tmp/tree;-c needle $tmp/tree"
)
((big)) && rows+=("\`[A-Z][a-z]+Exception\`, one 2 GB line;-c -E -e [A-Z][a-z]+Exception $tmp/line2g.txt;-c -e (?-u)[A-Z][a-z]+Exception $tmp/line2g.txt")

echo "pathological inputs: $reps reps, median wall ms, max RSS; $("$ss" --version) | $(rg --version 2>/dev/null | head -1)"
echo
echo "| input | stealscan ms | stealscan RSS MiB | rg ms | rg RSS MiB | ratio |"
echo "|---|---|---|---|---|---|"
for row in "${rows[@]}"; do
  IFS=';' read -r name ss_args rg_args <<<"$row"
  [[ -z "$only" || "$name" == *"$only"* ]] || continue
  read -r -a sa <<<"$ss_args"
  read -r -a ra <<<"$rg_args"
  read -r s_ms s_kb < <(measure ss "$ss" --no-progress "${sa[@]}")
  read -r r_ms r_kb < <(measure rg rg "${ra[@]}")
  same="$(cmp -s "$tmp/ss.out" "$tmp/rg.out" && echo "" || echo " (outputs differ: $(head -c 60 "$tmp/ss.out" | tr '\n' ' ') vs $(head -c 60 "$tmp/rg.out" | tr '\n' ' '))")"
  ratio=$(awk -v a="$s_ms" -v b="$r_ms" 'BEGIN { if (b < 1) b = 1; printf "%.2f", (a < 1 ? 1 : a) / b }')
  echo "| $name$same | $s_ms | $((s_kb / 1024)) | $r_ms | $((r_kb / 1024)) | $ratio |"
done
