#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Regenerate fixtures/certificate/{valid,invalid}/<case>/ with tests/tools/mkcert:
#   cert.intoto.json, expected.json ({exit, rule?, args?, policy?, message?}), CASE and,
#   for some cases, a policy.yaml of their own.
# usage: scripts/mkfixtures-certificate.sh [BUILD_DIR]   (default build; needs mkcert built:
#        cmake --build BUILD --target mkcert)
# Deterministic for Ed25519 (same bytes every run); ECDSA signatures differ each run, which
# no expected.json pins. Every case starts from one statement: the predicate built from
# fixtures/inspect/hardened at issuedAt 2026-01-01T00:00:00Z with a 3650d ttl.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
MK=$build/tests/tools/mkcert
F=$src/fixtures/certificate
if [ ! -x "$MK" ]; then
  echo "mkfixtures-certificate.sh: no $MK (cmake --build $build --target mkcert)" >&2
  exit 1
fi

# git keeps no mode 0600, which private keys need to load: use copies.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for k in "$F"/keys/*.key; do
  install -m 600 "$k" "$tmp/"
done
ED=$tmp/regress-ed25519.key
ED_B=$tmp/regress-ed25519-b.key
P256=$tmp/regress-p256.key
UNTRUSTED=$tmp/regress-untrusted.key
P256_KEYID=$(openssl pkey -pubin -in "$F/keys/regress-p256.pub" -outform DER | sha256sum | cut -c1-64)
BASE=$tmp/statement.json
"$MK" statement --inspect "$src/fixtures/inspect/hardened" >"$BASE"
"$MK" statement --inspect "$src/fixtures/inspect/hardened" \
  --source 0123456789abcdef0123456789abcdef01234567 >"$tmp/source.json"

rm -rf "$F/valid" "$F/invalid"

# mk KIND/NAME [mkcert envelope arguments]: the certificate of a case.
mk() {
  local dir=$F/$1
  shift
  mkdir -p "$dir"
  : >"$dir/CASE"
  "$MK" envelope --statement "$BASE" "$@" >"$dir/cert.intoto.json"
}

# expect KIND/NAME EXIT [RULE] [ARGS (JSON list items)] [POLICY] [MESSAGE (an ERE)]
expect() {
  local dir=$F/$1 exit=$2 rule=${3:-} args=${4:-} policy=${5:-} message=${6:-}
  {
    printf '{"exit": %s' "$exit"
    [ -n "$rule" ] && printf ', "rule": "%s"' "$rule"
    [ -n "$args" ] && printf ', "args": [%s]' "$args"
    [ -n "$policy" ] && printf ', "policy": "%s"' "$policy"
    [ -n "$message" ] && printf ', "message": "%s"' "$message"
    printf '}\n'
  } >"$dir/expected.json"
}

# policy KIND/NAME: a policy.yaml of the case's own from stdin.
policy() {
  mkdir -p "$F/$1"
  cat >"$F/$1/policy.yaml"
}

TRUST_ED='    - file: ../../keys/regress-ed25519.pub
      name: regress-ed25519'

# ---- valid -----------------------------------------------------------------------------
mk valid/ed25519 --key "$ED"
expect valid/ed25519 0

mk valid/p256-der --key "$P256"
expect valid/p256-der 0

mk valid/p256-p1363 --key-p1363 "$P256"
policy valid/p256-p1363 <<'EOF'
version: 1
trust:
  keys:
    - file: ../../keys/regress-p256.pub
      name: regress-p256
      sigEncoding: p1363
EOF
expect valid/p256-p1363 0 "" "" policy.yaml

mk valid/two-keys-threshold-2 --key "$ED" --key "$P256"
expect valid/two-keys-threshold-2 0 "" '"--threshold", "2"'

# JSON text rarely encodes to + or /: a label of ?s and >s makes sure it does.
PLUS_SLASH=(--set /predicate/session/labels/note '"???>>>"' --fix-inputs)
mk valid/url-safe-base64 "${PLUS_SLASH[@]}" --key "$ED" --b64 url
expect valid/url-safe-base64 0

mk valid/keyid-empty --keyid empty --key "$ED"
expect valid/keyid-empty 0

mk valid/keyid-absent --keyid absent --key "$ED"
expect valid/keyid-absent 0

mk valid/keyid-unknown --keyid 00000000000000000000000000000000000000000000000000000000000000ff \
  --key "$ED"
