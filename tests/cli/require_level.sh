#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# collect --require-level, without an engine: a fake Engine API of recorded replies
# (tests/lib/fake_engine.py, fixtures/inspect/hardened: a runc session whose processes are not
# on this host) gives level engine where runc allows engine+kernel. Without the flag the
# certificate is issued with one warning line; --require-level highest or engine+kernel refuses
# (exit 1, nothing written); engine accepts without a word (tests/engine/nonroot.sh does the
# same with real sessions and a collector that is not root).
. "$(dirname "$0")/../lib/testlib.sh"
PY=/usr/bin/python3
FIX=$BOXCERT_SOURCE_DIR/fixtures/inspect/hardened
trap 'fake_engine_stop; rm -rf "$T"' EXIT
"$BOXCERT" keygen --out "$T/k" >/dev/null
ok "a fake engine of recorded replies" fake_engine_start "$FIX"
c() { "$BOXCERT" collect bxc-hardened --key "$T/k.key" --engine "unix://$T/e.sock" "$@"; }

expect_rc 0 "no --require-level: issued" c --out "$T/a.intoto.json"
like "$ERR" '^boxcert: warning: certificate at level engine, below the engine\+kernel its runtime allows here: ' \
  "... with one warning line"
is "$(grep -c . "$ERR")" 1 "... only that line"
ok "... the certificate written" test -s "$T/a.intoto.json"
for lv in highest engine+kernel engine+runtime; do
  expect_rc 1 "--require-level $lv: refused" c --require-level "$lv" --out "$T/$lv.intoto.json"
  like "$ERR" "^boxcert: collect: level engine, not the engine\+(kernel|runtime) --require-level ${lv/+/\\+} asks: " \
    "... one line saying why"
  ok "... nothing written" test ! -e "$T/$lv.intoto.json"
done
expect_rc 0 "--require-level engine: issued" c --require-level engine --out "$T/e.intoto.json"
is "$(cat "$ERR")" "" "... without a warning"
expect_rc 2 "--require-level kernel: a usage error" c --require-level kernel --out "$T/k2.intoto.json"
ok "... nothing written" test ! -e "$T/k2.intoto.json"
done_testing
