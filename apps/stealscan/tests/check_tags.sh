#!/usr/bin/env bash
# Every synchronisation tag in stealscan's code ([SCAN-path-release], ...) must be
# explained in its design notes, docs/design.md (each protocol written up once), as
# scripts/check_protocol_tags.sh checks for the library.
set -euo pipefail
dir=$(cd "$(dirname "$0")/.." && pwd)
tags=$(grep -rhoE '\[SCAN-[a-z][a-z-]*\]' "$dir/src" | sort -u)
missing=0
for tag in $tags; do
  grep -qF -- "$tag" "$dir/docs/design.md" || { echo "tag $tag is used in code but not explained in docs/design.md"; missing=1; }
done
[[ $missing -eq 0 ]] || exit 1
echo "stealscan protocol tags documented: $(echo "$tags" | wc -w)"
