#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The worked example of docs/certificate.md, run exactly as written there (the shell blocks
# after <!-- example: ed25519 --> and <!-- example: p256 -->) on golden certificates: the
# openssl command line alone verifies a boxcert signature, and finds the keyid and the
# certificateId boxcert reports.
. "$(dirname "$0")/../lib/testlib.sh"
V=$BOXCERT_BIN/boxcert-verify
DOC=$BOXCERT_SOURCE_DIR/docs/certificate.md
F=$BOXCERT_SOURCE_DIR/fixtures/certificate
command -v openssl >/dev/null || skip_all "no openssl"

# example NAME: the first fenced block after <!-- example: NAME --> in the doc.
example() {
  awk -v tag="<!-- example: $1 -->" '
    $0 == tag { found = 1; next }
    found && /^```/ { if (inside) exit; inside = 1; next }
    inside { print }' "$DOC"
}

# run_example NAME CASE KEY [fail]: run it in a fresh folder holding cert.intoto.json and
# signer.pub; it must succeed (or, with fail, exit non-zero). Its output lands in
# $T/NAME/out (stdout and stderr).
run_example() {
  local dir=$T/$1 check=ok
  [ "${4:-}" = fail ] && check=fails
  rm -rf "$dir"
  mkdir -p "$dir"
  example "$1" >"$dir/example.sh"
  cp "$F/$2/cert.intoto.json" "$dir/cert.intoto.json"
  cp "$F/keys/$3" "$dir/signer.pub"
  ok "the $1 example is in the doc" test -s "$dir/example.sh"
  $check "the $1 example on $2 ${4:-runs}" bash -c "cd '$dir' && bash -eu -o pipefail example.sh 2>&1"
  cp "$OUT" "$dir/out"
}

certificate_id() { # boxcert's own certificateId of a golden case
  "$V" verify "$F/$1/cert.intoto.json" --policy "$F/policy.yaml" --at 2026-06-01T00:00:00Z \
    --format json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["certificateId"])'
}

run_example ed25519 valid/ed25519 regress-ed25519.pub
out=$T/ed25519/out
like "$out" '^Signature Verified Successfully$' "openssl pkeyutl -rawin verifies the Ed25519 signature"
kid=$(openssl pkey -pubin -in "$F/keys/regress-ed25519.pub" -outform DER | sha256sum | cut -c1-64)
is "$(grep -c "^$kid\$" "$out")" 2 "the keyid computed by openssl is the hint in the envelope"
is "$(tail -n 1 "$out")" "$(certificate_id valid/ed25519)" "sha256sum of the payload is boxcert's certificateId"

run_example p256 valid/p256-der regress-p256.pub
like "$T/p256/out" '^Verified OK$' "openssl dgst -sha256 verifies the P-256 DER signature"

# URL-safe base64 works through the same commands.
run_example ed25519 valid/url-safe-base64 regress-ed25519.pub
like "$T/ed25519/out" '^Signature Verified Successfully$' "the example handles URL-safe base64"

# And the example does not verify what it should not.
run_example ed25519 invalid/payload-changed-after-signing regress-ed25519.pub fail
like "$T/ed25519/out" 'Signature Verification Failure' "a changed payload fails with openssl too"
run_example ed25519 invalid/signature-over-other-payload-type regress-ed25519.pub fail
like "$T/ed25519/out" 'Signature Verification Failure' "a signature over another payloadType fails"
done_testing
