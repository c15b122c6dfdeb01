#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One real certificate from a real engine to an offline verdict.
. "$(dirname "$0")/../lib/testlib.sh"
need_engine
PY=/usr/bin/python3
V=$BOXCERT_BIN/boxcert-verify
POLICY=$BOXCERT_SOURCE_DIR/examples/policies/demo.yaml

"$BOXCERT" keygen --out "$T/k" >/dev/null
"$BOXCERT" keygen --out "$T/other" >/dev/null
"$BOXCERT" keygen --out "$T/p256" --alg ecdsa-p256 >/dev/null

hardened=$(session hardened --network none --read-only --cap-drop ALL \
  --security-opt no-new-privileges --pids-limit 64 --memory 256m --tmpfs /tmp:size=64m)
net=bxt-$RUN_ID-net
"$DOCKER" network create --internal --label "boxcert.test=$RUN_ID" "$net" >/dev/null
weak=$(session weak --network "$net")

ok "collect the hardened session" "$BOXCERT" collect "$hardened" --key "$T/k.key" --out "$T/h.intoto.json"
ok "collect the weak session" "$BOXCERT" collect "$weak" --key "$T/k.key" --out "$T/w.intoto.json"
ok "collect with P-256 and Ed25519 together" "$BOXCERT" collect "$hardened" --key "$T/p256.key" \
  --key "$T/k.key" --out "$T/h2.intoto.json"

# The payload, as anyone can decode it.
$PY - "$T/h.intoto.json" >"$T/h.statement.json" <<'PY'
import base64, json, sys
env = json.load(open(sys.argv[1]))
assert env["payloadType"] == "application/vnd.in-toto+json"
print(base64.b64decode(env["payload"]).decode())
PY
like "$T/h.statement.json" '"predicateType":"urn:boxcert:containment:v3"' "statement carries the containment predicate"
like "$T/h.statement.json" "\"containerId\":\"$hardened\"" "statement names the session's container"
like "$T/h.statement.json" '"readOnly":true' "rootfs read-only recorded"
like "$T/h.statement.json" '"level":"engine\+kernel"' "evidence level engine+kernel (the session's processes read on this host)"

check_schema certificate "$T/h.intoto.json" "$T/w.intoto.json" "$T/h2.intoto.json"

# Verdicts.
ok "hardened certificate verifies under the demo policy" "$V" verify "$T/h.intoto.json" \
  --policy "$POLICY" --key "$T/k.pub"
like "$OUT" '^PASS ' "PASS line"
ok "two signatures, both keys trusted, threshold 2" "$V" verify "$T/h2.intoto.json" \
  --policy "$POLICY" --key "$T/k.pub" --key "$T/p256.pub" --threshold 2
expect_rc 1 "bridge session fails" "$V" verify "$T/w.intoto.json" --policy "$POLICY" --key "$T/k.pub"
like "$OUT" 'fail containment.network:' "the bridge session fails containment.network"
like "$OUT" 'fail containment.rootfs:' "and containment.rootfs"
like "$OUT" 'fail containment.capabilities:' "and containment.capabilities"
like "$OUT" 'fail containment.no_new_privileges:' "and containment.no_new_privileges"

expect_rc 1 "json report (one fails: exit 1)" "$V" verify "$T/h.intoto.json" "$T/w.intoto.json" --policy "$POLICY" \
  --key "$T/k.pub" --format json --output "$T/report.json"
check_schema report "$T/report.json"
$PY - "$T/report.json" >"$T/report.txt" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for x in r["results"]:
    failed = sorted(f["rule"] for f in x["findings"] if f["status"] in ("fail", "unknown"))
    print(x["verdict"], ",".join(failed))
print("summary", r["summary"]["passed"], r["summary"]["failed"])
PY
like "$T/report.txt" '^pass $' "json: hardened passes with no failed finding"
like "$T/report.txt" '^fail .*containment\.network' "json: weak fails containment.network"
like "$T/report.txt" '^summary 1 1$' "json summary"

# Tampering and the wrong key.
$PY - "$T/h.intoto.json" "$T/tampered.intoto.json" <<'PY'
import base64, json, sys
env = json.load(open(sys.argv[1]))
p = bytearray(base64.b64decode(env["payload"]))
i = p.index(b'"readOnly":true') + len('"readOnly":')
p[i] ^= 0x20  # "true" -> "True": one byte changed
env["payload"] = base64.b64encode(bytes(p)).decode()
json.dump(env, open(sys.argv[2], "w"), separators=(",", ":"))
PY
expect_rc 1 "one payload byte changed fails" "$V" verify "$T/tampered.intoto.json" --policy "$POLICY" --key "$T/k.pub"
like "$OUT" 'fail signature.threshold:' "... with signature.threshold"
expect_rc 1 "checked against a different key fails" "$V" verify "$T/h.intoto.json" --policy "$POLICY" --key "$T/other.pub"
like "$OUT" 'fail signature.threshold:' "... with signature.threshold"

# Fail-closed collection: a stopped session gives no certificate and no file.
"$DOCKER" stop -t 0 "$weak" >/dev/null
expect_rc 1 "collect refuses a stopped session" "$BOXCERT" collect "$weak" --key "$T/k.key" --out "$T/stopped.intoto.json"
ok "and writes no file" test ! -e "$T/stopped.intoto.json"
expect_rc 1 "collect refuses an unexpected image" "$BOXCERT" collect "$hardened" --key "$T/k.key" \
  --expect-image "sha256:$(printf '0%.0s' {1..64})" --out "$T/img.intoto.json"
ok "and writes no file" test ! -e "$T/img.intoto.json"
img=$("$DOCKER" image inspect --format '{{.Id}}' "$SESSION_IMAGE")
ok "collect accepts the expected image" "$BOXCERT" collect "$hardened" --key "$T/k.key" \
  --expect-image "$img" --out "$T/img.intoto.json"
done_testing