expect valid/keyid-unknown 0

# The hint names another trusted key: a hint only orders the work.
mk valid/keyid-other-trusted-key --keyid "$P256_KEYID" --key "$ED"
expect valid/keyid-other-trusted-key 0

mk valid/untrusted-and-trusted --key "$UNTRUSTED" --key "$ED"
expect valid/untrusted-and-trusted 0

mk valid/with-source --statement "$tmp/source.json" --key "$ED"
expect valid/with-source 0

# issuedAt - clockSkew (5m) exactly is still valid.
mk valid/not-yet-valid-within-skew --key "$ED"
expect valid/not-yet-valid-within-skew 0 "" '"--at", "2025-12-31T23:55:00Z"'

mk valid/key-window-holds --key "$ED"
policy valid/key-window-holds <<EOF
version: 1
trust:
  keys:
$TRUST_ED
      notBefore: 2026-01-01T00:00:00Z
      notAfter: 2026-01-01T00:00:01Z
EOF
expect valid/key-window-holds 0 "" "" policy.yaml

# ---- invalid: parsing (certificate.format) ------------------------------------------------
mk invalid/envelope-unknown-member --key "$ED" --env-sub '"payloadType"' '"extra":1,"payloadType"'
expect invalid/envelope-unknown-member 1 certificate.format "" "" "unknown member 'extra'"

mk invalid/envelope-unknown-signature-member --key "$ED" --env-sub '"sig"' '"cert":"x","sig"'
expect invalid/envelope-unknown-signature-member 1 certificate.format "" "" \
  "^/signatures/0: envelope: unknown member 'cert'"

mk invalid/envelope-duplicate-key --key "$ED" \
  --env-sub '"payloadType"' '"payloadType":"application/vnd.in-toto+json","payloadType"'
expect invalid/envelope-duplicate-key 1 certificate.format "" "" \
  "^1:[0-9]+: envelope: invalid JSON: duplicate object key"

mk invalid/envelope-case-colliding-keys --key "$ED" --env-sub '"payloadType"' '"PayloadType":"x","payloadType"'
expect invalid/envelope-case-colliding-keys 1 certificate.format "" "" \
  "^/(P|p)ayloadType: envelope: keys differ only in case"

mk invalid/envelope-trailing-bytes --key "$ED" --env-sub '}]}' '}]}{}'
expect invalid/envelope-trailing-bytes 1 certificate.format "" "" "^1:[0-9]+: envelope: invalid JSON"

mk invalid/statement-unknown-member --set /extra true --key "$ED"
expect invalid/statement-unknown-member 1 certificate.format "" "" "^/extra: unknown member"

mk invalid/predicate-unknown-member --set /predicate/containment/network/foo 1 --fix-inputs \
  --key "$ED"
expect invalid/predicate-unknown-member 1 certificate.format "" "" \
  "^/predicate/containment/network/foo: unknown member"

mk invalid/predicate-wrong-type --set /predicate/containment/network/mode 5 --fix-inputs --key "$ED"
expect invalid/predicate-wrong-type 1 certificate.format "" "" \
  "^/predicate/containment/network/mode: expected a string or null, found an integer"

mk invalid/predicate-missing-member --del /predicate/containment/privileged --fix-inputs --key "$ED"
expect invalid/predicate-missing-member 1 certificate.format "" "" \
  "^/predicate/containment/privileged: missing member"

mk invalid/predicate-unknown-enum-value --set /predicate/engine/kind '"lxc"' --key "$ED"
expect invalid/predicate-unknown-enum-value 1 certificate.format "" "" \
  "^/predicate/engine/kind: expected one of"

mk invalid/predicate-unsorted-list --set /predicate/containment/maskedPaths \
  '["/sys/firmware", "/proc/acpi"]' --fix-inputs --key "$ED"
expect invalid/predicate-unsorted-list 1 certificate.format "" "" \
  "^/predicate/containment/maskedPaths/1: list not sorted"

mk invalid/predicate-time-with-offset --set /predicate/issuedAt '"2026-01-01T00:00:00+00:00"' \
  --key "$ED"
expect invalid/predicate-time-with-offset 1 certificate.format "" "" "^/predicate/issuedAt: expected an RFC 3339"

mk invalid/predicate-expires-before-issued --set /predicate/expiresAt '"2025-12-31T00:00:00Z"' \
  --key "$ED"
