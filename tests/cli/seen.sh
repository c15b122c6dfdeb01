#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# verify --seen without an engine, on a golden certificate (expiresAt 2035-12-30T00:00:00Z,
# the policy's clock skew 5m): a certificate presented again fails certificate.replay, also
# after it expired but while it still verifies within the clock skew; its entry goes once the
# certificate can no longer verify at all; a corrupted seen file is a configuration error.
. "$(dirname "$0")/../lib/testlib.sh"
V=$BOXCERT_BIN/boxcert-verify
F=$BOXCERT_SOURCE_DIR/fixtures/certificate
CERT=$F/valid/ed25519/cert.intoto.json
S=$T/seen.jsonl

verify_at() { # verify_at TIME [ARGS]: the golden certificate, recorded in $S
  local at=$1
  shift
  "$V" verify "$CERT" --policy "$F/policy.yaml" --at "$at" --seen "$S" "$@"
}

ok "first sight passes" verify_at 2035-12-29T23:59:00Z
like "$S" '"certificateId":"[0-9a-f]{64}"' "... and is recorded"
expect_rc 1 "the same certificate again is a replay" verify_at 2035-12-29T23:59:30Z
like "$OUT" 'fail certificate\.replay' "... certificate.replay fails"
expect_rc 1 "expired by the clock skew exactly: it still verifies, so it is still a replay" \
  verify_at 2035-12-30T00:05:00Z
like "$OUT" 'fail certificate\.replay' "... certificate.replay fails, not certificate.expired"
unlike "$OUT" 'fail certificate\.expired' "... it has not expired beyond the skew"
expect_rc 1 "one second later it has expired" verify_at 2035-12-30T00:05:01Z
like "$OUT" 'fail certificate\.expired' "... certificate.expired fails"
is "$(cat "$S")" '{"boxcertSeen":1}' "... and its entry is pruned"

printf '{"boxcertSeen":1}\n{"certificateId":' >"$T/corrupt"
expect_rc 2 "a corrupted seen file is a configuration error" \
  "$V" verify "$CERT" --policy "$F/policy.yaml" --at 2026-06-01T00:00:00Z --seen "$T/corrupt"
like "$ERR" "corrupt:2: corrupted seen file" "... naming the file and line"
done_testing
