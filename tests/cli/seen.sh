#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# verify --seen without an engine, on a golden certificate (expiresAt 2035-12-30T00:00:00Z,
# the policy's clock skew 5m): a certificate presented again fails certificate.replay, also
# after it expired but while it still verifies within the clock skew; entries are pruned by
# the wall clock past expiresAt plus the largest skew the file was used with, never by --at
# (a run with --at far ahead does not empty the file); a corrupted seen file is a
# configuration error.
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
like "$S" '"certificateId":"[0-9a-f]{64}"' "... its entry is kept: pruning goes by the wall clock"
expect_rc 1 "--at 2099: expired" verify_at 2099-01-01T00:00:00Z
like "$S" '"certificateId":"[0-9a-f]{64}"' "... and the file is not emptied by it"
is "$(head -n 1 "$S")" '{"boxcertSeen":2,"maxSkewSeconds":300}' "the header records the 5m skew"
ok "the same certificate before expiry, from the kept entry: a replay" \
  sh -c "! '$V' verify '$CERT' --policy '$F/policy.yaml' --at 2035-12-29T00:00:00Z --seen '$S'"

# by the wall clock: an entry whose certificate expired (plus the skew) before now goes
cat >"$T/old" <<'EOF2'
{"boxcertSeen":2,"maxSkewSeconds":300}
{"bootId":"b","certificateId":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","expiresAt":"2020-01-01T00:00:00Z","nonce":"n"}
{"bootId":"b","certificateId":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb","expiresAt":"2099-01-01T00:00:00Z","nonce":"m"}
EOF2
ok "a run over a file with an old entry" \
  "$V" verify "$CERT" --policy "$F/policy.yaml" --at 2035-12-29T23:00:00Z --seen "$T/old"
unlike "$T/old" '"certificateId":"a{64}"' "... the entry expired by the wall clock is pruned"
like "$T/old" '"certificateId":"b{64}"' "... the one that has not is kept"
# version 1's header reads as a file with no skew recorded, and is written back as version 2
printf '{"boxcertSeen":1}\n' >"$T/v1"
ok "a version 1 file is read" verify_at 2035-12-29T23:00:00Z --seen "$T/v1"
is "$(head -n 1 "$T/v1")" '{"boxcertSeen":2,"maxSkewSeconds":300}' "... and written as version 2"

printf '{"boxcertSeen":1}\n{"certificateId":' >"$T/corrupt"
expect_rc 2 "a corrupted seen file is a configuration error" \
  "$V" verify "$CERT" --policy "$F/policy.yaml" --at 2026-06-01T00:00:00Z --seen "$T/corrupt"
like "$ERR" "corrupt:2: corrupted seen file" "... naming the file and line"
done_testing
