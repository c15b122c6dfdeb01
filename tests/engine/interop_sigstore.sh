#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Interop: certificates from a real session verified by @sigstore/verify (npm), a
# verifier no one here wrote, offline against the raw public key; a tampered one fails.
. "$(dirname "$0")/../lib/testlib.sh"
need_engine
SIGSTORE_VERIFY_VERSION=2.1.1   # 2.1.x accepts node ^18.17 || >=20.5
dir=${BOXCERT_BUILD_DIR:-$BOXCERT_SOURCE_DIR/build}/interop
if [ ! -f "$dir/node_modules/@sigstore/verify/package.json" ] ||
   ! grep -q "\"version\": \"$SIGSTORE_VERIFY_VERSION\"" "$dir/node_modules/@sigstore/verify/package.json"; then
  mkdir -p "$dir"
  if ! (cd "$dir" && [ -f package.json ] || echo '{"private":true}' >package.json; \
        timeout 300 npm install --no-audit --no-fund --silent "@sigstore/verify@$SIGSTORE_VERIFY_VERSION") >"$T/npm.log" 2>&1; then
    sed 's/^/# /' "$T/npm.log" | tail -n 20
    skip_all "npm install @sigstore/verify@$SIGSTORE_VERIFY_VERSION failed (the npm registry)"
  fi
fi
export NODE_PATH=$dir/node_modules
JS=$BOXCERT_SOURCE_DIR/tests/interop/sigstore_verify.js

"$BOXCERT" keygen --out "$T/ed" >/dev/null
"$BOXCERT" keygen --out "$T/ec" --alg ecdsa-p256 >/dev/null
id=$(session interop --network none --read-only --cap-drop ALL)
ok "collect Ed25519" "$BOXCERT" collect "$id" --key "$T/ed.key" --out "$T/ed.intoto.json"
ok "collect P-256" "$BOXCERT" collect "$id" --key "$T/ec.key" --out "$T/ec.intoto.json"
ok "collect with both keys" "$BOXCERT" collect "$id" --key "$T/ec.key" --key "$T/ed.key" --out "$T/both.intoto.json"

ok "@sigstore/verify accepts the Ed25519 envelope" node "$JS" "$T/ed.intoto.json" "$T/ed.pub"
ok "@sigstore/verify accepts the P-256 envelope" node "$JS" "$T/ec.intoto.json" "$T/ec.pub"
ok "@sigstore/verify accepts the Ed25519 signature of a two-signature envelope" node "$JS" "$T/both.intoto.json" "$T/ed.pub"
ok "@sigstore/verify accepts the P-256 signature of a two-signature envelope" node "$JS" "$T/both.intoto.json" "$T/ec.pub"
fails "@sigstore/verify rejects the envelope under another key" node "$JS" "$T/ed.intoto.json" "$T/ec.pub"

for k in ed ec; do
  /usr/bin/python3 - "$T/$k.intoto.json" "$T/$k-tampered.intoto.json" <<'PY'
import base64, json, sys
env = json.load(open(sys.argv[1]))
p = bytearray(base64.b64decode(env["payload"]))
p[-2] ^= 1
env["payload"] = base64.b64encode(bytes(p)).decode()
json.dump(env, open(sys.argv[2], "w"))
PY
  fails "@sigstore/verify rejects a tampered $k envelope" node "$JS" "$T/$k-tampered.intoto.json" "$T/$k.pub"
  like "$OUT" 'rejected by @sigstore/verify' "... and says so ($k)"
done
done_testing
