#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What collect prints: the certificate ID (the verifier's certificateId) on stdout when the
# certificate goes to a file, on stderr when it goes to stdout (--out - or none); with
# --format json one result object; --quiet nothing; BOXCERT_SIGNING_KEY and BOXCERT_ENGINE.
. "$(dirname "$0")/../lib/testlib.sh"
need_engine
V=$BOXCERT_BIN/boxcert-verify
cd "$T" || exit 1
"$BOXCERT" keygen --out "$T/k" >/dev/null
s=$(session result --network none --read-only --cap-drop ALL --security-opt no-new-privileges)

ok "collect --out FILE" "$BOXCERT" collect "$s" --key "$T/k.key" --out "$T/a.intoto.json"
id=$(cat "$OUT")
like "$OUT" '^[0-9a-f]{64}$' "prints the certificate ID on stdout"
is "$(wc -c <"$ERR")" 0 "and nothing on stderr"
"$V" verify "$T/a.intoto.json" --policy strict --key "$T/k.pub" --format json >"$T/r.json"
is "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["certificateId"])' "$T/r.json")" \
  "$id" "the ID is the verifier's certificateId"

ok "collect --out -" "$BOXCERT" collect "$s" --key "$T/k.key" --out -
cp "$OUT" "$T/out.json"
like "$ERR" '^boxcert: certificate [0-9a-f]{64}$' "... the ID on stderr, prefixed once"
ok "... the certificate on stdout" python3 -c 'import json,sys; json.load(open(sys.argv[1]))["payload"]' "$T/out.json"
ok "... and no file named -" test ! -e ./-

ok "collect --format json" "$BOXCERT" collect "$s" --key "$T/k.key" --out "$T/b.intoto.json" --format json
cp "$OUT" "$T/b.json"
ok "... one result object" python3 - "$T/b.json" "$s" "$T/b.intoto.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert set(r) == {"certificateId", "file", "session", "image", "issuedAt", "expiresAt",
                  "evidenceLevel", "predicateType", "keyids"}, r
assert r["session"]["containerId"] == sys.argv[2], r
assert r["file"] == sys.argv[3], r
assert len(r["certificateId"]) == 64 and len(r["keyids"]) == 1, r
PY

ok "collect --quiet" "$BOXCERT" collect --quiet "$s" --key "$T/k.key" --out "$T/c.intoto.json"
is "$(cat "$OUT" "$ERR")" "" "... prints nothing"
ok "BOXCERT_SIGNING_KEY and BOXCERT_ENGINE for --key and --engine" env BOXCERT_SIGNING_KEY="$T/k.key" \
  BOXCERT_ENGINE="${DOCKER_HOST:-unix:///var/run/docker.sock}" "$BOXCERT" collect "$s" --out "$T/d.intoto.json"
expect_rc 3 "--engine wins over BOXCERT_ENGINE" env BOXCERT_ENGINE=unix:///nonexistent.sock \
  "$BOXCERT" collect "$s" --key "$T/k.key" --out "$T/e.intoto.json" --engine unix:///nonexistent2.sock
like "$ERR" 'nonexistent2' "... the flag's engine is the one tried"
done_testing
