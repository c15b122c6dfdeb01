#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# containment.devices.nodesAnywhere, .walk and .mknod (predicate v3) on real sessions, each held
# to what the kernel does when the session opens or makes a node: an image built here from a
# local tar holding the host's console (c 5:1), a tun node (c 10:200) and a loop device
# (b 7:0) in /opt; a session whose first task makes nodes in a tmpfs mounted without nodev and
# in one with nodev (the default), beneath which a volume of host nodes is bound; a volume of a
# host folder holding nodes, and a host node bound at a file's path; a default session
# (CAP_MKNOD and Docker's c *:* m: it can make any device); a hardened one (--cap-drop ALL),
# which passes strict; the image under runsc (the sentry serves its devices: not walked).
# strict is strict@3: every node a rule opens and mknod possible fail containment.devices.
. "$(dirname "$0")/../lib/testlib.sh"
need_engine
PY=/usr/bin/python3
V=$BOXCERT_BIN/boxcert-verify
IMG="boxcert-devnode:t$$"
dev_cleanup() {
  cleanup_sessions
  "$DOCKER" rmi -f "$IMG" >/dev/null 2>&1
}
trap dev_cleanup EXIT
"$BOXCERT" keygen --out "$T/k" >/dev/null

# the image: boxcert-session:1's files and three nodes in /opt, imported from a local tar
mkimage() {
  local c
  mkdir -p "$T/root" || return 1
  c=$("$DOCKER" create "$SESSION_IMAGE") || return 1
  "$DOCKER" export "$c" | tar -x -C "$T/root" || return 1
  "$DOCKER" rm "$c" >/dev/null || return 1
  mkdir -p "$T/root/opt" && mknod "$T/root/opt/console" c 5 1 && mknod "$T/root/opt/tun" c 10 200 &&
    mknod "$T/root/opt/loop" b 7 0 || return 1
  tar -C "$T/root" -cf "$T/node.tar" . && "$DOCKER" import -c 'CMD ["/bin/sh"]' "$T/node.tar" "$IMG"
}
ok "an image with c 5:1, c 10:200 and b 7:0 in /opt, imported from a local tar" mkimage
# a host folder holding nodes, made a volume
mkdir -p "$T/vol"
ok "a host folder holding c 10:200 and b 7:0" sh -c "mknod '$T/vol/tun' c 10 200 && mknod '$T/vol/loop' b 7 0"

