#!/usr/bin/env bash
# Every synchronisation tag used in code ([CL-push], [SLEEP-dekker], ...) must be
# explained in some README.md next to the code (each protocol written up once,
# beside its code): keeps the write-ups from drifting away from the code.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tags=$(grep -rhoE '\[[A-Z]+-[a-z][a-z-]*\]' include src | sort -u)
readmes=$(find include src -name README.md)
missing=0
for tag in $tags; do
  if ! grep -qF -- "$tag" $readmes; then
    echo "tag $tag is used in code but explained in no README.md"
    missing=1
  fi
done
count=$(echo "$tags" | wc -w)
if [ "$missing" -ne 0 ]; then echo "protocol tag check: FAILED"; exit 1; fi
echo "protocol tag check: all $count tags are documented"
