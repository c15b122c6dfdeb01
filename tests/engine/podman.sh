#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Podman through `podman system service`'s Docker-compatible socket: the real runtime from
# the libpod endpoint, podman's expanded CapDrop, its automatic tmpfs of --read-only in the
# write surface, engine.kind podman; the kernel view as for docker. The service is this
# test's own (its own socket), stopped by its pid; the session carries the test's label.
. "$(dirname "$0")/../lib/testlib.sh"
need_engine
PY=/usr/bin/python3
PODMAN=${BOXCERT_PODMAN:-/usr/bin/podman}
[ -x "$PODMAN" ] || skip_all "no podman at $PODMAN"
SOCK=$T/podman.sock
svc=

finish() {
  ids=$("$PODMAN" ps -aq --filter "label=boxcert.test=$RUN_ID" 2>/dev/null)
  [ -n "$ids" ] && "$PODMAN" rm -f $ids >/dev/null 2>&1
  if [ -n "$svc" ] && kill -0 "$svc" 2>/dev/null; then kill "$svc"; wait "$svc" 2>/dev/null; fi
  cleanup_sessions
}
trap finish EXIT

# the session image, from the docker engine into podman's store
if ! "$PODMAN" image exists "$SESSION_IMAGE" 2>/dev/null; then
  "$DOCKER" save "$SESSION_IMAGE" | "$PODMAN" load >/dev/null 2>&1
fi
ok "session image in podman" "$PODMAN" image exists "$SESSION_IMAGE"

"$PODMAN" system service --time=0 "unix://$SOCK" >"$T/service.log" 2>&1 &
svc=$!
for _ in $(seq 1 50); do
  [ "$(curl -s --max-time 1 --unix-socket "$SOCK" http://podman/_ping 2>/dev/null)" = "OK" ] && break
  sleep 0.2
done
ok "podman's service answers on its socket" curl -sf --unix-socket "$SOCK" http://podman/_ping

run() { # run NAME ARGS...: a labelled podman session
  local name=$1; shift
  "$PODMAN" run -d --label "boxcert.test=$RUN_ID" --name "bxt-$RUN_ID-$name" \
    --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 "$@" "$SESSION_IMAGE" sleep 600
}
hardened=$(run hardened --read-only --cap-drop ALL --network none --pids-limit 64 \
  --security-opt no-new-privileges)
defaults=$(run defaults --network none)
ok "podman sessions started" test -n "$hardened" -a -n "$defaults"

"$BOXCERT" keygen --out "$T/k" >/dev/null
for s in hardened defaults; do
  ok "collect the podman $s session" "$BOXCERT" collect "bxt-$RUN_ID-$s" \
    --engine "unix://$SOCK" --key "$T/k.key" --out "$T/$s.intoto.json"
done
check_schema certificate "$T/hardened.intoto.json" "$T/defaults.intoto.json"

$PY - "$T/hardened.intoto.json" "$T/defaults.intoto.json" >"$T/fields" <<'PY'
import base64, json, sys
for path, tag in ((sys.argv[1], "h"), (sys.argv[2], "d")):
    p = json.loads(base64.b64decode(json.load(open(path))["payload"]))["predicate"]
    c = p["containment"]
    ws = {w["path"]: w for w in c["writeSurface"]}
    print(tag, "kind", p["engine"]["kind"])
    print(tag, "runtime", c["runtime"]["name"], c["runtime"]["path"])
    print(tag, "level", p["evidence"]["level"])
    print(tag, "spec", p["evidence"]["ociSpecSha256"] is not None)
    print(tag, "drop", json.dumps(c["capabilities"]["drop"], separators=(",", ":")))
    print(tag, "effective", json.dumps(c["capabilities"]["effective"], separators=(",", ":")))
    print(tag, "nnp", c["noNewPrivileges"], "ro", c["rootfs"]["readOnly"])
    print(tag, "pids", c["resources"]["pidsLimit"])
    for t in ("/tmp", "/var/tmp", "/run"):
        if t in ws:
            print(tag, "tmpfs", t, ws[t]["kind"], ws[t]["fsType"], ws[t]["sizeBytes"] is not None)
    print(tag, "discrepancies", len(p["evidence"]["discrepancies"]))
PY
sed 's/^/#   /' "$T/fields"
like "$T/fields" '^h kind podman$' "engine.kind podman"
like "$T/fields" '^h runtime runc /usr/bin/runc$' "the runtime from the libpod endpoint (not \"oci\")"
like "$T/fields" '^h level engine\+kernel$' "the kernel view, as with docker"
like "$T/fields" '^h spec True$' "the task's OCI spec read where libpod says it is"
like "$T/fields" '^h drop \["AUDIT_WRITE","CHOWN",.*"SYS_CHROOT"\]$' "podman's expanded CapDrop, normalised"
like "$T/fields" '^h effective \[\]$' "no capability held"
like "$T/fields" '^h nnp True ro True$' "no-new-privileges and a read-only rootfs"
like "$T/fields" '^h pids 64$' "pids limit"
for t in /tmp /var/tmp /run; do
  like "$T/fields" "^h tmpfs $t tmpfs tmpfs True$" "--read-only's automatic tmpfs $t kept in the write surface"
done
like "$T/fields" '^h discrepancies 0$' "no discrepancy"
like "$T/fields" '^d effective \["CHOWN","DAC_OVERRIDE","FOWNER","FSETID","KILL","NET_BIND_SERVICE","SETFCAP","SETGID","SETPCAP","SETUID","SYS_CHROOT"\]$' \
  "podman's own default capabilities, from the kernel"
like "$T/fields" '^d discrepancies 0$' "defaults: no discrepancy"
done_testing
