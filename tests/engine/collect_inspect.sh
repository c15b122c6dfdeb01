#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# boxcert inspect: the table a person reads (each field, its value, its source), the same
# as JSON, no key needed; it refuses what collect refuses.
. "$(dirname "$0")/../lib/testlib.sh"
need_engine
PY=/usr/bin/python3
runc=$(session insp-runc --network none --read-only --cap-drop ALL --pids-limit 64)
runsc=$(session insp-runsc --runtime runsc --cap-drop ALL)

ok "inspect a runc session" "$BOXCERT" inspect "$runc"
cp "$OUT" "$T/runc.txt"
like "$T/runc.txt" '^level +engine\+kernel: ' "the evidence level and why"
like "$T/runc.txt" '^  rootfs\.readOnly +true +\[kernel\]$' "rootfs from the kernel"
like "$T/runc.txt" '^  capabilities\.effective +\[\] +\[kernel\]$' "capabilities from the kernel"
like "$T/runc.txt" '^  seccomp\.profileSha256 +[0-9a-f]{64} +\[spec\]$' "the profile's hash from the spec"
like "$T/runc.txt" '^  resources\.pidsLimit +64 +\[kernel\]$' "pids limit confirmed by the cgroup"
like "$T/runc.txt" '^  privileged +false +\[engine\]$' "privileged from the engine"
like "$T/runc.txt" '^no discrepancy between the sources$' "no discrepancy"

ok "inspect a runsc session" "$BOXCERT" inspect "$runsc"
cp "$OUT" "$T/runsc.txt"
like "$T/runsc.txt" '^level +engine\+runtime: runsc sandbox' "runsc: engine+runtime"
like "$T/runsc.txt" '^  network\.mode +none +\[runtime\]$' "runsc: the network from its argument"
like "$T/runsc.txt" '^  sandbox \(the sentry.s own readings\): \{"pid":' "the sentry's own readings apart"
like "$T/runsc.txt" '^  containment\.network\.mode: recorded none \(runtime argument\)$' \
  "the engine's bridge against runsc's none, as a discrepancy"

ok "inspect --format json" "$BOXCERT" inspect "$runc" --format json
$PY - "$OUT" >"$T/json.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = {r["field"]: (r["value"], r["source"]) for r in d["fields"]}
print("rootfs", rows["rootfs.readOnly"])
print("level", d["evidence"]["level"])
print("session", d["session"]["containerId"] == d["predicate"]["session"]["containerId"])
PY
like "$T/json.txt" "^rootfs \(True, 'kernel'\)$" "json: rows of field, value, source"
like "$T/json.txt" '^level engine\+kernel$' "json: the evidence"
like "$T/json.txt" '^session True$' "json: the session"

expect_rc 2 "an unknown format" "$BOXCERT" inspect "$runc" --format yaml
expect_rc 1 "a container that does not exist" "$BOXCERT" inspect "bxt-$RUN_ID-none"
"$DOCKER" stop -t 0 "$runc" >/dev/null
expect_rc 1 "a stopped session" "$BOXCERT" inspect "$runc"
like "$ERR" 'is not running' "... says so"
done_testing
