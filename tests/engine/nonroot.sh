#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# No silent downgrade: a collector that is a member of the docker group but not root reaches
# the engine and nothing more. It says so (level engine, one warning line naming the level the
# runtime allows) and --require-level refuses instead (exit 1, nothing written); as root the
# same sessions reach engine+kernel (runc) and engine+runtime (runsc).
. "$(dirname "$0")/../lib/testlib.sh"
need_engine
PY=/usr/bin/python3
runc_id=$(session nr-runc --network none --read-only --cap-drop ALL)
runsc_id=$(session nr-runsc --runtime runsc --network none --read-only --cap-drop ALL)
gid=$(stat -c %g /var/run/docker.sock)
home=$T/home && mkdir -p "$home" && chown 65534:65534 "$home" "$T"
"$BOXCERT" keygen --out "$T/root" >/dev/null
"$BOXCERT" keygen --out "$home/k" >/dev/null && chown 65534:65534 "$home/k.key" "$home/k.pub"
nr() { env HOME="$home" setpriv --reuid 65534 --regid 65534 --groups "$gid" "$@"; }
level_of() {
  $PY -c 'import base64,json,sys; p=json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))["predicate"]; print(p["evidence"]["level"], p["containment"]["namespaces"]["pid"]["kernel"])' "$1"
}
ok "the collector as uid 65534 reaches the engine (docker group)" nr "$DOCKER" -H unix:///var/run/docker.sock version

for rt in runc runsc; do
  id=runc_id; [ $rt = runsc ] && id=runsc_id
  allows=engine+kernel; [ $rt = runsc ] && allows=engine+runtime
  re=${allows/+/\\+}
  expect_rc 0 "$rt: collect as uid 65534" nr "$BOXCERT" collect "${!id}" --key "$home/k.key" \
    --out "$home/$rt.intoto.json"
  like "$ERR" "^boxcert: warning: certificate at level engine, below the $re its runtime allows here: " \
    "... one warning line naming the level the runtime allows"
  is "$(grep -c . "$ERR")" 1 "... and only that line"
  is "$(level_of "$home/$rt.intoto.json")" "engine None" "... a certificate at level engine claiming no kernel fact"
  expect_rc 1 "$rt: --require-level highest as uid 65534: refused" nr "$BOXCERT" collect "${!id}" \
    --key "$home/k.key" --require-level highest --out "$home/$rt-h.intoto.json"
  like "$ERR" "^boxcert: collect: level engine, not the $re --require-level highest asks: " "... saying why"
  ok "... and nothing written" test ! -e "$home/$rt-h.intoto.json"
  expect_rc 1 "$rt: --require-level $allows as uid 65534: refused" nr "$BOXCERT" collect "${!id}" \
    --key "$home/k.key" --require-level $allows --out "$home/$rt-l.intoto.json"
  ok "... and nothing written" test ! -e "$home/$rt-l.intoto.json"
  expect_rc 0 "$rt: --require-level engine as uid 65534: issued, no warning" nr "$BOXCERT" collect \
    "${!id}" --key "$home/k.key" --require-level engine --out "$home/$rt-e.intoto.json"
  is "$(cat "$ERR")" "" "... nothing on stderr"
  expect_rc 0 "$rt: as root with --require-level highest" "$BOXCERT" collect "${!id}" \
    --key "$T/root.key" --require-level highest --out "$T/$rt-root.intoto.json"
  is "$(cat "$ERR")" "" "... no warning"
  is "$(level_of "$T/$rt-root.intoto.json" | cut -d' ' -f1)" "$allows" "... at $allows"
done
expect_rc 1 "runc as root: --require-level engine+runtime is not runc's" "$BOXCERT" collect \
  "$runc_id" --key "$T/root.key" --require-level engine+runtime --out "$T/x.intoto.json"
ok "... nothing written" test ! -e "$T/x.intoto.json"
expect_rc 2 "an unknown level is a usage error" "$BOXCERT" collect "$runc_id" --key "$T/root.key" \
  --require-level kernel --out "$T/y.intoto.json"
expect_rc 2 "--engine and --context together: a usage error" "$BOXCERT" collect "$runc_id" \
  --key "$T/root.key" --engine unix:///var/run/docker.sock --context default --out "$T/z.intoto.json"
done_testing
