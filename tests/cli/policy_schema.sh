#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The policy language against its JSON Schema (schema/schemas/policy.schema.json, printed by
# `boxcert schema policy`): the built-in profiles, the examples and every fixture policy
# validate, both as written (YAML read by PyYAML) and as the effective policy `policy
# check` prints; the effective policy is itself a policy file; what the loader refuses,
# the schema refuses too. Needs Debian's python3-jsonschema and python3-yaml.
. "$(dirname "$0")/../lib/testlib.sh"
PY=/usr/bin/python3
CHECK=$BOXCERT_SOURCE_DIR/tests/lib/schema_check.py
"$PY" -c 'import jsonschema, yaml' 2>/dev/null || skip_all "python3-jsonschema or python3-yaml missing"

# YAML (as PyYAML reads it; timestamps back to RFC 3339) to JSON: IN OUT pairs, one process.
to_json() { # to_json IN.yaml OUT.json [IN OUT]...
  "$PY" - "$@" <<'PYEOF'
import datetime, json, sys, yaml
def fix(v):
    if isinstance(v, dict):
        return {k: fix(x) for k, x in v.items()}
    if isinstance(v, list):
        return [fix(x) for x in v]
    if isinstance(v, datetime.datetime):
        return v.strftime("%Y-%m-%dT%H:%M:%SZ")
    return v
args = sys.argv[1:]
for src, dst in zip(args[0::2], args[1::2]):
    with open(src) as f:
        doc = yaml.safe_load(f)
    with open(dst, "w") as f:
        json.dump(fix(doc), f)
PYEOF
}

ok "boxcert schema policy" "$BOXCERT" schema policy
cp "$OUT" "$T/policy.schema.json"
ok "the policy schema is draft 2020-12" "$PY" -c "import json,sys
from jsonschema import Draft202012Validator as V
V.check_schema(json.load(open('$T/policy.schema.json')))"
ok "it is the one in schema/schemas" cmp "$T/policy.schema.json" \
  "$BOXCERT_SOURCE_DIR/schema/schemas/policy.schema.json"

written=() effective=() pairs=()
n=0
add_policy() { # add_policy NAME FILE
  n=$((n + 1))
  local eff=$T/eff-$n.json raw=$T/raw-$n.json
  if "$BOXCERT" policy check "$2" >"$eff" 2>"$ERR"; then
    effective+=("$eff")
  else
    _tap 1 "policy check $1"
    return
  fi
  pairs+=("$2" "$raw")
  written+=("$raw")
}

for prof in strict gvisor cis-docker; do
  ok "policy show $prof" "$BOXCERT" policy show "$prof"
  cp "$OUT" "$T/$prof.yaml"
  add_policy "profile $prof" "$T/$prof.yaml"
  "$PY" -c "import sys; sys.exit(open(sys.argv[1]).read() not in open(sys.argv[2]).read())" \
    "$T/$prof.yaml" "$BOXCERT_SOURCE_DIR/docs/policy.md"
  _tap $? "docs/policy.md prints profile $prof as it is"
  # the printed profile is the profile: checking the file or the name gives one policy
  "$BOXCERT" policy check "$prof" >"$T/$prof.by-name.json" 2>"$ERR"
  ok "policy check $prof (by name) = policy check of its printed text" \
    cmp "$T/$prof.by-name.json" "${effective[-1]}"
done
for f in "$BOXCERT_SOURCE_DIR"/examples/policies/*.yaml "$BOXCERT_SOURCE_DIR"/fixtures/policy-eval/*/policy.yaml; do
  add_policy "${f#$BOXCERT_SOURCE_DIR/}" "$f"
done
for d in "$BOXCERT_SOURCE_DIR"/fixtures/policy-load/*/; do
  [ "$(cat "$d/expected.txt")" = OK ] && add_policy "${d#$BOXCERT_SOURCE_DIR/}" "$d/policy.yaml"
done
ok "PyYAML reads the ${#written[@]} policies as written" to_json "${pairs[@]}"
ok "${#effective[@]} effective policies (profiles, examples, fixtures) validate" \
  "$PY" "$CHECK" "$BOXCERT" policy "${effective[@]}"
grep INVALID "$OUT" | head -5 | sed 's/^/#   /'
ok "${#written[@]} policies as written validate" "$PY" "$CHECK" "$BOXCERT" policy "${written[@]}"
grep INVALID "$OUT" | head -5 | sed 's/^/#   /'
is "${#effective[@]}" "$n" "every policy was checked"

# The effective policy (JSON) is a policy file giving itself.
bad=0
for e in "${effective[@]}"; do
  grep -q '"file"' "$e" && continue # key files resolve against the policy's own folder
  "$BOXCERT" policy check "$e" >"$T/again.json" 2>"$ERR" && cmp -s "$e" "$T/again.json" || {
    echo "#   $e does not reload to itself"; bad=$((bad + 1)); }
done
is "$bad" 0 "effective policies reload to themselves"

# What the loader refuses, the schema refuses.
i=0 bad=()
while IFS= read -r text; do
  i=$((i + 1))
  printf '%b' "$text" >"$T/bad-$i.yaml"
  expect_rc 2 "policy check refuses: $text" "$BOXCERT" policy check "$T/bad-$i.yaml"
  bad+=("$T/bad-$i.yaml" "$T/bad-$i.json")
done <<'EOF2'
version: 1\nnetwork: [none]\n
version: 2\n
version: 1\ncontainment: {resources: {cpusMax: "0"}}\n
version: 1\ncontainment: {resources: {cpusMax: "1e3"}}\n
version: 1\ncontainment: {writable: [{path: /tmp/, kinds: [tmpfs]}]}\n
version: 1\ncontainment: {writable: [{path: /tmp}]}\n
version: 1\ncontainment: {forbiddenMounts: [{source: /a/../etc, access: any}]}\n
version: 1\ncontainment: {capabilities: {allow: [CAP_SYS_ADMIN]}}\n
version: 1\ncontainment: {namespaces: {host: [pid, pid]}}\n
version: 1\ncontainment: {user: {uids: [-1]}}\n
version: 1\ncontainment: {apparmor: maybe}\n
version: 1\ncollector: {minVersion: "1.2"}\n
version: 1\nevidence: {accept: [kernel]}\n
version: 1\nimages: {pins: ["sha256:abc"]}\n
version: 1\nextends: lax\n
version: 1\ncertificate: {maxCollectionDelay: 5 m}\n
EOF2
ok "PyYAML reads the refused policies" to_json "${bad[@]}"
"$PY" "$CHECK" "$BOXCERT" policy "$T"/bad-*.json >"$OUT" 2>"$ERR"
is "$(grep -c '^INVALID' "$OUT")" "$i" "the schema refuses all $i"
grep '^valid' "$OUT" | sed 's/^/#   /'
done_testing
