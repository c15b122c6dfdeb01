#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Golden certificates: fixtures/certificate/{valid,invalid}/<case>/ with cert.intoto.json,
# expected.json and CASE (made by scripts/mkfixtures-certificate.sh). expected.json:
#   {"exit": 0|1|2,
#    "rule": "<rule id that must be failed>"      (invalid cases that get a report)
#    "args": ["--threshold", "2", ...]            (extra verify arguments)
#    "policy": "policy.yaml"                      (the case's own; default ../../policy.yaml)
#    "message": "<ERE the failed finding's message must match>"}
# verify runs in the case's folder, --at 2026-06-01T00:00:00Z unless args give --at.
# A valid certificate, its payload and the report are also checked against the schemas.
. "$(dirname "$0")/lib/testlib.sh"
V=$BOXCERT_BIN/boxcert-verify
PY=/usr/bin/python3
case_dir=${1:?usage: fixture_certificate.sh CASE_DIR}
name=$(basename "$(dirname "$case_dir")")/$(basename "$case_dir")

# expected.json as shell-quoted assignments
eval "$("$PY" - "$case_dir/expected.json" <<'PY'
import json, shlex, sys
e = json.load(open(sys.argv[1]))
allowed = {"exit", "rule", "args", "policy", "message"}
assert set(e) <= allowed, f"unknown members in expected.json: {set(e) - allowed}"
print("want_exit=%d" % e["exit"])
print("want_rule=%s" % shlex.quote(e.get("rule", "")))
print("want_message=%s" % shlex.quote(e.get("message", "")))
print("policy=%s" % shlex.quote(e.get("policy", "../../policy.yaml")))
print("args=(%s)" % " ".join(shlex.quote(a) for a in e.get("args", [])))
PY
)" || { echo "Bail out! $case_dir/expected.json is unreadable"; exit 1; }

at=(--at 2026-06-01T00:00:00Z)
for a in "${args[@]}"; do [ "$a" = "--at" ] && at=(); done

cd "$case_dir" || exit 1
expect_rc "$want_exit" "$name: verify exits $want_exit" \
  "$V" verify cert.intoto.json --policy "$policy" --format json "${at[@]}" "${args[@]}"
cp "$OUT" "$T/report.json"

if [ "$want_exit" -eq 2 ]; then
  is "$(wc -l <"$ERR")" 1 "$name: one line on stderr"
  like "$ERR" '^boxcert-verify: [^ ]' "$name: the error line starts with boxcert-verify: (once)"
  done_testing
fi

# The failed findings of the one result: "rule<TAB>message" lines.
"$PY" - "$T/report.json" >"$T/failed" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r["results"]) == 1, "one result"
for f in r["results"][0]["findings"]:
    if f["status"] in ("fail", "unknown"):
        print(f"{f['rule']}\t{f['message']}")
PY
is "$?" 0 "$name: the report is JSON with one result"

if [ -n "$want_rule" ]; then
  like "$T/failed" "^${want_rule//./\\.}	" "$name: $want_rule fails"
  if [ -n "$want_message" ]; then
    grep -F "$want_rule	" "$T/failed" | cut -f2- >"$T/message"
    like "$T/message" "$want_message" "$name: the message says where ($want_message)"
  fi
  # Steps 1 to 8b stop at the first failure: nothing else is reported failed.
  is "$(cut -f1 "$T/failed" | sort -u | tr '\n' ' ')" "$want_rule " "$name: only $want_rule fails"
else
  is "$(wc -l <"$T/failed")" 0 "$name: no finding fails"
  check_schema certificate "$case_dir/cert.intoto.json"
  check_schema report "$T/report.json"
fi
done_testing
