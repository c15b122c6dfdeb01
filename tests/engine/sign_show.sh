#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# boxcert sign: verify, then countersign without touching the payload.
# boxcert show: the statement, printed only once it verifies.
. "$(dirname "$0")/../lib/testlib.sh"
need_engine
PY=/usr/bin/python3
V=$BOXCERT_BIN/boxcert-verify
"$BOXCERT" keygen --out "$T/collector" >/dev/null
"$BOXCERT" keygen --out "$T/operator" --alg ecdsa-p256 >/dev/null
"$BOXCERT" keygen --out "$T/stranger" >/dev/null
id=$(session signed --network none --read-only --cap-drop ALL --security-opt no-new-privileges \
  --pids-limit 64 --memory 256m --tmpfs /tmp:size=64m)
weak=$(session weak)
"$BOXCERT" collect "$id" --key "$T/collector.key" --out "$T/c.intoto.json"
"$BOXCERT" collect "$weak" --key "$T/collector.key" --out "$T/w.intoto.json"
payload() { $PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["payload"])' "$1"; }
nsigs() { $PY -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["signatures"]))' "$1"; }

ok "countersign a certificate that verifies under strict" "$BOXCERT" sign "$T/c.intoto.json" \
  --key "$T/operator.key" --policy strict --verify-key "$T/collector.pub" --out "$T/cs.intoto.json"
is "$(nsigs "$T/cs.intoto.json")" 2 "two signatures now"
is "$(payload "$T/cs.intoto.json")" "$(payload "$T/c.intoto.json")" "the payload is untouched"
"$V" verify "$T/c.intoto.json" --policy strict --key "$T/collector.pub" --format json >"$T/a.json"
"$V" verify "$T/cs.intoto.json" --policy strict --key "$T/collector.pub" --format json >"$T/b.json"
is "$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["certificateId"])' "$T/a.json")" \
   "$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["certificateId"])' "$T/b.json")" \
   "the certificateId is the same"
ok "threshold 2 with both keys passes" "$V" verify "$T/cs.intoto.json" --policy strict \
  --key "$T/collector.pub" --key "$T/operator.pub" --threshold 2
expect_rc 1 "threshold 2 on the original fails" "$V" verify "$T/c.intoto.json" --policy strict \
  --key "$T/collector.pub" --key "$T/operator.pub" --threshold 2
ok "signing again with the same key" "$BOXCERT" sign "$T/cs.intoto.json" --key "$T/operator.key" \
  --policy strict --verify-key "$T/collector.pub" --out "$T/cs2.intoto.json"
is "$(nsigs "$T/cs2.intoto.json")" 2 "... adds no second signature by one key"
check_schema certificate "$T/cs.intoto.json"

expect_rc 1 "a certificate that fails the policy is not countersigned" "$BOXCERT" sign "$T/w.intoto.json" \
  --key "$T/operator.key" --policy strict --verify-key "$T/collector.pub" --out "$T/ws.intoto.json"
ok "... and nothing is written" test ! -e "$T/ws.intoto.json"
expect_rc 1 "a certificate from an untrusted key is not countersigned" "$BOXCERT" sign "$T/c.intoto.json" \
  --key "$T/operator.key" --policy strict --verify-key "$T/stranger.pub" --out "$T/us.intoto.json"
ok "... and nothing is written" test ! -e "$T/us.intoto.json"

ok "show prints the verified statement" "$V" show "$T/c.intoto.json" --policy strict --key "$T/collector.pub"
like "$OUT" '"predicateType": "urn:boxcert:containment:v3"' "... the statement"
expect_rc 1 "show of a certificate signed by an untrusted key" "$V" show "$T/c.intoto.json" \
  --policy strict --key "$T/stranger.pub"
is "$(wc -c <"$OUT")" 0 "... prints nothing from it on stdout"
like "$ERR" 'fail signature.threshold' "... and says why on stderr"
done_testing
