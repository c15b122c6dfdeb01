#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The statement fuzz seeds written by difference (fuzz/seeds/statement/, merge patches over
# fixtures/base/statement.json, expanded by the build) mean what their names say: each one
# that is JSON, signed by a trusted key, verifies (valid-*) or is refused by the verifier's
# own steps (invalid-*: certificate.format, .type, .subject or .inputs, exit 1). The base
# itself passes strict, the profile it stands for.
. "$(dirname "$0")/../lib/testlib.sh"
BUILD=${BOXCERT_BUILD_DIR:-$BOXCERT_SOURCE_DIR/build}
MK=$BUILD/tests/tools/mkcert
V=$BOXCERT_BIN/boxcert-verify
K=$T/regress-ed25519
cp "$BOXCERT_SOURCE_DIR/fixtures/certificate/keys/regress-ed25519.key" "$BOXCERT_SOURCE_DIR/fixtures/certificate/keys/regress-ed25519.pub" "$T/"
chmod 600 "$K.key"
SEEDS=$BUILD/fuzz/corpus/statement
AT=(--at 2026-05-28T20:10:00Z)
printf 'version: 1\n' >"$T/trust.yaml"

n=0
for f in "$SEEDS"/valid-* "$SEEDS"/invalid-predicate-* "$SEEDS"/invalid-statement-* \
  "$SEEDS"/invalid-subject-* "$SEEDS"/invalid-uppercase-* "$SEEDS"/invalid-wrong-* \
  "$SEEDS"/invalid-newer-* "$SEEDS"/invalid-inputs-*; do
  [ -f "$f" ] || continue
  n=$((n + 1))
  name=$(basename "$f" .json)
  if ! "$MK" envelope --statement "$f" --key "$K.key" >"$T/$name.intoto.json" 2>"$ERR"; then
    _tap 1 "$name: signed"
    continue
  fi
  case "$name" in
    valid-*) expect_rc 0 "$name: verifies" "$V" verify "$T/$name.intoto.json" --policy "$T/trust.yaml" \
      --key "$K.pub" "${AT[@]}" ;;
    *)
      expect_rc 1 "$name: refused" "$V" verify "$T/$name.intoto.json" --policy "$T/trust.yaml" \
        --key "$K.pub" "${AT[@]}"
      like "$OUT" 'fail certificate\.(format|type|subject|inputs)' "$name: by the verifier's own steps" ;;
  esac
done
ok "at least 20 seeds checked ($n)" test "$n" -ge 20
"$MK" envelope --statement "$SEEDS/valid-base.json" --key "$K.key" >"$T/base.intoto.json"
expect_rc 0 "the base passes strict" "$V" verify "$T/base.intoto.json" --policy strict --key "$K.pub" "${AT[@]}"
expect_rc 0 "and strict@1" "$V" verify "$T/base.intoto.json" --policy strict@1 --key "$K.pub" "${AT[@]}"
done_testing
