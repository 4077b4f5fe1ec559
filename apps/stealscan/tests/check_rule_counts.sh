#!/usr/bin/env bash
# The rule counts the README and docs/secrets.md give are the built-in rule set's:
# every rule, the rules at the default confidence, and the family files.
# Usage: check_rule_counts.sh STEALSCAN
set -euo pipefail
bin=$1
dir=$(cd "$(dirname "$0")/.." && pwd)
all=$("$bin" secrets --list-rules --min-confidence low | wc -l)
medium=$("$bin" secrets --list-rules | wc -l)
files=$(find "$dir/src/secrets/rules/builtin" -name '*.toml' | wc -l)
bad=0
expect() {  # FILE TEXT: TEXT must occur in FILE
  grep -qF -- "$2" "$1" || { echo "$(basename "$1"): expected \"$2\" (the code has $all rules, $medium at medium, $files files)"; bad=1; }
}
expect "$dir/README.md" "the $all built-in rules"
expect "$dir/README.md" "in $files family files"
expect "$dir/README.md" "(default medium, $medium rules)"
expect "$dir/docs/secrets.md" "the $all built-in rules ($medium at the default"
expect "$dir/docs/secrets.md" "$files files, one per provider family"
[[ $bad -eq 0 ]] || exit 1
echo "rule counts documented: $all rules, $medium at medium, $files family files"
