#!/usr/bin/env bash
# scripts/readme_commands.sh: runs the commands README.md gives after its set-up
# (the distributed runs: each inline command that starts with Open MPI's
# run-as-root consent) as written, from the repository root, as the reader
# would paste them: each must exit 0. Run as root, it runs them again as user
# 65534 through setpriv(1), for a reader who is not root. Needs the Release
# build in build/release (scripts/test.sh's release phase); registered as a
# test there (apps/stealscan/tests/CMakeLists.txt).
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fail=0
mapfile -t cmds < <(grep -o '`OMPI_ALLOW_RUN_AS_ROOT=1 [^`]*`' "$root/README.md" | tr -d '`')
if ((${#cmds[@]} < 2)); then
  echo "readme_commands.sh: expected the README's two MPI commands, found ${#cmds[@]}" >&2
  exit 1
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
mkdir -m 1777 "$tmp/home"
as_user=()
if [[ $(id -u) -eq 0 && -x /usr/bin/setpriv ]]; then
  as_user=(/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$tmp/home" TMPDIR="$tmp/home")
fi
run() {  # run WHO COMMAND: the command through bash in the repository root
  local who=$1 cmd=$2 rc
  if [[ $who == user ]]; then
    (cd "$root" && timeout 120 "${as_user[@]}" bash -c "$cmd") >"$tmp/out" 2>&1
  else
    (cd "$root" && timeout 120 bash -c "$cmd") >"$tmp/out" 2>&1
  fi
  rc=$?
  if ((rc != 0)); then
    echo "FAIL ($who, exit $rc): $cmd" >&2
    sed 's/^/  /' "$tmp/out" | tail -8 >&2
    fail=1
  else
    echo "ok ($who): $cmd: $(tail -1 "$tmp/out")"
  fi
}
for c in "${cmds[@]}"; do
  run "$(id -un)" "$c"
  ((${#as_user[@]})) && run user "$c"
done
exit $fail
