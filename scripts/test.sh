#!/usr/bin/env bash
# scripts/test.sh: THE test command of stealpool. CI runs it (through .ci/run), and
# so should you before you push. It installs what it needs on a fresh Debian 12
# machine (as root), then runs these phases, each in its own build directory:
#
#   release     g++ Release, -Werror (build/release): every test but the `stress`
#               label in parallel, then the `stress` tests one at a time (they
#               need both cores)
#   tsan        g++ ThreadSanitizer (build/tsan): builds and runs the tests
#               labelled `concurrency`, STEALPOOL_STRESS_SCALE=20
#   asan        clang++ AddressSanitizer + UndefinedBehaviorSanitizer, -Werror
#               (build/asan): every test but the simulator's (label `sim`,
#               deterministic, run by release), STEALPOOL_STRESS_SCALE=10. Also
#               clang's warning check of everything but the benchmarks (the
#               `clang` phase covers those)
#   package     installs build/release into a temporary prefix and builds and
#               runs tests/package/consumer against it twice: with CMake's
#               find_package(stealpool) and with pkg-config
# These four are the default (CI's) set: about 30 minutes on 2 cores. Three more
# run with --all or --only, each repeating a default phase with the other
# compiler (what differs between the two compilers' sanitizers and warnings):
#   tsan-clang  ThreadSanitizer with clang++ (build/tsan-clang)
#   asan-gcc    ASan + UBSan with g++ (build/asan-gcc)
#   clang       clang++ Release, -Werror (build/clang): compiles everything, runs
#               nothing
# The sanitizer phases instrument the library itself too (CMakeLists.txt applies
# STEALPOOL_SANITIZE to it), not only the tests.
#
# Usage: ./scripts/test.sh              the default phases
#        ./scripts/test.sh --all        all seven phases
#        ./scripts/test.sh --quick      the release phase only
#        ./scripts/test.sh --only tsan  one phase (repeat --only, or give a
#                                       comma list, for several)
#        ./scripts/test.sh --fail-fast  stop at the first failing phase
# Environment:
#   STEALPOOL_TEST_TIMEOUT  seconds a test may run when it sets no TIMEOUT
#                           property of its own (default 300): a hang fails
#                           instead of eating the CI budget
#   STEALPOOL_SKIP_DEPS=1   do not check or install Debian packages
#   JOBS                    build and test parallelism (default: nproc)
# Tests may read STEALPOOL_STRESS_SCALE (unset = full size, N = sizes divided by N).
# Exit status: 0 when every phase passed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=lib/deps.sh
source "$ROOT/scripts/lib/deps.sh"

DEFAULT_PHASES=(release tsan asan package)
ALL_PHASES=(release tsan asan package tsan-clang asan-gcc clang)
JOBS="${JOBS:-$(nproc)}"
TEST_TIMEOUT="${STEALPOOL_TEST_TIMEOUT:-300}"

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }

phases=()
fail_fast=0
while (($#)); do
  case "$1" in
    --quick) phases+=(release) ;;
    --all) phases+=("${ALL_PHASES[@]}") ;;
    --only)
      [[ $# -ge 2 ]] || { echo "test.sh: --only needs a phase: ${ALL_PHASES[*]}" >&2; exit 2; }
      IFS=, read -r -a more <<<"$2"; phases+=("${more[@]}"); shift ;;
    --only=*) IFS=, read -r -a more <<<"${1#--only=}"; phases+=("${more[@]}") ;;
    --fail-fast) fail_fast=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "test.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
  shift
