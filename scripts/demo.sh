#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make demo: a hardened and a weak session on a real engine, a certificate each,
# verified offline: one PASS, one FAIL with the reasons. Removes what it started.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
bin=${BOXCERT_BIN:-$src/build/bin}
export PATH=$bin:$PATH
DOCKER=${BOXCERT_DOCKER:-/usr/bin/docker}
work=$src/.demo
run=demo-$$
net=boxcert-demo-$$

cleanup() {
  ids=$("$DOCKER" ps -aq --filter "label=boxcert.demo=$run" 2>/dev/null || true)
  [ -z "$ids" ] || "$DOCKER" rm -f $ids >/dev/null 2>&1 || true
  "$DOCKER" network rm "$net" >/dev/null 2>&1 || true
}
trap cleanup EXIT

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
show() { printf '$ %s\n' "$*"; "$@"; }

rm -rf "$work"
mkdir -p "$work"
cd "$work"

step "A fresh signing key"
show boxcert keygen --out demo

image=$("$DOCKER" image inspect --format '{{.Id}}' boxcert-session:1)
printf 'version: 1\nextends: strict\nimages:\n  pins: [%s]\n' "$image" >policy.yaml
step "Policy: the built-in profile strict, pinned to the image just built"
cat policy.yaml

step "Two sessions on the engine"
hardened=$("$DOCKER" run -d --label "boxcert.demo=$run" --name "boxcert-demo-hardened-$$" \
  --network none --read-only --cap-drop ALL --security-opt no-new-privileges \
  --pids-limit 64 --memory 256m --tmpfs /tmp:size=64m boxcert-session:1 sleep 600)
echo "hardened: --network none --read-only --cap-drop ALL --security-opt no-new-privileges"
echo "          --pids-limit 64 --memory 256m --tmpfs /tmp:size=64m   (${hardened:0:12})"
"$DOCKER" network create --internal --label "boxcert.demo=$run" "$net" >/dev/null
weak=$("$DOCKER" run -d --label "boxcert.demo=$run" --name "boxcert-demo-weak-$$" \
  --network "$net" boxcert-session:1 sleep 600)
echo "weak:     engine defaults on an internal bridge network ($net)   (${weak:0:12})"

step "Collect a certificate from each"
show boxcert collect "${hardened:0:12}" --key demo.key --out hardened.intoto.json
show boxcert collect "${weak:0:12}" --key demo.key --out weak.intoto.json

step "Verify offline (boxcert-verify: no engine code in it)"
set +e
show boxcert-verify verify hardened.intoto.json --policy policy.yaml --key demo.pub
rc_h=$?
show boxcert-verify verify weak.intoto.json --policy policy.yaml --key demo.pub
rc_w=$?
set -e

step "Result"
echo "hardened: exit $rc_h (want 0: PASS)"
echo "weak:     exit $rc_w (want 1: FAIL, reasons above)"
[ "$rc_h" -eq 0 ] && [ "$rc_w" -eq 1 ]
