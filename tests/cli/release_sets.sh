#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The released certificate sets: fixtures/first-release/ (v1, the first release's code) and
# fixtures/wave-2/ (v2, the wave-2 release's code), each collected from real sessions and
# signed with a key since destroyed. Every later release must verify each certificate under
# each policy named in the set's expected.json with the exit code and the exact failing rules
# (status fail or unknown) recorded there, judged at the set's fixed time (expected.json
# "at"), so the verdicts never depend on the clock.
#
# The policy names are taken from expected.json as written: a name that is a file of the
# set (trust-only.yaml) is that file, any other a built-in profile (strict@1, cis-docker@2).
. "$(dirname "$0")/../lib/testlib.sh"
V=$BOXCERT_BIN/boxcert-verify
PY=/usr/bin/python3
[ -x "$PY" ] || skip_all "no $PY"

# cases: one line per certificate and policy: file, policy name, exit, failing rules (a
# comma-separated list, "-" for none). A broken expected.json prints nothing here.
cases() {
  $PY - "$F/expected.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for cert, entry in sorted(doc["certificates"].items()):
    for policy, want in sorted(entry["verdicts"].items()):
        print("\t".join([cert, policy, str(want["exit"]), ",".join(want["failing"]) or "-"]))
PY
}

# failing REPORT: the rules of the one result of a JSON report whose status is fail or
# unknown, sorted, comma-separated ("-" for none); "<no report>" when REPORT is not one.
failing() {
  $PY - "$1" <<'PY'
import json, sys
try:
    results = json.load(open(sys.argv[1]))["results"]
    assert len(results) == 1
except Exception:
    print("<no report>")
    sys.exit(0)
rules = sorted({f["rule"] for f in results[0]["findings"] if f["status"] in ("fail", "unknown")})
print(",".join(rules) or "-")
PY
}

for SET in first-release wave-2; do
  F=$BOXCERT_SOURCE_DIR/fixtures/$SET
  KEY=$($PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["key"])' "$F/expected.json")
  AT=$($PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["at"])' "$F/expected.json")
  ok "$SET: expected.json names the fixed time of the verdicts" test -n "$AT"
  ok "$SET: the set holds the public key" test -s "$F/$KEY"
  fails "$SET: the set holds no private key" grep -rl -- "PRIVATE KEY" "$F"
  listed=$(cases | cut -f1 | sort -u)
  present=$(cd "$F" && for f in *.intoto.json; do [ -e "$f" ] && echo "$f"; done | sort)
  is "$present" "$listed" "$SET: every certificate of the set has its verdicts in expected.json"

  while IFS=$'\t' read -r -u 3 cert policy want_rc want_failing; do
    arg=$policy
    [ -f "$F/$policy" ] && arg=$F/$policy
    expect_rc "$want_rc" "$SET/$cert under $policy: exit $want_rc" \
      "$V" verify "$F/$cert" --policy "$arg" --key "$F/$KEY" --format json --at "$AT"
    is "$(failing "$OUT")" "$want_failing" "$SET/$cert under $policy: failing rules"
  done 3< <(cases)
done
done_testing