done
((${#phases[@]})) || phases=("${DEFAULT_PHASES[@]}")
for p in "${phases[@]}"; do
  [[ " ${ALL_PHASES[*]} " == *" $p "* ]] || { echo "test.sh: unknown phase '$p' (phases: ${ALL_PHASES[*]})" >&2; exit 2; }
done

header() { printf '\n==================== %s ====================\n' "$*"; }

# --- set-up: Debian packages -------------------------------------------------------

# ASLR with more than 28 random bits (newer kernels' default) breaks the TSan and
# ASan runtimes of g++ 12 / clang 14 ("unexpected memory mapping"); run the
# sanitizer phases with ASLR off there.
sanitizer_wrapper=()
if [[ -r /proc/sys/vm/mmap_rnd_bits ]] && (($(cat /proc/sys/vm/mmap_rnd_bits) > 28)); then
  sanitizer_wrapper=(setarch "$(uname -m)" -R)
fi

# configure_and_build <dir> <c++ compiler> [cmake args...]
# Builds every target, or only BUILD_TARGET when a phase sets it, as unity units
# (STEALPOOL_UNITY_BUILD): stealscan's core library 8 sources to a unit, each
# test binary's sources 6 to a unit (about half of each one's build time).
BUILD_TARGET=""
configure_and_build() {
  local dir="$1" cxx="$2"; shift 2
  cmake -S "$ROOT" -B "$dir" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DSTEALPOOL_UNITY_BUILD=ON "$@"
  "${RUN_PREFIX[@]}" cmake --build "$dir" -j "$JOBS" ${BUILD_TARGET:+--target "$BUILD_TARGET"}
}

# Prefix for the build (gtest_discover_tests runs the test binaries) and ctest: the
# sanitizer phases set it to sanitizer_wrapper.
RUN_PREFIX=()

# run_ctest <dir> [ctest args...]
# A failing run's test names go to FAILED_TESTS, which the summary prints: a CI log
# shown only by its tail still says which tests failed.
FAILED_TESTS="$(mktemp "${TMPDIR:-/tmp}/stealpool-failed.XXXXXX")"
run_ctest() {
  local dir="$1" rc=0; shift
  "${RUN_PREFIX[@]}" ctest --test-dir "$dir" --output-on-failure --timeout "$TEST_TIMEOUT" "$@" || rc=$?
  local failed_log="$dir/Testing/Temporary/LastTestsFailed.log"
  if ((rc != 0)) && [[ -r "$failed_log" ]]; then
    awk -v dir="$dir" '{ print "  " dir ": test " $0 }' "$failed_log" >> "$FAILED_TESTS"
  fi
  return "$rc"
}

# Non-stress tests in parallel, then the stress tests one at a time (they need both
# cores); the stress tests run even when a quick test failed, so one run reports
# every failure. Extra args (label filters) go to both runs. The first run uses
# --no-tests=error, so a filter that matches no test fails (a phase must not pass
# vacuously); stress tests are optional.
run_tests_then_stress() {
  local dir="$1" rc=0; shift
  run_ctest "$dir" -j "$JOBS" --no-tests=error -LE "${SKIP_LABELS:-^stress\$}" "$@" || rc=$?
  echo "--- stress tests (serial) ---"
  run_ctest "$dir" -j 1 --no-tests=ignore -L '^stress$' "$@" || rc=$?
  return "$rc"
}

use_sanitizer_wrapper() {
  if ((${#sanitizer_wrapper[@]})); then
    echo "(ASLR entropy > 28 bits: running the tests under ${sanitizer_wrapper[*]})"
    RUN_PREFIX=("${sanitizer_wrapper[@]}")
  fi
}

# --- phases -------------------------------------------------------------------------
phase_release() {
  configure_and_build build/release g++ -DCMAKE_BUILD_TYPE=Release -DSTEALPOOL_WERROR=ON
  run_tests_then_stress build/release
}

# tsan_with <build dir> <c++ compiler>
tsan_with() {
  export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1"
  export STEALPOOL_STRESS_SCALE=20
  use_sanitizer_wrapper
  # Only what `-L concurrency` runs is built (CMakeLists.txt's concurrency_tests).
  BUILD_TARGET=concurrency_tests configure_and_build "$1" "$2" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DSTEALPOOL_SANITIZE=thread -DSTEALPOOL_BUILD_BENCH=OFF
  run_tests_then_stress "$1" -L concurrency
}

# asan_with <build dir> <c++ compiler> [cmake args...]
asan_with() {
  export ASAN_OPTIONS="detect_stack_use_after_return=1:detect_leaks=1"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
  export STEALPOOL_STRESS_SCALE=10
  # The simulator's cases are single-threaded and deterministic: the release
  # phase runs them; under ASan they cost a minute and find nothing new.
  SKIP_LABELS='^(stress|sim)$'
  use_sanitizer_wrapper
  local dir="$1" cxx="$2"; shift 2
  configure_and_build "$dir" "$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTEALPOOL_SANITIZE=address "$@"
  run_tests_then_stress "$dir"
}

phase_tsan() { tsan_with build/tsan g++; }
phase_tsan_clang() { tsan_with build/tsan-clang clang++; }
# The default asan phase is also clang's -Werror check, benchmarks included (their
# smoke tests are not registered in sanitizer builds, so they are compiled only).
phase_asan() { asan_with build/asan clang++ -DSTEALPOOL_WERROR=ON -DSTEALPOOL_BUILD_BENCH=OFF; }
phase_asan_gcc() { asan_with build/asan-gcc g++ -DSTEALPOOL_BUILD_BENCH=OFF; }

phase_clang() {
  configure_and_build build/clang clang++ -DCMAKE_BUILD_TYPE=Release -DSTEALPOOL_WERROR=ON
  echo "clang++ Release build is warning-free (-Werror)"
}

phase_package() {
  # Reuses build/release when the release phase built it; builds it otherwise.
  configure_and_build build/release g++ -DCMAKE_BUILD_TYPE=Release -DSTEALPOOL_WERROR=ON
  local tmp prefix
  tmp="$(mktemp -d "${TMPDIR:-/tmp}/stealpool-package.XXXXXX")"
  # shellcheck disable=SC2064
  trap "rm -rf '$tmp'" EXIT
  prefix="$tmp/prefix"
  cmake --install build/release --prefix "$prefix"

  echo "--- consumer via find_package(stealpool) ---"
  cmake -S tests/package/consumer -B "$tmp/cmake-build" -G Ninja -DCMAKE_CXX_COMPILER=g++ \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
  local found
  found="$(sed -n 's/^stealpool_DIR:PATH=//p' "$tmp/cmake-build/CMakeCache.txt")"
  if [[ "$found" != "$prefix"/* ]]; then
    echo "test.sh: find_package found stealpool at '$found', not in the install prefix $prefix" >&2
    return 1
  fi
  cmake --build "$tmp/cmake-build"
  "$tmp/cmake-build/consumer"

  echo "--- consumer via pkg-config ---"
  local pc flags
  pc="$(find "$prefix" -name stealpool.pc -print -quit)"
  [[ -n "$pc" ]] || { echo "test.sh: no stealpool.pc under $prefix" >&2; return 1; }
  flags="$(PKG_CONFIG_PATH="$(dirname "$pc")" pkg-config --cflags --libs stealpool)"
  echo "pkg-config --cflags --libs stealpool: $flags"
  # -Werror with plain -I: the public headers must compile warning-free in a user's build.
  # shellcheck disable=SC2086
  g++ -Wall -Wextra -Wpedantic -Werror -O2 tests/package/consumer/main.cpp $flags -o "$tmp/consumer-pc"
  "$tmp/consumer-pc"
}

# --- driver -------------------------------------------------------------------------
stealpool_install_deps
stealpool_fetch_sarif_schema "$ROOT"
echo "toolchain: $(g++ --version | sed -n 1p) | $(clang++ --version | sed -n 1p) |" \
     "$(cmake --version | sed -n 1p) | ninja $(ninja --version) | $JOBS jobs"

declare -A status=() seconds=()
failed=0
passed=0
total_start=$SECONDS
for p in "${phases[@]}"; do
  header "phase $p"
  start=$SECONDS
  set +e
  ( set -euo pipefail; "phase_${p//-/_}" )
  rc=$?
  set -e
  seconds[$p]=$((SECONDS - start))
  if ((rc == 0)); then
    status[$p]=PASS; passed=$((passed + 1))
  else
    status[$p]="FAIL (exit $rc)"; failed=$((failed + 1))
  fi
  echo "phase $p: ${status[$p]} in ${seconds[$p]} s"
  if ((rc != 0 && fail_fast)); then break; fi
done

header "summary"
for p in "${phases[@]}"; do
  [[ -n "${status[$p]:-}" ]] || continue
  printf '  %-10s %-16s %5d s\n' "$p" "${status[$p]}" "${seconds[$p]}"
done
printf '  %-10s %-16s %5d s\n' total "" $((SECONDS - total_start))
echo "phases: $passed passed, $failed failed"
if [[ -s "$FAILED_TESTS" ]]; then
  echo "failed tests:"
  cat "$FAILED_TESTS"
fi
rm -f "$FAILED_TESTS"
((failed == 0))
