#!/bin/bash
# mpi_same_output.sh: stealscan-mpi against one-process stealscan on a generated
# tree (directories, a .gitignore and an .ignore below it, hidden and binary files, a file without a
# match, files larger than a chunk (one with a line longer than two chunks),
# a broken link, an unreadable file (as root, read as user 65534)).
#
#   mpi_same_output.sh output  STEALSCAN STEALSCAN_MPI RANKS MPIEXEC [MPIEXEC_FLAGS...]
#   mpi_same_output.sh refusal STEALSCAN STEALSCAN_MPI RANKS MPIEXEC [MPIEXEC_FLAGS...]
#   mpi_same_output.sh refusal_more STEALSCAN STEALSCAN_MPI RANKS MPIEXEC [MPIEXEC_FLAGS...]
#
# output:  for plain, -n, -c, -l, --json and a few more, the sorted output of
#          `MPIEXEC -np RANKS stealscan-mpi ARGS` equals the sorted output of
#          `stealscan ARGS`, and the exit statuses are equal; a file's lines are
#          together and in order. At 2 ranks and more, also with 4 KiB chunks,
#          which split the large files into chunk tasks that ranks share.
# refusal: a bad option and a missing path: exit status 2 and a message,
#          within 60 s (no hang).
# refusal_more: the same for `secrets`, standard input (`-`, `-f -`), --stats
#          and a bad regex. (Each refusal costs about 2.5 s unless MPIEXEC_FLAGS
#          has --mca odls_base_sigkill_timeout 0, as CMake passes: Open MPI's
#          mpirun waits that long to end a job whose ranks exit with a non-zero
#          status.)
# STEALSCAN_MPI_LEAK_CASES (set by CMake in ASan builds): the names of the
#          output cases whose stealscan-mpi runs keep LeakSanitizer on; the
#          others run with detect_leaks=0. The leak checks add about 2.7 s
#          to a 2-rank run here (LSan's slow unwinder, which the Open MPI
#          suppressions need), which takes 0.6 s without them. A name that is
#          no output case fails the test.
set -u
what=$1 scan=$2 scan_mpi=$3 ranks=$4
shift 4
mpi=("$@" -np "$ranks")

tmp=$(mktemp -d)
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
t=$tmp/tree
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