expect invalid/predicate-expires-before-issued 1 certificate.format "" "" \
  "^/predicate/expiresAt: expiresAt is not after issuedAt"

mk invalid/predicate-source-without-subject --set /predicate/source '{"dirty": false}' --key "$ED"
expect invalid/predicate-source-without-subject 1 certificate.format "" "" "^/predicate/source: "

mk invalid/uppercase-hex --set /predicate/session/containerId \
  '"C34AB363B7ABA303CD2DB5C6ED3A1D6F19EB501255C3523ED3FE359D06512E2C"' --fix-inputs --key "$ED"
expect invalid/uppercase-hex 1 certificate.format "" "" \
  "^/predicate/session/containerId: expected 64 lowercase hex digits"

mk invalid/uppercase-hex-subject --set /subject/0/digest/sha256 \
  '"A718E8935C8E400EF5418BECCF861E21824480777B4F805EB2DA65C283B74E7C"' --key "$ED"
expect invalid/uppercase-hex-subject 1 certificate.format "" "" \
  "^/subject/0/digest/sha256: expected 64 lowercase hex digits"

mk invalid/payload-case-colliding-keys --set /predicate/Nonce '"00"' --key "$ED"
expect invalid/payload-case-colliding-keys 1 certificate.format "" "" \
  "^/predicate/(N|n)once: payload: keys differ only in case"

mk invalid/payload-duplicate-key --sub '"nonce":' '"nonce":"00112233445566778899aabbccddeeff","nonce":' \
  --key "$ED"
expect invalid/payload-duplicate-key 1 certificate.format "" "" \
  "^1:[0-9]+: payload: invalid JSON: duplicate object key"

mk invalid/payload-float --sub '"pid":5895' '"pid":5895.5' --key "$ED"
expect invalid/payload-float 1 certificate.format "" "" \
  "^/predicate/session/pid: payload: not an integer"

mk invalid/payload-minus-zero --sub '"execCount":0' '"execCount":-0' --key "$ED"
expect invalid/payload-minus-zero 1 certificate.format "" "" \
  "^1:[0-9]+: payload: not in canonical JSON \\\\(JCS\\\\) form"

mk invalid/payload-integer-beyond-2-53 --sub '"pid":5895' '"pid":9007199254740993' --key "$ED"
expect invalid/payload-integer-beyond-2-53 1 certificate.format "" "" \
  "^/predicate/session/pid: payload: integer out of range"

mk invalid/payload-nul --sub '"name":"bxc-hardened"' '"name":"bxc\u0000hardened"' --key "$ED"
expect invalid/payload-nul 1 certificate.format "" "" "^1:[0-9]+: payload: invalid JSON: .*NUL"

mk invalid/payload-invalid-utf8 --sub '"name":"bxc-hardened"' '"name":"bxc\xffhardened"' --key "$ED"
expect invalid/payload-invalid-utf8 1 certificate.format "" "" "^1:[0-9]+: payload: invalid JSON"

mk invalid/payload-not-jcs --sub '{"_type"' '{ "_type"' --key "$ED"
expect invalid/payload-not-jcs 1 certificate.format "" "" \
  "^1:2: payload: not in canonical JSON \\\\(JCS\\\\) form"

mk invalid/payload-not-an-object --sub '{"_type"' '[{"_type"' \
  --sub '"name":"image"}]}' '"name":"image"}]}]' --key "$ED"
expect invalid/payload-not-an-object 1 certificate.format "" "" "^payload: not a JSON object"

# ---- invalid: canonical base64 ------------------------------------------------------------
# The base payload's length is a multiple of 3 (no padding): one label more gives it some.
PADDED=(--set /predicate/session/labels/pad '"x"' --fix-inputs)
mk invalid/payload-base64-unpadded "${PADDED[@]}" --key "$ED" --b64 unpadded
expect invalid/payload-base64-unpadded 1 certificate.format "" "" "^/payload: envelope: invalid base64"

mk invalid/payload-base64-pad-bits "${PADDED[@]}" --key "$ED" --b64 padbits
expect invalid/payload-base64-pad-bits 1 certificate.format "" "" "^/payload: envelope: invalid base64"

mk invalid/payload-base64-mixed-alphabets "${PLUS_SLASH[@]}" --key "$ED" --b64 mixed
expect invalid/payload-base64-mixed-alphabets 1 certificate.format "" "" "^/payload: envelope: invalid base64"

