#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Mount propagation as the kernel shows it (attest/propagation.c through
# tests/tools/propagation_outside): a default session's root is master:N of its own overlay's
# group and reaches nothing outside; an rslave and an rshared bind of a host folder this test
# makes shared receive a mount made there after start, and their group names the host folder;
# a private bind of the same folder receives nothing.
# Then the certificates (containment.propagationPeers, v3) and the rule
# containment.propagation_peers: a hardened session with a read-only rslave or rshared bind of
# that folder fails strict@3 on that rule alone (it passes strict@2 and strict@1: their verdicts
# stay), the folder and the mount made there later recorded; the hardened session passes; under
# runsc the gofer's mounts are judged the same way (gvisor@3).
. "$(dirname "$0")/../lib/testlib.sh"
need_engine
TOOL=$BOXCERT_BIN/../tests/tools/propagation_outside
PY=/usr/bin/python3
V=$BOXCERT_BIN/boxcert-verify
W=$(mktemp -d "${TMPDIR:-/tmp}/bxt-prop.XXXXXX")
MOUNTED=() # what this test mounted, innermost last
prop_cleanup() {
  local i
  cleanup_sessions
  for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do umount "${MOUNTED[$i]}" 2>/dev/null; done
  rmdir "$W/src/late" "$W/src" 2>/dev/null
  rm -rf "$W"
}
trap prop_cleanup EXIT
[ -x "$TOOL" ] || { echo "not ok 1 - $TOOL built"; echo "1..1"; exit 1; }
mkdir -p "$W/src"
# a host folder that is its own shared mount (this host's root may be private)
ok "host folder made a shared mount" sh -c "mount --bind '$W/src' '$W/src' && mount --make-shared '$W/src'"
MOUNTED+=("$W/src")
mkdir -p "$W/src/late"

merged() { "$DOCKER" inspect --format '{{.GraphDriver.Data.MergedDir}}' "$1"; }
line() { # line NAME POINT: the tool's line for POINT in session NAME
  local id=$1 pid
  pid=$(cpid "$id")
  "$TOOL" "/proc/$pid/mountinfo" /proc/1/mountinfo "$(merged "$id")" | awk -v p="$2" '$1 == p'
}

def=$(session default)
prv=$(session private -v "$W/src:/x")
sl=$(session rslave -v "$W/src:/x:rslave")
sh=$(session rshared -v "$W/src:/x:rshared")
HARD=(--network none --read-only --cap-drop ALL --security-opt no-new-privileges --pids-limit 64
  --memory 256m --tmpfs /tmp:size=64m)
session hard "${HARD[@]}" >"$T/hard.id"
session hslave "${HARD[@]}" -v "$W/src:/x:ro,rslave" >"$T/hslave.id"
session hshared "${HARD[@]}" -v "$W/src:/x:ro,rshared" >"$T/hshared.id"
runsc=0
if has_runtime runsc; then
  runsc=1
  GV=(--runtime runsc --network none --read-only --cap-drop ALL --security-opt no-new-privileges
    --pids-limit 64 --memory 256m)
  session gvhard "${GV[@]}" >"$T/gvhard.id"
  session gvslave "${GV[@]}" -v "$W/src:/x:ro,rslave" >"$T/gvslave.id"
else
  skip_one "runsc is not an engine runtime here"
fi
sleep 1

# the default session's root: a slave, of its own overlay only
head -n 1 "/proc/$(cpid "$def")/mountinfo" >"$T/root"
like "$T/root" ' / [^ ]+ master:[0-9]+ ' "default root is master:N"
is "$(line "$def" /)" "/ 1 -" "default root: nothing outside its own group"
# without the session's own rootfs, its overlay counts (the exclusion decides)
"$TOOL" "/proc/$(cpid "$def")/mountinfo" /proc/1/mountinfo | awk '$1 == "/"' >"$T/noown"
like "$T/noown" "^/ 1 .*/merged" "default root without its own: the overlay is outside"

is "$(line "$prv" /x)" "/x 0 -" "private bind receives nothing"
line "$sl" /x >"$T/sl"
like "$T/sl" "^/x 1 (.*,)?$W/src(,|\$)" "rslave bind: the host folder is in its group"
line "$sh" /x >"$T/sh"
like "$T/sh" "^/x 1 (.*,)?$W/src(,|\$)" "rshared bind: the host folder is in its group"

# ---- certificates before the later mount: the groups alone decide
"$BOXCERT" keygen --out "$T/k" >/dev/null
cp "$T/hslave.id" "$T/hslave0.id"
cp "$T/hshared.id" "$T/hshared0.id"
collect_each "$T/k.key" "$T" hslave0 hshared0

# a host mount made after start appears in the slave and the shared session, not the private
ok "host mount made after start" mount -t tmpfs bxt-late "$W/src/late"
MOUNTED+=("$W/src/late")
for s in rslave:$sl rshared:$sh; do
  ok "${s%%:*}: the later host mount appears inside" \
    "$DOCKER" exec "${s#*:}" grep -q ' /x/late ' /proc/self/mountinfo
done
"$DOCKER" exec "$prv" cat /proc/self/mountinfo >"$T/prv"
unlike "$T/prv" ' /x/late ' "private: the later host mount does not appear"

