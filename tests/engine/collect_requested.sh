#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# collect --requested FILE: a session at least as strong as asked is attested with the
# request recorded (as asked, and the SHA-256 of the file); a weaker one, or one whose value
# cannot be observed, is refused with one line naming the field, the requested and the
# effective value, and no file.
. "$(dirname "$0")/../lib/testlib.sh"
need_engine
PY=/usr/bin/python3
"$BOXCERT" keygen --out "$T/k" >/dev/null
net=bxt-$RUN_ID-internal
"$DOCKER" network create --internal --label "boxcert.test=$RUN_ID" "$net" >/dev/null

hardened=$(session req-hardened --network none --read-only --cap-drop ALL \
  --security-opt no-new-privileges --pids-limit 64 --memory 256m --tmpfs /tmp:size=64m \
  --user 65532:65532)
bridge=$(session req-bridge --network "$net")

cat >"$T/strict.yaml" <<'EOF'
# what the launcher asked for, named as the policy names it
version: 1
network: none
readOnlyRootfs: true
capabilities: {drop: [ALL]}
noNewPrivileges: true
seccomp: default
privileged: false
user: {nonRoot: true, uids: [65532]}
namespaces: {pid: private, ipc: private, uts: private, net: private}
resources: {memoryMax: 512Mi, pidsMax: 128}
writeSurface:
  - {path: /tmp, kind: tmpfs, sizeBytes: 67108864}
  - {path: /dev, kind: engine}
  - {path: /dev/shm, kind: engine}
  - {path: /dev/pts, kind: engine}
  - {path: /dev/mqueue, kind: engine}
  - {path: /proc, kind: engine}
  - {path: /sys/fs/cgroup, kind: engine}
mounts: []
maskedPaths: [/proc/kcore]
EOF
ok "a session as strong as requested is attested" "$BOXCERT" collect "$hardened" \
  --key "$T/k.key" --requested "$T/strict.yaml" --out "$T/strict.intoto.json"
is "$(cat "$ERR")" "" "... the policy's names: no warning"
$PY - "$T/strict.intoto.json" "$T/strict.yaml" >"$T/req.txt" <<'PY'
import base64, hashlib, json, sys
pred = json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))["predicate"]
req = pred["requested"]
raw = open(sys.argv[2], "rb").read()
print("sha", req["sha256"] == hashlib.sha256(raw).hexdigest())
print("network", json.dumps(req["containment"]["network"]))
print("user", json.dumps(req["containment"]["user"], sort_keys=True))
print("members", ",".join(sorted(req["containment"])))
PY
$PY -c 'import base64,json,sys; print(json.dumps(json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))["predicate"]["requested"]["containment"]))' \
  "$T/strict.intoto.json" >"$T/strict.requested.json"
check_schema requested "$T/strict.requested.json"
like "$T/req.txt" '^sha True$' "predicate.requested.sha256 is the SHA-256 of the file bytes"
like "$T/req.txt" '^network "none"$' "the request recorded as asked"
like "$T/req.txt" '^user \{"nonRoot": true, "uids": \[65532\]\}$' "user as {nonRoot, uids}"
like "$T/req.txt" '^members capabilities,maskedPaths,mounts,namespaces,network,noNewPrivileges,privileged,resources,rootfs,seccomp,user,writeSurface$' \
  "only the fields asked for"
check_schema certificate "$T/strict.intoto.json"

like "$T/strict.requested.json" '"resources": \{"memoryBytes": 536870912, "pidsLimit": 128\}, "rootfs": \{"readOnly": true\}' \
  "recorded in the predicate's names (readOnlyRootfs, memoryMax, pidsMax)"

# The predicate's names are deprecated and read all the same: one warning line, the same request.
sed -e 's/^readOnlyRootfs: true$/rootfs: {readOnly: true}/' \
  -e 's/^resources: .*/resources: {memoryBytes: 536870912, pidsLimit: 128}/' "$T/strict.yaml" >"$T/old.yaml"
ok "the predicate's names: still attested" "$BOXCERT" collect "$hardened" \
  --key "$T/k.key" --requested "$T/old.yaml" --out "$T/old.intoto.json"
like "$ERR" "^boxcert: warning: $T/old.yaml: deprecated names, the predicate's: rootfs \\(write readOnlyRootfs\\), resources.memoryBytes \\(write resources.memoryMax\\), resources.pidsLimit \\(write resources.pidsMax\\)$" \
  "... with one warning line naming each and its replacement"
