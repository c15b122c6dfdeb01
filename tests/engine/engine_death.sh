#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# An engine that dies in the middle of `audit --collect`: a second, test-owned dockerd
# (its own data root, exec root, pid file, socket, containerd namespace and network
# namespace — dockerd with --bridge=none deletes the interface docker0 of the network
# namespace it runs in, so it must not run in the host's; no bridge) is
# killed once the first certificate has been written. The audit exits 3 with the rows it
# got, the certificates already written are intact and verify, no partial file is left.
# The shared engine is never stopped.
. "$(dirname "$0")/../lib/testlib.sh"
need_engine
PY=/usr/bin/python3
d2=$T/engine2
mkdir -p "$d2/data" "$d2/exec" "$T/certs"
ns=bxt-$$-$RANDOM
netns=$ns-net
D2="$DOCKER -H unix://$d2/docker.sock"
dockerd_pid=
proxy_pid=

stop_all() {
  [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null
  if [ -n "$dockerd_pid" ] && kill -0 "$dockerd_pid" 2>/dev/null; then
    kill "$dockerd_pid"; wait "$dockerd_pid" 2>/dev/null
  fi
}

start_dockerd() {
  nsenter --net="/run/netns/$netns" dockerd --data-root "$d2/data" --exec-root "$d2/exec" --pidfile "$d2/docker.pid" \
    -H "unix://$d2/docker.sock" --bridge=none --iptables=false --ip-masq=false \
    --containerd=/run/containerd/containerd.sock --containerd-namespace "$ns" \
    --containerd-plugins-namespace "$ns-plugins" >>"$d2/dockerd.log" 2>&1 &
  dockerd_pid=$!
  for _ in $(seq 1 150); do
    [ "$(curl -s --max-time 1 --unix-socket "$d2/docker.sock" http://e/_ping 2>/dev/null)" = OK ] && return 0
    kill -0 "$dockerd_pid" 2>/dev/null || break
    sleep 0.2
  done
  tail -n 5 "$d2/dockerd.log"
  return 1
}

# Remove what this test created on its engine (restarted if it was killed), then stop it
# and remove its folders (unmounted by the engine as it stops).
finish() {
  if ! kill -0 "${dockerd_pid:-0}" 2>/dev/null; then start_dockerd >/dev/null 2>&1; fi
  ids=$($D2 ps -aq 2>/dev/null)
  [ -z "$ids" ] || $D2 rm -f $ids >/dev/null 2>&1
  stop_all
  # whatever the engine left in its containerd namespaces and mounts
  for n in "$ns" "$ns-plugins"; do
    for t in $(ctr -n "$n" tasks ls 2>/dev/null | awk 'NR > 1 {print $1}'); do
      ctr -n "$n" tasks delete -f "$t" >/dev/null 2>&1
    done
    for c in $(ctr -n "$n" containers ls -q 2>/dev/null); do ctr -n "$n" containers rm "$c" >/dev/null 2>&1; done
    ctr namespaces rm "$n" >/dev/null 2>&1
  done
  mount | awk -v d="$d2/" 'index($3, d) == 1 || $3 == substr(d, 1, length(d) - 1) "/data" {print $3}' |
    sort -r | while read -r m; do umount "$m" 2>/dev/null; done
  rm -rf "$d2"
  ip netns del "$netns" 2>/dev/null
  cleanup_sessions
}
trap finish EXIT

ok "a network namespace for it" ip netns add "$netns"
ok "a second, test-owned engine starts" start_dockerd
root=$T/rootfs
mkdir -p "$root/bin" "$root/tmp" "$root/etc"
cp /bin/busybox "$root/bin/busybox"
for a in sh sleep; do ln -s busybox "$root/bin/$a"; done
ok "the session image is imported into it" bash -c "tar -C '$root' -c . | $D2 import - $SESSION_IMAGE >/dev/null"
for i in 1 2 3; do
  $D2 run -d --label "boxcert.test=$RUN_ID" --network none --read-only --cap-drop ALL \
    --security-opt no-new-privileges --pids-limit 64 --memory 256m "$SESSION_IMAGE" sleep 600 \
    >"$T/s$i.id"
done
is "$($D2 ps -q --filter "label=boxcert.test=$RUN_ID" | wc -l)" 3 "three sessions run on it"

"$BOXCERT" keygen --out "$T/k" >/dev/null
$PY "$BOXCERT_SOURCE_DIR/tests/lib/engine_proxy.py" "$T/proxy.sock" "$d2/docker.sock" \
  die-after-file "$T/certs" "$d2/docker.pid" >"$T/proxy.log" 2>&1 &
proxy_pid=$!
for _ in $(seq 1 50); do [ -S "$T/proxy.sock" ] && break; sleep 0.1; done

# --jobs 1: one session at a time, so that exactly one certificate is on disk when the
# engine dies (with several at once, the others may be written before the proxy sees it)
expect_rc 3 "audit --collect with the engine killed after the first certificate exits 3" \
  "$BOXCERT" audit --jobs 1 --policy strict --key "$T/k.pub" --certs "$T/certs" --engine "unix://$T/proxy.sock" \
  --label "boxcert.test=$RUN_ID" --tasks none --collect --signing-key "$T/k.key" --format json \
  --output "$T/audit.json"
fails "(the engine really died: its socket no longer answers)" curl -sf --max-time 2 --unix-socket "$d2/docker.sock" http://e/_ping
ok "the report was written whole" $PY -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["complete"] is False; print(len(r["sessions"]))' "$T/audit.json"
is "$(cat "$OUT")" 3 "... with a row for each of the three sessions it had listed"
check_schema report "$T/audit.json"
n=$(ls "$T/certs"/*.intoto.json 2>/dev/null | wc -l)
is "$n" 1 "one certificate was written before the engine died"
ok "it is intact and verifies" "$BOXCERT" verify "$T/certs"/*.intoto.json --policy strict --key "$T/k.pub"
is "$(ls -A "$T/certs" | grep -v '\.intoto\.json$' | wc -l)" 0 "no partial or temporary file in --certs"
is "$(ls -A "$T" | grep -c '^\.audit\.json\.')" 0 "no temporary report file"
trap - EXIT
finish
alive=0; kill -0 "$dockerd_pid" 2>/dev/null && alive=1
is "$alive" 0 "the test-owned engine is stopped again and its folders removed"
done_testing