mk invalid/payload-base64-newline --key "$ED" --env-sub '"payload":"' '"payload":"\n'
expect invalid/payload-base64-newline 1 certificate.format "" "" "^/payload: envelope: invalid base64"

mk invalid/signature-base64-unpadded --key "$ED" --sig-b64 unpadded
expect invalid/signature-base64-unpadded 1 certificate.format "" "" "^/signatures/0/sig: envelope: invalid base64"

mk invalid/signature-base64-pad-bits --key "$ED" --sig-b64 padbits
expect invalid/signature-base64-pad-bits 1 certificate.format "" "" "^/signatures/0/sig: envelope: invalid base64"

# ---- invalid: types, subject, inputs ------------------------------------------------------
mk invalid/wrong-payload-type --payload-type application/json --key "$ED"
expect invalid/wrong-payload-type 1 certificate.type "" "" "^payloadType is not"

mk invalid/wrong-statement-type --set /_type '"https://in-toto.io/Statement/v0.1"' --key "$ED"
expect invalid/wrong-statement-type 1 certificate.type "" "" "^/_type: _type is not"

mk invalid/wrong-predicate-type --set /predicateType '"https://slsa.dev/provenance/v1"' --key "$ED"
expect invalid/wrong-predicate-type 1 certificate.type "" "" "^/predicateType: predicateType is not"

mk invalid/subject-image-mismatch --set /subject/0/digest/sha256 \
  '"0000000000000000000000000000000000000000000000000000000000000000"' --key "$ED"
expect invalid/subject-image-mismatch 1 certificate.subject

# A containment value changed and re-signed by a trusted key: the hash of the attested
# inputs no longer matches.
mk invalid/inputs-mismatch-resigned --set /predicate/containment/privileged true --key "$ED"
expect invalid/inputs-mismatch-resigned 1 certificate.inputs

# ---- invalid: time -----------------------------------------------------------------------
mk invalid/expired --key "$ED"
expect invalid/expired 1 certificate.expired '"--at", "2036-01-01T00:00:00Z"'

mk invalid/not-yet-valid --key "$ED"
expect invalid/not-yet-valid 1 certificate.not_yet_valid '"--at", "2025-12-31T23:54:59Z"'

# ---- invalid: signatures -----------------------------------------------------------------
mk invalid/signature-over-other-payload-type --sign-type application/json --key "$ED"
expect invalid/signature-over-other-payload-type 1 signature.threshold

mk invalid/payload-changed-after-signing --key "$ED" --env-sub '"payload":"eyJf' '"payload":"eyJg'
expect invalid/payload-changed-after-signing 1 signature.threshold

mk invalid/one-signature-twice-threshold-2 --key "$ED" --dup
expect invalid/one-signature-twice-threshold-2 1 signature.threshold '"--threshold", "2"'

# ECDSA signatures differ: two valid signatures by one key still count once.
mk invalid/two-signatures-one-key-threshold-2 --key "$P256" --key "$P256"
expect invalid/two-signatures-one-key-threshold-2 1 signature.threshold '"--threshold", "2"'

mk invalid/untrusted-key-only --key "$UNTRUSTED"
expect invalid/untrusted-key-only 1 signature.threshold

mk invalid/p1363-where-der-expected --key-p1363 "$P256"
expect invalid/p1363-where-der-expected 1 signature.threshold

mk invalid/der-where-p1363-expected --key "$P256"
policy invalid/der-where-p1363-expected <<'EOF'
version: 1
trust:
  keys:
    - file: ../../keys/regress-p256.pub
      name: regress-p256
      sigEncoding: p1363
EOF
expect invalid/der-where-p1363-expected 1 signature.threshold "" policy.yaml

mk invalid/empty-signature-list
expect invalid/empty-signature-list 1 signature.threshold

mk invalid/key-not-yet-valid-at-issuedat --key "$ED"
policy invalid/key-not-yet-valid-at-issuedat <<EOF
version: 1
trust:
  keys:
$TRUST_ED
      notBefore: 2026-02-01T00:00:00Z
EOF
expect invalid/key-not-yet-valid-at-issuedat 1 signature.key_validity "" policy.yaml

mk invalid/key-expired-at-issuedat --key "$ED"
policy invalid/key-expired-at-issuedat <<EOF
version: 1
trust:
  keys:
