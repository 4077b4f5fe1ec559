#!/bin/sh
# tests/mpi/expect_exit.sh <status> <regex> <command>...: runs the command and
# passes only if it exits with <status> and its output (stdout and stderr)
# matches the extended regex <regex>. For the bad-argument tests.
want=$1 pattern=$2
shift 2
out=$("$@" 2>&1)
got=$?
printf '%s\n' "$out"
if [ "$got" -ne "$want" ]; then echo "expect_exit: exit status $got, expected $want"; exit 1; fi
if ! printf '%s\n' "$out" | grep -Eq -- "$pattern"; then echo "expect_exit: output does not match '$pattern'"; exit 1; fi
echo "expect_exit: exit status $got and the message as expected"