# ---- the certificates after it, which record it too
names=(hard hslave hshared)
[ $runsc = 1 ] && names+=(gvhard gvslave)
collect_each "$T/k.key" "$T" "${names[@]}"
names+=(hslave0 hshared0)
for n in "${names[@]}"; do check_schema certificate "$T/$n.intoto.json"; done
peers() { # peers CERT: one line per propagationPeers entry, "null" when the member is null
  "$PY" - "$1" <<'PY'
import base64, json, sys
st = json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))
assert st["predicateType"] == "urn:boxcert:containment:v3"
p = st["predicate"]["containment"]["propagationPeers"]
if p is None:
    print("null")
for e in p or []:
    o = e["outside"]
    print(e["destination"], e["propagation"], "null" if o is None else ",".join(o) or "-")
PY
}
for n in "${names[@]}"; do peers "$T/$n.intoto.json" >"$T/$n.peers"; done
like "$T/hard.peers" '^/ master:[0-9]+ -$' "hardened: the root, master of its own group, nothing outside"
is "$(wc -l <"$T/hard.peers")" 1 "hardened: the root alone receives"
like "$T/hslave.peers" "^/x master:[0-9]+ $W/src\$" "rslave: /x a slave of the host folder's group, the folder recorded"
like "$T/hslave.peers" "^/x/late master:[0-9]+ $W/src/late\$"   "rslave: the mount made on the host after start recorded, its host point"
like "$T/hshared.peers" "^/x shared:[0-9]+( master:[0-9]+)? (.*,)?$W/src(,|\$)"   "rshared: /x in the host folder's group, the folder recorded"
like "$T/hslave.peers" '^/ master:[0-9]+ -$' "rslave: the root still names nothing outside"
like "$T/hslave0.peers" "^/x master:[0-9]+ $W/src\$" "rslave, before the later mount: /x names the host folder"
unlike "$T/hslave0.peers" "^/x/late " "rslave, before the later mount: nothing at /x/late"
if [ $runsc = 1 ]; then
  like "$T/gvhard.peers" '^/ master:[0-9]+ -$' "runsc hardened: the gofer's root, nothing outside"
  like "$T/gvslave.peers" "^/x master:[0-9]+ $W/src\$" "runsc rslave: the gofer's /x names the host folder"
fi

status_of() { # status_of NAME POLICY: containment.propagation_peers' status ("" when not judged)
  "$V" verify "$T/$1.intoto.json" --policy "$2" --key "$T/k.pub" --format json |
    "$PY" -c 'import json,sys; print(" ".join(f["status"] for f in json.load(sys.stdin)["results"][0]["findings"] if f["rule"] == "containment.propagation_peers"))'
}
not_passing() { # not_passing NAME POLICY: the rules that did not pass, sorted
  "$V" verify "$T/$1.intoto.json" --policy "$2" --key "$T/k.pub" --format json |
    "$PY" -c 'import json,sys; print(" ".join(sorted({f["rule"] for f in json.load(sys.stdin)["results"][0]["findings"] if f["status"] not in ("pass", "n/a")})) or "-")'
}
verdict() { "$V" verify "$T/$1.intoto.json" --policy "$2" --key "$T/k.pub" >"$T/$1.$2.v" 2>&1; echo $?; }
is "$(status_of hard strict@3)" pass "hardened: strict@3 passes containment.propagation_peers"
is "$(verdict hard strict@3)" 0 "hardened: strict@3 passes"
# before the later mount: strict@3 fails on this rule alone, strict@2 and @1 keep their verdicts
for n in hslave0 hshared0; do
  is "$(verdict $n strict@3)" 1 "$n: strict@3 fails"
  is "$(not_passing $n strict@3)" containment.propagation_peers "$n: on containment.propagation_peers alone"
  for old in strict@2 strict@1; do
    is "$(status_of $n $old)" "" "$n: $old has no containment.propagation_peers"
    is "$(verdict $n $old)" "$(verdict hard $old)" "$n: $old's verdict is the hardened session's"
  done
done
# after it: the mount that arrived is a writable tmpfs the engine never listed; strict@3 fails
# on the peers too
for n in hslave hshared; do
  is "$(status_of $n strict@3)" fail "$n, after the later mount: strict@3 fails containment.propagation_peers"
done
verdict hslave strict@3 >/dev/null
like "$T/hslave.strict@3.v" "fail containment.propagation_peers: [0-9]+ mount\(s\) receive mounts made on this host outside the session: /x \(master:[0-9]+\) receives from $W/src"   "rslave: the finding names the mount, its tag and the host folder"
is "$(status_of hslave cis-docker@3)" fail "rslave: cis-docker@3 fails containment.propagation_peers"
printf 'version: 1\ncontainment:\n  propagationFromHost: true\n' >"$T/allow.yaml"
is "$(status_of hslave "$T/allow.yaml")" pass "a policy allowing propagation from the host passes"
if [ $runsc = 1 ]; then
  is "$(status_of gvhard gvisor@3)" pass "runsc hardened: gvisor@3 passes containment.propagation_peers"
  is "$(status_of gvslave gvisor@3)" fail "runsc rslave: gvisor@3 fails containment.propagation_peers"
fi
done_testing
