#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The JSON Schemas of `boxcert schema NAME`: each is itself a valid draft 2020-12 schema;
# statement's inline predicate-vN is predicate-vN's, and the ones made from the containment
# table at build time are those checked in; the golden certificates, their payloads and
# a JSON report of verifying them all validate; and the schemas agree with boxcert's own
# closed schema on the golden certificates (where JSON Schema can say it).
. "$(dirname "$0")/../lib/testlib.sh"
PY=/usr/bin/python3
V=$BOXCERT_BIN/boxcert-verify
F=$BOXCERT_SOURCE_DIR/fixtures/certificate
"$PY" -c 'import jsonschema' 2>/dev/null || skip_all "no python3-jsonschema (scripts/deps.sh)"

names=$("$BOXCERT" schema --help | sed -n 's/^Names: predicate (the latest version.s) //p')
for n in certificate predicate-v1 predicate-v2 predicate-v3 report statement requested; do
  like <(echo "$names") "(^| )$n( |$)" "boxcert schema knows $n"
done
"$BOXCERT" schema predicate >"$T/predicate.json"
"$BOXCERT" schema predicate-v3 >"$T/latest.json"
ok "schema predicate is the latest version's" cmp -s "$T/predicate.json" "$T/latest.json"

# The schemas made from the containment table at build time are the ones checked in.
for n in predicate-v1 predicate-v2 predicate-v3 statement requested; do
  gen=$BOXCERT_BIN/../generated/schemas/$n.schema.json
  ok "schema/schemas/$n.schema.json is the generated one (make schemas refreshes it)" \
    cmp -s "$gen" "$BOXCERT_SOURCE_DIR/schema/schemas/$n.schema.json"
  ok "boxcert schema $n prints the generated one" cmp -s "$gen" <("$BOXCERT" schema "$n")
done
for n in $names; do
  "$BOXCERT" schema "$n" >"$T/$n.json"
  ok "schema $n is a valid draft 2020-12 schema" "$PY" -c '
import json, sys
from jsonschema import Draft202012Validator
s = json.load(open(sys.argv[1]))
assert s.get("$schema") == "https://json-schema.org/draft/2020-12/schema", "no draft 2020-12 $schema"
Draft202012Validator.check_schema(s)' "$T/$n.json"
done

for v in 1 2 3; do
  ok "statement's \$defs/predicate-v$v is predicate-v$v's schema" "$PY" - "$T/statement.json" "$T/predicate-v$v.json" "$v" <<'PY'
import json, sys
st, pr = (json.load(open(p)) for p in sys.argv[1:3])
body = {k: v for k, v in pr.items() if k not in ("$schema", "$id", "title", "$defs")}
assert st["$defs"]["predicate-v" + sys.argv[3]] == body, "statement.$defs.predicate-vN differs"
for k, v in pr["$defs"].items():
    assert st["$defs"].get(k) == v, f"$defs/{k} differs"
PY
done

valid=("$F"/valid/*/cert.intoto.json)
check_schema certificate "${valid[@]}"

# One JSON report over every golden certificate, valid and invalid: a report of failures
# is a report too.
expect_rc 1 "verify every golden certificate (some fail)" "$V" verify "$F"/valid/*/cert.intoto.json \
  "$F"/invalid/*/cert.intoto.json --policy "$F/policy.yaml" --at 2026-06-01T00:00:00Z \
  --format json --output "$T/report.json"
check_schema report "$T/report.json"
ok "the report has a result per certificate" "$PY" -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["summary"]["total"] == int(sys.argv[2]) == len(r["results"]), r["summary"]' \
  "$T/report.json" "$(ls "$F"/valid/*/cert.intoto.json "$F"/invalid/*/cert.intoto.json | wc -l)"

# JSON Schema and the closed schema in C agree on every golden statement, but for what
# JSON Schema cannot say (sort orders, expiresAt after issuedAt).
ok "the statement schema agrees with boxcert on the golden certificates" "$PY" - "$F" "$T/statement.json" <<'PY'
import base64, glob, json, os, sys
from jsonschema import Draft202012Validator
root, schema = sys.argv[1], json.load(open(sys.argv[2]))
v = Draft202012Validator(schema)
beyond = {"predicate-unsorted-list", "predicate-expires-before-issued"}
bad = []
for d in sorted(glob.glob(root + "/*/*/")):
    name = os.path.basename(d.rstrip("/"))
    exp = json.load(open(d + "expected.json"))
    try:
        env = json.load(open(d + "cert.intoto.json"))
        st = json.loads(base64.b64decode(env["payload"].replace("-", "+").replace("_", "/"), validate=True))
    except Exception:
        continue  # refused before the statement: nothing for the schema to say
    msg = exp.get("message", "")
    if exp.get("rule") == "signature.threshold":
        continue  # the payload is not what was signed
    statement_level = exp.get("rule") in ("certificate.format", "certificate.type") and \
        msg.startswith(("^/predicate", "^/subject", "^/extra", "^/_type", "^/predicateType"))
    if exp["exit"] == 0 or exp.get("rule") not in ("certificate.format", "certificate.type"):
        want = True
    elif statement_level:
        want = name in beyond
    else:
        continue  # a parsing rule (JCS, floats, ...) below the JSON data model
    got = v.is_valid(st)
    if got != want:
        err = next(iter(v.iter_errors(st)), None)
        bad.append(f"{name}: schema says {'valid' if got else 'invalid'}"
                   + (f" ({list(err.absolute_path)}: {err.message[:120]})" if err else ""))
for b in bad:
    print("#   " + b)
sys.exit(1 if bad else 0)
PY
grep '^#' "$OUT" | head -n 20
done_testing
