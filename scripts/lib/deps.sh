# scripts/lib/deps.sh: the Debian packages stealpool's scripts need, installed
# on demand. Sourced by scripts/test.sh and scripts/bench.sh.
#
# stealpool_install_deps: installs whatever of STEALPOOL_DEB_PACKAGES is missing
# (apt-get, as root); does nothing when all are present or when
# STEALPOOL_SKIP_DEPS=1. Not root and something missing: prints the command and
# exits 1.

# libclang-rt-14-dev holds clang's sanitizer runtimes: only a Recommends of clang,
# so --no-install-recommends would leave it out. libre2-dev and libvectorscan-dev:
# the matching engines of apps/stealscan (found through pkg-config; without them
# stealscan is skipped; apps/stealscan/README.md says why each).
# libtomlplusplus-dev: the TOML reader of `stealscan secrets` rule files
# (gitleaks' config format). nlohmann-json3-dev: the JSON reader of its
# baselines (previous reports) and of its tests' report checks. libarchive-dev:
# the archives and compressed files `stealscan secrets` looks into (tar, zip,
# gzip, bzip2, xz, zstd; one library for every format and filter, so no
# decompression of our own); its tests also build their archives with it.
# libgit2-dev: `stealscan secrets --git` reads a repository's objects
# in-process (no `git` process per blob, packfiles and deltas handled, a
# repository handle per worker thread); its tests build their repositories with it too.
# libopenmpi-dev and openmpi-bin: Open MPI, the MPI under stealpool_mpi (the
# distributed executor, include/stealpool/mpi/README.md) and the mpiexec that
# runs its tests at 1, 2 and 4 ranks; without them stealpool_mpi is skipped.
# libdeflate-dev: the history scan inflates pack entries itself (its pack
# reader, for the read order), 1.8x zlib's speed on whole buffers.
# libyaml-cpp-dev: Nosey Parker's and Kingfisher's YAML rule files for
# `stealscan secrets --config` (a node tree, where libyaml would be events).
# libjemalloc-dev: stealscan's allocator outside sanitizer builds (the history
# scan's tree buffers and paths: 9% of its time and a third of its memory).
# ripgrep: the peer of the search benchmark, and the reference its --json
# messages are tested against.
STEALPOOL_DEB_PACKAGES=(g++ clang libclang-rt-14-dev cmake ninja-build libgtest-dev libbenchmark-dev
              libtbb-dev relacy-dev pkg-config libre2-dev
              libvectorscan-dev libtomlplusplus-dev nlohmann-json3-dev libarchive-dev libgit2-dev libdeflate-dev
              libyaml-cpp-dev libjemalloc-dev libopenmpi-dev openmpi-bin ripgrep)

stealpool_install_deps() {
  [[ "${STEALPOOL_SKIP_DEPS:-0}" == 1 ]] && return 0
  local missing=() p
  for p in "${STEALPOOL_DEB_PACKAGES[@]}"; do
    [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" == "install ok installed" ]] ||
      missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  local start=$SECONDS
  printf '\n==================== set-up: installing %s ====================\n' "${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then
    echo "stealpool: missing Debian packages: ${missing[*]}" >&2
    echo "  run: sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
  echo "set-up: done in $((SECONDS - start)) s"
}

# stealpool_fetch_sarif_schema: the SARIF 2.1.0 JSON schema that the test
# stealscan_sarif_matches_the_2_1_0_schema validates stealscan's reports
# against, and Python's jsonschema to do it. The schema is OASIS's, as
# Microsoft's npm package @microsoft/jest-sarif ships it (pinned; no Debian
# package ships it); fetched once into build/sarif-schema/ with `npm pack`.
# Exports STEALSCAN_SARIF_SCHEMA and STEALSCAN_REQUIRE_SARIF_SCHEMA=1 (the
# test then fails, not skips, if the schema could not be had). With
# STEALPOOL_SKIP_DEPS=1: uses the schema if it is already there, requires nothing.
stealpool_fetch_sarif_schema() {
  local root="$1" dir="$1/build/sarif-schema"
  local file="$dir/sarif-2.1.0-rtm.5.json"
  if [[ "${STEALPOOL_SKIP_DEPS:-0}" == 1 ]]; then
    [[ -r "$file" ]] && export STEALSCAN_SARIF_SCHEMA="$file"
    return 0
  fi
  export STEALSCAN_REQUIRE_SARIF_SCHEMA=1 STEALSCAN_SARIF_SCHEMA="$file"
  local need=()
  python3 -c 'import jsonschema' 2>/dev/null || need+=(python3-jsonschema)
  [[ -r "$file" ]] || command -v npm >/dev/null || need+=(npm)
  if ((${#need[@]})) && [[ $(id -u) -eq 0 ]]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null ||
      { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null; } ||
      echo "stealpool: could not install ${need[*]}: the SARIF schema test will fail" >&2
  fi
  [[ -r "$file" ]] && return 0
  mkdir -p "$dir"
  local tgz
  if tgz=$(cd "$dir" && npm pack --silent @microsoft/jest-sarif@1.0.0-beta.0 2>/dev/null) &&
     tar -xzf "$dir/$tgz" -C "$dir" --strip-components=3 package/lib/schemas/sarif-2.1.0-rtm.5.json; then
    rm -f "$dir/$tgz"
    echo "set-up: SARIF 2.1.0 schema in $file"
  else
    echo "stealpool: could not fetch the SARIF 2.1.0 schema (npm pack @microsoft/jest-sarif): the SARIF schema test will fail" >&2
  fi
}