run() { # run NAME ARGS... [-- CMD...]: a session of $IMG
  local name=$1; shift
  local args=() cmd=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do args+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  cmd=("$@")
  [ ${#cmd[@]} -gt 0 ] || cmd=(sleep 600)
  "$DOCKER" run -d --label "boxcert.test=$RUN_ID" --name "bxt-$RUN_ID-$name" "${args[@]}" "$IMG" \
    "${cmd[@]}" >"$T/$name.id"
}
HARD=(--network none --read-only --cap-drop ALL --security-opt no-new-privileges --pids-limit 64
  --memory 256m --tmpfs /tmp:size=64m)
ok "session image (default)" run image
ok "session tmpfs: its first task makes nodes in a dev tmpfs and a nodev one" run tmpfs \
  --tmpfs /run:rw,dev,size=1m --tmpfs /scratch:rw,size=1m -v "$T/vol:/scratch/vol:ro" -- \
  sh -c 'mknod /run/tun c 10 200 && mknod /run/mem c 1 1 && mknod /scratch/tun c 10 200 && echo made && exec sleep 600'
ok "session volume: a host folder of nodes, and a node bound at a path" run volume \
  -v "$T/vol:/data:ro" -v "$T/vol/tun:/etc/tunbind:ro"
ok "session default (boxcert-session:1)" session default
cp "$OUT" "$T/default.id"
ok "session hardened (boxcert-session:1, --cap-drop ALL)" session hardened "${HARD[@]}"
cp "$OUT" "$T/hardened.id"
names=(image tmpfs volume default hardened)
runsc=0
if has_runtime runsc; then
  ok "session runsc (the image under gVisor)" run runsc --runtime runsc "${HARD[@]}"
  names+=(runsc)
  runsc=1
fi
for _ in $(seq 50); do "$DOCKER" logs "$(cat "$T/tmpfs.id")" 2>/dev/null | grep -qx made && break; sleep 0.1; done
collect_each "$T/k.key" "$T" "${names[@]}"
for n in "${names[@]}"; do check_schema certificate "$T/$n.intoto.json"; done

dev() { # dev NAME: containment.devices of NAME's certificate, one JSON line
  "$PY" -c 'import base64,json,sys
e = json.load(open(sys.argv[1]))
p = json.loads(base64.b64decode(e["payload"]))
print(json.dumps(p["predicate"]["containment"]["devices"], sort_keys=True))' "$T/$1.intoto.json"
}
node() { # node NAME PATH: "type major:minor accessible mount" of the node at PATH, or "absent"
  dev "$1" | "$PY" -c 'import json,sys
d = json.load(sys.stdin)
m = [n for n in d["nodesAnywhere"] or [] if n["path"] == sys.argv[1]]
print("absent" if not m else "%s %d:%d %s %s" % (m[0]["type"], m[0]["major"], m[0]["minor"],
      json.dumps(m[0]["accessible"]), m[0]["mount"]))' "$2"
}
field() { # field NAME EXPR: a Python expression over the devices object d
  dev "$1" | "$PY" -c 'import json,sys
d = json.load(sys.stdin)
print(json.dumps(eval(sys.argv[1])))' "$2"
}
opens() { # opens NAME PATH: the session's shell opens PATH for reading (no byte read)
  "$DOCKER" exec "$(cat "$T/$1.id")" sh -c "test -e '$2' && exec 3<'$2'"
}
refused() { # refused NAME PATH: PATH exists in the session and the kernel refuses to open it
  "$DOCKER" exec "$(cat "$T/$1.id")" sh -c "test -e '$2' && exec 3<'$2'" 2>&1 |
    grep -Eq 'Operation not permitted|Permission denied'
}
devices_status() { # devices_status NAME: containment.devices' status and message under strict
  "$V" verify "$T/$1.intoto.json" --policy strict --key "$T/k.pub" --format json |
    "$PY" -c 'import json,sys
for f in json.load(sys.stdin)["results"][0]["findings"]:
    if f["rule"] == "containment.devices":
        print(f["status"], f["message"])'
}

# the image: the console and tun are opened by Docker's default rules (c 5:1 rwm, c 10:200 rwm),
# the loop device is not; the kernel agrees where opening is harmless
is "$(node image /opt/console)" "c 5:1 true /" "image: /opt/console is c 5:1, openable, on /"
is "$(node image /opt/tun)" "c 10:200 true /" "image: /opt/tun is c 10:200, openable"
is "$(node image /opt/loop)" "b 7:0 false /" "image: /opt/loop is b 7:0, refused"
ok "image: the kernel opens /opt/tun (the truth behind accessible true)" opens image /opt/tun
ok "image: the kernel refuses /opt/loop (accessible false)" refused image /opt/loop
is "$(node image /dev/null)" "absent" "image: /dev/null is standard, not listed"
is "$(field image 'd["walk"]["truncated"]')" "false" "image: the walk was not truncated"
is "$(field image '"/" in d["walk"]["mounts"] and "/dev" in d["walk"]["mounts"]')" "true" \
  "image: the walk entered / and /dev"
is "$(field image '[m for m in d["walk"]["mounts"] if m in ("/proc", "/sys", "/dev/shm", "/dev/mqueue")]')" \
  "[]" "image: proc, sysfs and the nodev mounts not walked"
is "$(field image 'd["walk"]["entries"] > 20')" "true" "image: the walk counted its entries"
devices_status image >"$T/image.st"
like "$T/image.st" '^fail .*node /opt/console \(c 5:1\)' "image: strict fails containment.devices on /opt/console"
like "$T/image.st" 'node /opt/tun \(c 10:200\)' "image: and on /opt/tun"
unlike "$T/image.st" '/opt/loop' "image: not on the refused /opt/loop"

# tmpfs: what the first task made on the dev tmpfs is seen; on the nodev one it opens nothing
is "$(node tmpfs /run/tun)" "c 10:200 true /run" "tmpfs: /run/tun made at start, openable, on /run"
is "$(node tmpfs /run/mem)" "c 1:1 false /run" "tmpfs: /run/mem made at start, refused by the rules"
ok "tmpfs: the kernel opens /run/tun" opens tmpfs /run/tun
ok "tmpfs: the kernel refuses /run/mem" refused tmpfs /run/mem
is "$(node tmpfs /scratch/tun)" "absent" "tmpfs: the node on the nodev tmpfs is not listed"
ok "tmpfs: the kernel refuses the node on the nodev tmpfs" refused tmpfs /scratch/tun
is "$(field tmpfs '"/run" in d["walk"]["mounts"] and "/scratch" not in d["walk"]["mounts"]')" "true" \
  "tmpfs: /run walked, the nodev /scratch not"
like <(devices_status tmpfs) '^fail .*node /run/tun \(c 10:200\)' "tmpfs: strict fails on /run/tun"
is "$(node tmpfs /scratch/vol/tun)" "c 10:200 true /scratch/vol" \
  "tmpfs: a volume beneath the nodev tmpfs is walked (/scratch/vol/tun)"
ok "tmpfs: the kernel opens /scratch/vol/tun" opens tmpfs /scratch/vol/tun

# volume: the host's nodes reach the session through the bind
is "$(node volume /data/tun)" "c 10:200 true /data" "volume: /data/tun, openable, on /data"
is "$(node volume /data/loop)" "b 7:0 false /data" "volume: /data/loop, refused"
ok "volume: the kernel opens /data/tun" opens volume /data/tun
ok "volume: the kernel refuses /data/loop" refused volume /data/loop
like <(devices_status volume) '^fail .*node /data/tun \(c 10:200\)' "volume: strict fails on /data/tun"
is "$(node volume /etc/tunbind)" "c 10:200 true /etc/tunbind" "volume: a node bound at a file's path is seen"
ok "volume: the kernel opens /etc/tunbind" opens volume /etc/tunbind

# default: no node beyond the standard, but mknod of any device; the kernel makes one
is "$(field default 'd["nodesAnywhere"]')" "[]" "default: no node that is not standard"
is "$(field default '[d["mknod"]["capable"], d["mknod"]["allowed"]]')" "[true, true]" \
  "default: CAP_MKNOD and an m rule: mknod allowed"
is "$(field default '"c *:* m" in d["mknod"]["rules"] and "b *:* m" in d["mknod"]["rules"]')" "true" \
  "default: Docker's c *:* m and b *:* m recorded"
ok "default: the kernel lets a task make c 5:1 (the truth behind allowed true)" \
  "$DOCKER" exec "$(cat "$T/default.id")" sh -c 'mknod /tmp/console c 5 1 && test -c /tmp/console'
like <(devices_status default) '^fail .*mknod allowed' "default: strict fails containment.devices on mknod"

# hardened: nothing to make, nothing found; strict passes
is "$(field hardened '[d["nodesAnywhere"], d["mknod"]["capable"], d["mknod"]["allowed"]]')" \
  "[[], false, false]" "hardened: no node, no CAP_MKNOD, mknod not allowed"
"$DOCKER" exec "$(cat "$T/hardened.id")" sh -c 'mknod /tmp/c c 5 1' >"$T/hmknod" 2>&1
like "$T/hmknod" 'Operation not permitted' "hardened: the kernel refuses mknod (EPERM)"
like <(devices_status hardened) '^pass ' "hardened: strict passes containment.devices"
expect_rc 0 "hardened: strict passes" "$V" verify "$T/hardened.intoto.json" --policy strict --key "$T/k.pub"

if [ "$runsc" = 1 ]; then
  is "$(field runsc '[d["nodesAnywhere"], d["walk"], d["mknod"]]')" "[null, null, null]" \
    "runsc: not walked (the sentry serves the session's devices)"
  like <(devices_status runsc) '^pass ' "runsc: containment.devices passes (the sentry's devices)"
fi
done_testing
