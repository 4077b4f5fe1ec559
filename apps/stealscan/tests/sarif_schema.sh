#!/bin/bash
# sarif_schema.sh: `stealscan secrets --format sarif` validated against the
# SARIF 2.1.0 JSON schema (OASIS's, as Microsoft's npm package
# @microsoft/jest-sarif ships it: scripts/test.sh fetches it) with Python's
# jsonschema, a validator that shares no code with ours. Reports of a plain
# scan (findings in several files, a path that needs percent-encoding, a
# non-UTF-8 secret, a path-only rule), of an empty scan, and of a git history
# scan (when git is installed). And a report broken on purpose must fail, so
# that a validator that accepts everything cannot pass.
#
#   sarif_schema.sh STEALSCAN
# Environment: STEALSCAN_SARIF_SCHEMA, the schema file; without it (or
# without Python's jsonschema) the test is skipped (exit 77) unless
# STEALSCAN_REQUIRE_SARIF_SCHEMA=1, which CI sets: then it fails.
set -u
scan=$1
schema=${STEALSCAN_SARIF_SCHEMA:-}
missing() {
  if [ "${STEALSCAN_REQUIRE_SARIF_SCHEMA:-0}" = 1 ]; then
    echo "FAIL: $*"
    exit 1
  fi
  echo "skip: $*"
  exit 77
}
[ -n "$schema" ] && [ -r "$schema" ] || missing "no SARIF schema (STEALSCAN_SARIF_SCHEMA='$schema')"
python3 -c 'import jsonschema' 2>/dev/null || missing "Python's jsonschema is not installed"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

# validate NAME FILE [expect-invalid]
validate() {
  local name=$1 file=$2 expect=${3:-valid}
  python3 - "$schema" "$file" "$expect" <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
cls = jsonschema.validators.validator_for(schema)  # draft-04, as the schema says
errors = sorted(cls(schema).iter_errors(doc), key=lambda e: list(e.path))
if sys.argv[3] == "valid":
    for e in errors[:5]:
        print("  " + "/".join(map(str, e.path)) + ": " + e.message[:200])
    sys.exit(1 if errors else 0)
sys.exit(0 if errors else 1)
PY
  local rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL: $name: $([ "$expect" = valid ] && echo "not valid SARIF 2.1.0" || echo "a broken report passed")"
    failures=$((failures + 1))
  else
    echo "ok: $name"
  fi
}

mkdir -p "$tmp/data/sub dir" "$tmp/empty"
printf 'token = "ghp_AAAAbbbbCCCCddddEEEEffffGGGGhhhh1234"\n' >"$tmp/data/a.env"
printf 'x\nkey: "AKIAABCDEFGHIJKLMNOP"\n' >"$tmp/data/sub dir/b%%c.yml"
printf 'pw = "ghp_\xff\xfebbCCCCddddEEEEffffGGGGhhhh1234"\n' >"$tmp/data/latin1.txt"
printf '[extend]\nuseDefault = true\n[[rules]]\nid = "env-file"\ndescription = "an env file"\npath = %s\n' \
  "'''\\.env\$'''" >"$tmp/rules.toml"
"$scan" secrets --no-progress --no-cache -c "$tmp/rules.toml" -f sarif -o "$tmp/files.sarif" "$tmp/data" 2>"$tmp/err"
[ $? -eq 1 ] || { echo "FAIL: the plain scan did not exit 1"; cat "$tmp/err"; failures=$((failures + 1)); }
grep -q '"results"' "$tmp/files.sarif" && grep -q 'env-file' "$tmp/files.sarif" ||
  { echo "FAIL: the plain scan's report has no results"; failures=$((failures + 1)); }
validate "plain scan" "$tmp/files.sarif"
"$scan" secrets --no-progress --no-cache -f sarif -o "$tmp/empty.sarif" "$tmp/empty" 2>/dev/null
validate "empty scan" "$tmp/empty.sarif"
"$scan" secrets --no-progress --no-cache --redact -f sarif -o "$tmp/redacted.sarif" "$tmp/data" 2>/dev/null
validate "redacted scan" "$tmp/redacted.sarif"

if command -v git >/dev/null; then
  git init -q "$tmp/repo"
  cp "$tmp/data/a.env" "$tmp/repo/"
  git -C "$tmp/repo" add . && git -C "$tmp/repo" -c user.name=A -c user.email=a@example.com commit -qm one
  "$scan" secrets --no-progress --no-cache --git -f sarif -o "$tmp/git.sarif" "$tmp/repo" 2>/dev/null
  grep -q 'commitSha' "$tmp/git.sarif" || { echo "FAIL: the git report has no commitSha"; failures=$((failures + 1)); }
  validate "git history scan" "$tmp/git.sarif"
else
  echo "skip: git history scan (no git)"
fi

# Broken on purpose: a level SARIF does not have, and a region starting at line 0.
python3 - "$tmp/files.sarif" "$tmp/broken1.sarif" "$tmp/broken2.sarif" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["runs"][0]["results"][0]["level"] = "loud"
json.dump(doc, open(sys.argv[2], "w"))
doc = json.load(open(sys.argv[1]))
for r in doc["runs"][0]["results"]:
    for loc in r.get("locations", []):
        if "region" in loc["physicalLocation"]:
            loc["physicalLocation"]["region"]["startLine"] = 0
json.dump(doc, open(sys.argv[3], "w"))
PY
validate "a report with level 'loud'" "$tmp/broken1.sarif" invalid
validate "a report with startLine 0" "$tmp/broken2.sarif" invalid

echo "sarif_schema: $failures failure(s)"
[ $failures -eq 0 ]