is "$(wc -l <"$ERR" | tr -d ' ')" "1" "... one line"
$PY -c 'import base64,json,sys; print(json.dumps(json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))["predicate"]["requested"]["containment"]))' \
  "$T/old.intoto.json" >"$T/old.requested.json"
ok "... and recorded alike" cmp "$T/strict.requested.json" "$T/old.requested.json"

printf '{"network": {"mode": "none"}, "rootfs": {"readOnly": true}}\n' >"$T/req.json"
ok "a JSON request" "$BOXCERT" collect "$hardened" --key "$T/k.key" --requested "$T/req.json" \
  --out "$T/json.intoto.json"

refused() { # refused NAME CONTAINER FILE REGEX
  expect_rc 1 "$1: refused" "$BOXCERT" collect "$2" --key "$T/k.key" --requested "$3" \
    --out "$T/refused.intoto.json"
  like "$ERR" "$4" "$1: the one line names the field, the requested and the effective value"
  is "$(wc -l <"$ERR" | tr -d ' ')" "1" "$1: one line"
  ok "$1: no file" test ! -e "$T/refused.intoto.json"
}
printf 'network: none\n' >"$T/none.yaml"
refused "network none on a bridged session" "$bridge" "$T/none.yaml" \
  "^boxcert: requested: network: requested \"none\", effective \"$net\" \\(a weaker network mode\\)$"
printf 'runtimes: [runsc]\n' >"$T/runsc.yaml"
refused "runsc asked, runc given" "$hardened" "$T/runsc.yaml" \
  'requested: runtime: requested "runsc", effective "runc" \(not runsc\)$'
printf 'user: {nonRoot: true}\n' >"$T/nonroot.yaml"
refused "non-root asked, root given" "$bridge" "$T/nonroot.yaml" \
  'requested: user: requested \{"nonRoot":true\}, effective \{"spec":"","uids":\[0,0,0,0\]\} \(runs as root\)$'
printf 'resources: {memoryMax: 128Mi}\n' >"$T/mem.yaml"
refused "a lower memory limit asked" "$hardened" "$T/mem.yaml" \
  'requested: resources: requested \{"memoryBytes":134217728\}.*\(a higher limit than requested\)'
printf 'writeSurface: [{path: /tmp}]\n' >"$T/surface.yaml"
refused "fewer writable places asked" "$hardened" "$T/surface.yaml" \
  'requested: writeSurface: .*\(a writable place beyond those requested\)'
printf 'seccomp: "sha256:%s"\n' "$(printf '0%.0s' {1..64})" >"$T/pin.yaml"
refused "a pinned seccomp profile that is not the one applied" "$hardened" "$T/pin.yaml" \
  'requested: seccomp: .*another seccomp profile'

# Over the TLS endpoint (level engine) the kernel's readings are not there: what can only
# be observed there is refused as not observed.
eval "$(bash "$BOXCERT_SOURCE_DIR/scripts/engine.sh" env)"
[ -f "$BOXCERT_TLS_CERT_PATH/cert.pem" ] ||
  skip_one "the engine's TLS listener (scripts/engine.sh) has no client certificate"
if [ -f "$BOXCERT_TLS_CERT_PATH/cert.pem" ]; then
  printf 'network: {interfaces: [lo]}\n' >"$T/ifs.yaml"
  expect_rc 1 "interfaces asked at level engine: refused" env DOCKER_TLS_VERIFY=1 \
    DOCKER_CERT_PATH="$BOXCERT_TLS_CERT_PATH" "$BOXCERT" collect "$hardened" \
    --engine "$BOXCERT_TLS_HOST" --key "$T/k.key" --requested "$T/ifs.yaml" --out "$T/tls.intoto.json"
  like "$ERR" 'requested: network: .*\(cannot be observed\)' "... as not observed"
  ok "... with no file" test ! -e "$T/tls.intoto.json"
fi

# A request that cannot be read is a usage error, with file:line:col.
printf 'readOnlyRootfs: yes\n' >"$T/bad.yaml"
expect_rc 2 "a malformed request: exit 2" "$BOXCERT" collect "$hardened" --key "$T/k.key" \
  --requested "$T/bad.yaml" --out "$T/bad.intoto.json"
like "$ERR" "bad.yaml:1:17: .*true or false" "... with file:line:col"
expect_rc 2 "a missing request file: exit 2" "$BOXCERT" collect "$hardened" --key "$T/k.key" \
  --requested "$T/missing.yaml"
done_testing