make_tree() {
  mkdir -p "$t"/src/net "$t"/src/io "$t"/docs/old "$t"/build/out "$t"/logs
  printf 'build/\n*.tmp\n' >"$t"/.gitignore
  # Rules below the top, which a rank that rebuilds a directory task from its
  # path must read on its way down.
  printf 'f1?.txt\n' >"$t"/src/.ignore
  for d in src/net src/io docs docs/old logs; do
    for i in $(seq 1 12); do
      {
        echo "header of $d/$i"
        [ $((i % 3)) -ne 0 ] && echo "a needle in $d file $i"
        echo "plain line"
        [ $((i % 4)) -eq 1 ] && echo "Needle twice: needle and needlework"
        echo "footer"
      } >"$t/$d/f$i.txt"
    done
  done
  echo "needle but ignored" >"$t"/build/out/skip.txt
  echo "needle but ignored" >"$t"/src/scratch.tmp
  echo "needle but hidden" >"$t"/.hidden
  printf 'needle\0binary\n' >"$t"/src/blob.bin
  printf 'nothing to see here\n' >"$t"/docs/none.txt
  # Larger than stealscan's 256 KiB chunk: both split it into chunks.
  seq 1 20000 | awk '{ print "line " $1 ($1 % 997 == 0 ? " has the needle" : " is filler text") }' >"$t"/logs/big.log
  # A needle in a line of 20,000 bytes: with 4 KiB chunks its text is read
  # back from the file when it is printed.
  {
    seq 1 2000 | sed 's/^/short needle /'
    printf '%s needle %s\n' "$(head -c 12000 /dev/zero | tr '\0' a)" "$(head -c 8000 /dev/zero | tr '\0' b)"
    seq 1 2000 | sed 's/^/after the long line, needle /'
  } >"$t"/logs/long.log
  printf 'needle\nhaystack\n' >"$tmp"/patterns.txt
  # A wider tree (40 x 5 directories of 5 files), long enough to walk that
  # other ranks take directory tasks from rank 0 and rebuild them from their
  # paths, with rules at the top and one level down for them to read.
  for d in $(seq 1 40); do
    for e in 1 2 3 4 5; do
      mkdir -p "$tmp/wide/d$d/e$e"
      for f in 1 2 3 4 5; do printf 'needle %s\nhay\n' "$d.$e.$f" >"$tmp/wide/d$d/e$e/f$f.txt"; done
    done
    [ $((d % 2)) -eq 1 ] && printf 'f4.txt\n' >"$tmp/wide/d$d/.gitignore"
  done
  printf 'f5.txt\n' >"$tmp"/wide/.ignore
  # A broken link: an error under -L (status 2) even for root.
  mkdir -p "$t"/links
  echo "needle by a link" >"$t"/links/real.txt
  ln -s ../no-such-file "$t"/links/dangling
  # An unreadable file. Root reads every file, so as root (CI) that case runs
  # both programs as user 65534 through setpriv(1), from copies of the
  # binaries that user may run, with a home and session directory of its own
  # for Open MPI.
  echo "needle locked away" >"$t"/logs/locked.txt
  chmod 000 "$t"/logs/locked.txt
  unreadable=1
  as_user=()
  user_scan=$scan user_scan_mpi=$scan_mpi
  if [ "$(id -u)" -eq 0 ]; then
    if [ -x /usr/bin/setpriv ]; then
      mkdir -p "$tmp"/bin "$tmp"/home
      cp "$scan" "$scan_mpi" "$tmp"/bin/
      user_scan=$tmp/bin/$(basename "$scan") user_scan_mpi=$tmp/bin/$(basename "$scan_mpi")
      chmod 755 "$tmp" "$tmp"/bin "$tmp"/bin/*
      chown 65534:65534 "$tmp"/home
      as_user=(/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$tmp"/home TMPDIR="$tmp"/home)
    else
      unreadable=0  # no way to drop root's right to read everything
    fi
  fi
}

# same_output_as_user NAME ARGS...: same_output, both programs run as a user
# that cannot read what chmod 000 locks (root runs them as 65534).
same_output_as_user() {
  local saved_scan=$scan saved_scan_mpi=$scan_mpi saved_mpi=("${mpi[@]}")
  scan_prefix=("${as_user[@]}")
  scan=$user_scan scan_mpi=$user_scan_mpi
  mpi=("${as_user[@]}" "${mpi[@]}")
  same_output "$@"
  scan=$saved_scan scan_mpi=$saved_scan_mpi
  mpi=("${saved_mpi[@]}")
  scan_prefix=()
}
scan_prefix=()

# same_output NAME ARGS...: sorted stdout and exit status equal.
same_output() {
  local name=$1
  shift
  timeout 60 "${scan_prefix[@]}" "$scan" "$@" >"$tmp/one.out" 2>"$tmp/one.err"
  local want=$?
  local asan=${ASAN_OPTIONS-}
  if [ -n "${STEALSCAN_MPI_LEAK_CASES+set}" ] && [[ " $STEALSCAN_MPI_LEAK_CASES " != *" $name "* ]]; then
    asan=${asan:+$asan:}detect_leaks=0
  fi
  ASAN_OPTIONS=$asan timeout 60 "${mpi[@]}" "$scan_mpi" "$@" >"$tmp/mpi.out" 2>"$tmp/mpi.err"
  local got=$?
  if [ "$got" -ne "$want" ]; then
    fail "$name: exit status $got at $ranks ranks, stealscan gave $want"
    sed 's/^/  stderr: /' "$tmp/mpi.err" | head -5
  fi
  # --json's times differ between any two runs: each becomes T.
  local times='s/"(elapsed|elapsed_total)":\{[^}]*\}/"\1":T/g'
  if ! cmp -s <(sed -E "$times" "$tmp/one.out" | LC_ALL=C sort) <(sed -E "$times" "$tmp/mpi.out" | LC_ALL=C sort); then
    fail "$name: sorted output differs at $ranks ranks (< stealscan, > stealscan-mpi)"
    diff <(sed -E "$times" "$tmp/one.out" | LC_ALL=C sort) <(sed -E "$times" "$tmp/mpi.out" | LC_ALL=C sort) | head -10 | cut -c1-300
  fi
  echo "ok: $name: exit $got, $(wc -l <"$tmp/mpi.out") lines"
  ran_cases+=" $name "
}
ran_cases=""

# Each file's lines form one run, in line order (for PATH:LINE:TEXT output).
lines_together() {
  local name=$1
  if ! awk -F: '
      $1 != last { if (seen[$1]++) { print "file " $1 " is split"; bad = 1 } last = $1; n = 0 }
      { if ($2 + 0 <= n) { print $1 ": line " $2 " after " n; bad = 1 } n = $2 + 0 }
      END { exit bad }' "$tmp/mpi.out"; then
    fail "$name: a file's lines are not together and in order at $ranks ranks"
  fi
}

# refused NAME REGEX ARGS...: exit status 2 and a message matching REGEX.
refused() {
  local name=$1 pattern=$2
  shift 2
  timeout 60 "${mpi[@]}" "$scan_mpi" "$@" </dev/null >"$tmp/mpi.out" 2>"$tmp/mpi.err"
  local got=$?
  [ "$got" -eq 124 ] && fail "$name: no answer within 60 s at $ranks ranks (a hang)"
  [ "$got" -ne 2 ] && fail "$name: exit status $got at $ranks ranks, expected 2"
  if ! grep -Eq -- "$pattern" "$tmp/mpi.err"; then
    fail "$name: no message matching '$pattern' at $ranks ranks; stderr:"
    sed 's/^/  /' "$tmp/mpi.err" | head -5
  fi
  echo "ok: $name: exit $got: $(head -1 "$tmp/mpi.err")"
}

case $what in
  output)
    make_tree
    same_output plain needle "$t"
    same_output line_numbers -n needle "$t"
    lines_together line_numbers
    same_output count -c needle "$t"
    same_output list -l needle "$t"
    same_output json --json needle "$t"
    same_output json_context --json -C 1 needle "$t"/src
    same_output json_matches --json-matches needle "$t"
    same_output context_words_patterns_file -n -C 1 -i -w -f "$tmp"/patterns.txt "$t"/src "$t"/docs
    same_output one_file_max_count -n -m 5 needle "$t"/logs/big.log
    # Split files across ranks (at 1 rank the chunks stay on its workers, as
    # one-process stealscan's do; those runs are left to 2 and 4 ranks).
    if [ "$ranks" -gt 1 ]; then
      same_output split_line_numbers -n --chunk-size 4K needle "$t"/logs
      lines_together split_line_numbers
      same_output split_count_inverted -c -v --chunk-size 4K needle "$t"/logs
      same_output split_list -l --chunk-size 4K needle "$t"/logs
      same_output split_json --json --chunk-size 4K needle "$t"/logs
      same_output split_json_matches --json-matches --chunk-size 4K needle "$t"/logs
      same_output split_only_matching -o -n --chunk-size 4K needle "$t"/logs
    fi
    same_output no_match zzz-not-there "$t"
    same_output walk_shared_between_ranks -c needle "$tmp"/wide
    same_output broken_link_under_follow -l -L needle "$t"
    grep -q 'dangling' "$tmp/mpi.err" || fail "broken_link_under_follow: stderr does not name the link at $ranks ranks"
    if [ "$unreadable" -eq 1 ]; then
      same_output_as_user unreadable_file -l needle "$t"/logs
      grep -q 'locked.txt' "$tmp/mpi.err" || fail "unreadable_file: stderr does not name locked.txt at $ranks ranks"
      grep -q 'locked.txt' "$tmp/one.err" || fail "unreadable_file: stealscan's stderr does not name locked.txt"
    else
      echo "skip: unreadable_file (running as root without setpriv, which reads every file)"
    fi
    for name in ${STEALSCAN_MPI_LEAK_CASES-}; do
      [[ "$ran_cases" == *" $name "* ]] || fail "STEALSCAN_MPI_LEAK_CASES names '$name', which is no output case here"
    done
    ;;
  refusal)
    mkdir -p "$t"  # refused before any file is read: an empty tree will do
    refused unknown_option "unknown option '--bogus'" --bogus needle "$t"
    refused missing_path "$t/no-such-dir" needle "$t/no-such-dir"
    ;;
  refusal_more)
    mkdir -p "$t"
    refused secrets_subcommand "secrets" secrets "$t"
    refused standard_input_operand "standard input" needle -
    refused patterns_from_standard_input "standard input" -f - "$t"
    refused stats "--stats" --stats needle "$t"
    refused bad_regex "missing \\)|\\(" -E '(' "$t"
    ;;
  *)
    echo "mpi_same_output.sh: unknown case set '$what' (output, refusal or refusal_more)" >&2
    exit 2
    ;;
esac
if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all as expected at $ranks ranks"
