#!/usr/bin/env bash
# Every synchronisation tag in stealscan's code ([SCAN-budget-wake], ...) must be
# explained in its README.md (each protocol written up beside its code), as
# scripts/check_protocol_tags.sh checks for the library.
set -euo pipefail
dir=$(cd "$(dirname "$0")/.." && pwd)
tags=$(grep -rhoE '\[SCAN-[a-z][a-z-]*\]' "$dir/src" | sort -u)
missing=0
for tag in $tags; do
  grep -qF -- "$tag" "$dir/README.md" || { echo "tag $tag is used in code but not explained in README.md"; missing=1; }
done
[[ $missing -eq 0 ]] || exit 1
echo "stealscan protocol tags documented: $(echo "$tags" | wc -w)"
