#!/usr/bin/env bash
# apps/stealscan/bench/git_history.sh: `stealscan secrets --git` on a generated
# history, at -j1 and -j2 (medians of --reps runs, after one untimed run), and
# the file scan of the checked-out tree for comparison; a Markdown table with
# wall time and CPU time (user + sys: on a shared machine the steadier figure).
#
# The repository is generated fast: a Python script writes a `git fast-import`
# stream (so this script needs git and python3): --commits commits (default
# 10,000) on main, each changing 3 of 240 text files (a few KiB of code-like
# lines each: a few lines edited, added or dropped), a side branch of 100
# commits merged back, and planted GitHub tokens: every 500th commit adds one
# to a file and the next commit removes it (so only history holds them), plus
# one in a tag-only commit. Then `git repack -ad` (fast-import's packs are
# loose about deltas) and a checkout of main for the file scan.
#
# Usage: apps/stealscan/bench/git_history.sh [--reps N] [--commits N]
#                                            [--build DIR] [--keep DIR]
#   defaults: 3 reps; 10000 commits; build dir build/release (stealscan must be
#   built there); the repository in a temp dir, removed at the end unless --keep
#   DIR (then it is made there, and reused if it is already there).
set -euo pipefail

reps=3 commits=10000 build=build/release keep=""
while (($#)); do
  case "$1" in
    --reps) reps="$2"; shift 2 ;;
    --commits) commits="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "git_history.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || { echo "git_history.sh: --reps '$reps' is not a positive number" >&2; exit 2; }
