#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The collector's own safety (docs/collector.md, "The collector's own safety"), without an
# engine: a fake Engine API of recorded replies (tests/lib/fake_engine.py,
# fixtures/inspect/hardened) on a socket of this test's own. A collector under a tracer refuses
# before it loads a key to sign with (the key file read once, to check it, before the engine is
# asked anything); the collector is not dumpable while it collects (its /proc files are root's
# though it runs as another user); collected normally, the certificate verifies.
. "$(dirname "$0")/../lib/testlib.sh"
PY=/usr/bin/python3
V=$BOXCERT_BIN/boxcert-verify
FIX=$BOXCERT_SOURCE_DIR/fixtures/inspect/hardened
start_engine() { fake_engine_start "$FIX" "$@"; } # start_engine [HOLD_FILE]
stop_engine() { fake_engine_stop; }
trap 'stop_engine; rm -rf "$T"' EXIT

"$BOXCERT" keygen --out "$T/k" >/dev/null
ok "a fake engine of recorded replies" start_engine
ok "collect against it (level engine: its session is not on this host)" \
  "$BOXCERT" collect bxc-hardened --key "$T/k.key" --engine "unix://$T/e.sock" --out "$T/c.intoto.json"
ok "... and the certificate verifies" "$V" verify "$T/c.intoto.json" --key "$T/k.pub" \
  --policy "$BOXCERT_SOURCE_DIR/fixtures/certificate/policy.yaml"

# Under a tracer: refused, exit 3, before the key is loaded to sign.
# (LeakSanitizer cannot run under ptrace: off for this one run under make asan)
expect_rc 3 "collect under a tracer (strace) is refused" env ASAN_OPTIONS=detect_leaks=0 \
  strace -f -qq -o "$T/trace" \
  -e trace=openat,connect "$BOXCERT" collect bxc-hardened --key "$T/k.key" \
  --engine "unix://$T/e.sock" --out "$T/traced.intoto.json"
like "$ERR" '^boxcert: collector: task [0-9]+ of the collector is traced by process [0-9]+' \
  "... one line naming the tracer"
ok "... and no certificate written" test ! -e "$T/traced.intoto.json"
# (a key is loaded with O_NOFOLLOW; its first line is read once more to see whether it asks a
# passphrase at the terminal)
is "$(grep -c "openat(.*$T/k.key\", O_RDONLY|[A-Z_|]*O_NOFOLLOW" "$T/trace")" 1 \
  "... the key loaded once (checked before collecting), never to sign"
first_key=$(grep -n "openat(.*$T/k.key\", O_RDONLY|[A-Z_|]*O_NOFOLLOW" "$T/trace" | head -n 1 | cut -d: -f1)
first_engine=$(grep -n "connect(.*$T/e.sock" "$T/trace" | head -n 1 | cut -d: -f1)
ok "... and that check came before the engine was asked anything" \
  test "${first_key:-0}" -gt 0 -a "${first_engine:-0}" -gt "${first_key:-0}"

# Not dumpable while it collects: run as another user, the collector's /proc files are root's.
stop_engine
ok "a fake engine that holds its replies" start_engine "$T/hold"
mkdir "$T/u" && chmod 0755 "$T" && chown 65534:65534 "$T/u"
install -o 65534 -g 65534 -m 0600 "$T/k.key" "$T/u/k.key"
touch "$T/hold"
setpriv --reuid=65534 --regid=65534 --clear-groups "$BOXCERT" collect bxc-hardened \
  --key "$T/u/k.key" --engine "unix://$T/e.sock" --out "$T/u/c.intoto.json" \
  >"$T/u.out" 2>"$T/u.err" &
collector=$!
for _ in $(seq 1 100); do [ -e "$T/hold.seen" ] && break; sleep 0.1; done
ok "the collector asked the engine (and waits for its reply)" test -e "$T/hold.seen"
is "$(grep '^Uid:' "/proc/$collector/status" | cut -f2)" 65534 "the collector runs as 65534"
is "$(stat -c %u "/proc/$collector/status")" 0 "... and is not dumpable: its /proc files are root's"
rm -f "$T/hold"
wait "$collector"
is "$?" 0 "... and it collects once the engine answers"
ok "... a certificate that verifies" "$V" verify "$T/u/c.intoto.json" --key "$T/k.pub" \
  --policy "$BOXCERT_SOURCE_DIR/fixtures/certificate/policy.yaml"
stop_engine
done_testing