$TRUST_ED
      notAfter: 2025-12-31T23:59:59Z
EOF
expect invalid/key-expired-at-issuedat 1 signature.key_validity "" policy.yaml

mk invalid/key-revoked --key "$ED"
policy invalid/key-revoked <<EOF
version: 1
trust:
  keys:
$TRUST_ED
      revoked: true
EOF
expect invalid/key-revoked 1 signature.key_validity "" policy.yaml

# Two signatures meet threshold 2, then one key turns out revoked: re-checked, fails.
mk invalid/threshold-2-one-key-revoked --key "$ED" --key "$ED_B"
policy invalid/threshold-2-one-key-revoked <<EOF
version: 1
trust:
  keys:
$TRUST_ED
    - file: ../../keys/regress-ed25519-b.pub
      name: regress-ed25519-b
      revoked: true
  threshold: 2
EOF
expect invalid/threshold-2-one-key-revoked 1 signature.key_validity "" policy.yaml

mk invalid/too-large --key "$ED"
expect invalid/too-large 1 certificate.too_large '"--max-size", "1000"'

# ---- invalid: the policy does not load (exit 2) ------------------------------------------
mk invalid/policy-key-listed-twice --key "$ED"
policy invalid/policy-key-listed-twice <<EOF
version: 1
trust:
  keys:
$TRUST_ED
    - file: ../../keys/regress-ed25519.pub
      name: regress-ed25519-again
EOF
expect invalid/policy-key-listed-twice 2 "" "" policy.yaml

mk invalid/policy-key-in-two-encodings --key "$ED"
policy invalid/policy-key-in-two-encodings <<'EOF'
version: 1
trust:
  keys:
    - file: ../../keys/regress-p256.pub
      name: regress-p256
    - file: ../../keys/regress-p256-compressed.pub
      name: regress-p256-compressed-point
EOF
expect invalid/policy-key-in-two-encodings 2 "" "" policy.yaml

# One key given twice with --key counts once: threshold 2 is more than the keys.
mk invalid/cli-key-twice-threshold-2 --key "$ED"
policy invalid/cli-key-twice-threshold-2 <<'EOF'
version: 1
EOF
expect invalid/cli-key-twice-threshold-2 2 "" \
  '"--key", "../../keys/regress-ed25519.pub", "--key", "../../keys/regress-ed25519.pub", "--threshold", "2"' \
  policy.yaml

# ---- the fuzz corpora, seeded from the cases ----------------------------------------------
# statement: every distinct decoded payload; envelope: a few certificates of each kind.
C=$src/fuzz/corpus
mkdir -p "$C/statement" "$C/envelope"
rm -f "$C"/statement/valid-*.json "$C"/statement/invalid-*.json "$C"/envelope/valid-*.json \
  "$C"/envelope/invalid-*.json
declare -A seen=()
for d in "$F"/valid/*/ "$F"/invalid/*/; do
  kind=$(basename "$(dirname "$d")")
  name=$(basename "$d")
  payload=$tmp/payload
  cut -d'"' -f4 "$d/cert.intoto.json" | tr -- '-_' '+/' | base64 -d >"$payload" 2>/dev/null || continue
  sum=$(sha256sum <"$payload" | cut -c1-64)
  [ -n "${seen[$sum]:-}" ] && continue
  seen[$sum]=1
  cp "$payload" "$C/statement/$kind-$name.json"
done
for c in valid/ed25519 valid/p256-der valid/p256-p1363 valid/two-keys-threshold-2 \
  valid/url-safe-base64 valid/keyid-absent valid/with-source invalid/envelope-unknown-member \
  invalid/envelope-duplicate-key invalid/payload-float invalid/payload-not-jcs \
  invalid/payload-base64-mixed-alphabets invalid/signature-base64-pad-bits \
  invalid/one-signature-twice-threshold-2 invalid/empty-signature-list \
  invalid/inputs-mismatch-resigned invalid/predicate-unsorted-list invalid/wrong-payload-type \
  invalid/p1363-where-der-expected; do
  cp "$F/$c/cert.intoto.json" "$C/envelope/${c/\//-}.json"
done

echo "mkfixtures-certificate.sh: $(ls "$F/valid" | wc -l) valid, $(ls "$F/invalid" | wc -l) invalid cases"