[[ "$commits" =~ ^[1-9][0-9]*$ ]] || { echo "git_history.sh: --commits '$commits' is not a positive number" >&2; exit 2; }
command -v git >/dev/null || { echo "git_history.sh: needs git (for git fast-import)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "git_history.sh: needs python3 (the stream generator)" >&2; exit 2; }
bin="$build/apps/stealscan/stealscan"
[[ -x "$bin" ]] || { echo "git_history.sh: no $bin: build stealscan first (ninja -C $build stealscan)" >&2; exit 2; }
bin=$(realpath "$bin")

if [[ -n "$keep" ]]; then
  repo="$keep"
else
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/stealscan-git-bench.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  repo="$tmp/repo"
fi

generate() {  # the fast-import stream on stdout
  python3 - "$1" <<'PY'
import random, sys
n = int(sys.argv[1])
rng = random.Random(15)
words = ("config value request handler buffer index token cache parse write read open close "
         "user session client server stream result error status count offset length").split()
def line():
    k = rng.randrange(4)
    a, b, c = rng.choice(words), rng.choice(words), rng.choice(words)
    if k == 0: return f"    {a}_{b} = {c}({rng.randrange(1000)});"
    if k == 1: return f"    if ({a}.{b}() > {rng.randrange(100)}) return {c};"
    if k == 2: return f"    // {a} the {b} before the {c}"
    return f"    for (auto& {a} : {b}_{c}) {a}.update();"
files = {}
for d in range(24):
    for f in range(10):
        files[f"src/mod{d:02d}/file{f}.cpp"] = [line() for _ in range(rng.randrange(40, 160))]
paths = sorted(files)
out = sys.stdout.buffer
def data(text):
    b = text.encode()
    out.write(b"data %d\n" % len(b)); out.write(b); out.write(b"\n")
def token(i):
    alnum = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    return "ghp_" + "".join(alnum[(j * 7 + i * 13 + j * i) % 62] for j in range(36))
mark = 0
def commit(ref, changed, msg, parent=None, merge=None, t=1600000000):
    global mark
    mark += 1
    out.write(f"commit {ref}\nmark :{mark}\n".encode())
    out.write(f"author Dev {mark % 7} <dev{mark % 7}@example.com> {t + mark * 60} +0200\n".encode())
    out.write(f"committer Dev {mark % 7} <dev{mark % 7}@example.com> {t + mark * 60} +0200\n".encode())
    data(msg)
    if parent: out.write(f"from :{parent}\n".encode())
    if merge: out.write(f"merge :{merge}\n".encode())
    for p in changed:
        out.write(f"M 100644 inline {p}\n".encode()); data("\n".join(files[p]) + "\n")
    return mark
def edit(p):
    ls = files[p]
    for _ in range(rng.randrange(1, 6)):
        r = rng.randrange(3)
        i = rng.randrange(len(ls))
        if r == 0: ls[i] = line()
        elif r == 1: ls.insert(i, line())
        elif len(ls) > 20: del ls[i]
main = commit("refs/heads/main", paths, "initial import\n")
planted = None
fork = None
for i in range(1, n):
    changed = rng.sample(paths, 3)
    for p in changed: edit(p)
    if i % 500 == 0:
        p = changed[0]; files[p].insert(5, f'    auto key = "{token(i)}";'); planted = p
    elif planted is not None:
        files[planted] = [l for l in files[planted] if "ghp_" not in l]
        if planted not in changed: changed.append(planted)
        planted = None
    main = commit("refs/heads/main", sorted(changed), f"change {i}\n\nedits {', '.join(sorted(changed))}\n")
    if i == n // 2: fork = main
    if i == n // 2 + 200 and fork is not None:
        side = fork
        saved = {p: list(files[p]) for p in paths}
        for j in range(100):
            q = f"side/notes{j % 5}.md"
            files.setdefault(q, []).append(f"note {j}: {rng.choice(words)}")
            side = commit("refs/heads/side", [q], f"side {j}\n", parent=side if j == 0 else None)
        for q in [f"side/notes{k}.md" for k in range(5)]: saved[q] = files[q]
        files = saved
        paths = sorted(files)
        main = commit("refs/heads/main", [f"side/notes{k}.md" for k in range(5)], "merge side\n", merge=side)
files["tagged.txt"] = [f"{token(99991)}"]
t = commit("refs/tags/tag-only", ["tagged.txt"], "tag only\n", parent=main)
PY
}

if [[ ! -d "$repo/.git" ]]; then
  echo "generating $commits commits in $repo ..." >&2
  start=$SECONDS
  git init -q "$repo"
  git -C "$repo" symbolic-ref HEAD refs/heads/main
  generate "$commits" | git -C "$repo" fast-import --quiet
  git -C "$repo" repack -adq
  git -C "$repo" checkout -q main
  echo "generated in $((SECONDS - start)) s" >&2
fi

ncommits=$(git -C "$repo" rev-list --all --count)
read -r nblobs blob_bytes < <(git -C "$repo" cat-file --batch-all-objects --batch-check='%(objecttype) %(objectsize)' |
  awk '$1 == "blob" { n++; s += $2 } END { print n + 0, s + 0 }')
tree_bytes=$(cd "$repo" && git ls-files -z | xargs -0 cat | wc -c)
pack_bytes=$(du -sb "$repo/.git/objects/pack" | cut -f1)

median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# time_runs ARGS...: one untimed run, then $reps timed (GNU time, or bash's
# own clock when /usr/bin/time is missing); prints "wall_s cpu_s findings
# summary" (medians; cpu = user + sys, "-" without GNU time).
time_runs() {
  local walls=() cpus=() r t0 t1 findings summary out err tm
  out=$(mktemp) err=$(mktemp) tm=$(mktemp)
  "$@" >/dev/null 2>&1 || true
  for ((r = 0; r < reps; r++)); do
    if [[ -x /usr/bin/time ]]; then
      /usr/bin/time -f '%e %U %S' -o "$tm" "$@" >"$out" 2>"$err" || true
      read -r wall user sys < <(tail -n1 "$tm")  # a status other than 0 adds a line before it
      walls+=("$wall")
      cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')")
    else
      t0=$(date +%s%N)
      "$@" >"$out" 2>"$err" || true
      t1=$(date +%s%N)
      walls+=("$(awk -v d="$((t1 - t0))" 'BEGIN { print d / 1e9 }')")
      cpus+=("-")
    fi
  done
  findings=$(grep -c '"RuleID"' "$out" || true)
  summary=$(tail -n1 "$err")
  rm -f "$out" "$err" "$tm"
  local cpu="-"
  [[ "${cpus[0]}" != "-" ]] && cpu=$(printf '%s\n' "${cpus[@]}" | median)
  printf '%s\t%s\t%s\t%s\n' "$(printf '%s\n' "${walls[@]}" | median)" "$cpu" "$findings" "$summary"
}

echo
echo "Repository: $ncommits commits, $nblobs blobs ($(awk -v b="$blob_bytes" 'BEGIN { printf "%.1f", b / 1e6 }') MB of blob content, packed in $(awk -v b="$pack_bytes" 'BEGIN { printf "%.1f", b / 1e6 }') MB); checked-out tree $(awk -v b="$tree_bytes" 'BEGIN { printf "%.1f", b / 1e6 }') MB. Medians of $reps runs, $(nproc) CPUs, $(date -u +%Y-%m-%d)."
echo
echo "| scan | -j | time (s) | CPU (s) | content (MB) | MB/s | findings |"
echo "|---|---:|---:|---:|---:|---:|---:|"
row() {  # row LABEL J CONTENT_BYTES ARGS...
  local label="$1" j="$2" bytes="$3" s cpu findings summary
  shift 3
  IFS=$'\t' read -r s cpu findings summary < <(time_runs "$@")
  awk -v l="$label" -v j="$j" -v s="$s" -v c="$cpu" -v b="$bytes" -v f="$findings" \
    'BEGIN { printf "| %s | %d | %.2f | %s | %.1f | %.0f | %d |\n", l, j, s, c, b / 1e6, b / 1e6 / s, f }'
  last_summary="$summary"
}
for j in 1 2; do
  row '`secrets --git` (history)' "$j" "$blob_bytes" "$bin" secrets --no-progress -j "$j" --format json --git "$repo"
  [[ $j == 1 ]] && git_summary="$last_summary"
done
for j in 1 2; do
  row '`secrets` (checked-out tree)' "$j" "$tree_bytes" "$bin" secrets --no-progress -j "$j" --format json "$repo"
done
echo
echo "stealscan's summary (-j1, --git): ${git_summary#stealscan: }"
