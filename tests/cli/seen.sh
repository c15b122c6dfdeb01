#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# verify --seen without an engine, on a golden certificate (expiresAt 2035-12-30T00:00:00Z,
# the policy's clock skew 5m): a certificate presented again fails certificate.replay, also
# after it expired but while it still verifies within the clock skew; entries are pruned by
# the wall clock past expiresAt plus the largest skew the file was used with, never by --at
# (a run with --at far ahead does not empty the file); a corrupted seen file is a
# configuration error; with --seen-run, a re-run of the gate admits what that run recorded, and
# only that run.
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

# --seen-run: a re-run of the gate (the same run) admits what it recorded; no other run does
R=$T/runs.jsonl
verify_run() { "$V" verify "$CERT" --policy "$F/policy.yaml" --at 2035-12-29T23:00:00Z --seen "$R" "$@"; }
ok "run 41 records the certificate" verify_run --seen-run 41
like "$R" '"run":"41"' "... the entry names the run"
ok "a re-run of run 41 passes" verify_run --seen-run 41
like "$OUT" 'certificate\.replay|PASS' "... reported"
is "$(grep -c certificateId "$R")" "1" "... and records nothing twice"
expect_rc 1 "run 42 presenting it is a replay" verify_run --seen-run 42
like "$OUT" 'fail certificate\.replay' "... certificate.replay fails"
expect_rc 1 "a gate without a run presenting it is a replay" verify_run
"$V" verify "$CERT" --policy "$F/policy.yaml" --at 2035-12-29T23:00:00Z --seen "$R" --seen-run 41 \
  --format json >"$T/rerun.json"
like "$T/rerun.json" '"rule":"certificate.replay","status":"pass"' "the re-run's replay finding passes"
like "$T/rerun.json" 'seen before by this run \(41\) only: a re-run' "... saying why"
ok "a gate without a run records it" "$V" verify "$CERT" --policy "$F/policy.yaml" \
  --at 2035-12-29T23:00:00Z --seen "$T/seen2"
expect_rc 1 "... then no run admits it again" "$V" verify "$CERT" --policy "$F/policy.yaml" \
  --at 2035-12-29T23:00:00Z --seen "$T/seen2" --seen-run 1
expect_rc 2 "--seen-run without --seen is a usage error" "$V" verify "$CERT" \
  --policy "$F/policy.yaml" --at 2035-12-29T23:00:00Z --seen-run 41
like "$ERR" '^boxcert-verify: --seen-run: needs --seen FILE$' "... one line"
expect_rc 2 "a run with a space is a usage error" verify_run --seen-run "4 1"
like "$ERR" "^boxcert-verify: --seen-run: '4 1' is not 1 to 128 of" "... one line"
sed 's/"run":"41"/"run":"4 1"/' "$R" >"$T/badrun"
expect_rc 2 "a seen file with a malformed run is corrupted" "$V" verify "$CERT" \
  --policy "$F/policy.yaml" --at 2035-12-29T23:00:00Z --seen "$T/badrun"
like "$ERR" "badrun:2: corrupted seen file" "... naming the file and line"

printf '{"boxcertSeen":1}\n{"certificateId":' >"$T/corrupt"
expect_rc 2 "a corrupted seen file is a configuration error" \
  "$V" verify "$CERT" --policy "$F/policy.yaml" --at 2026-06-01T00:00:00Z --seen "$T/corrupt"
like "$ERR" "corrupt:2: corrupted seen file" "... naming the file and line"
done_testing
