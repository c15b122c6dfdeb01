#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# containment.references (predicate v3) on real sessions. A host process (test-owned, killed by
# its pid) opens host files and folders outside every mount of the sessions and passes each
# descriptor over a unix socket in a read-only volume; the session makes a reference of it and
# closes the descriptor: a working directory (fchdir), a root (chroot), an executable
# (execveat), a private read-only mapping, a shared writable mapping, a file registered with an
# io_uring, a second thread's own working directory. Beside them: a session mapping and
# standing in its own volume's files (no reference), a session whose init is chrooted into a
# folder of its own root file system (its mount namespace read whole, whatever its root), a
# hardened session that passes strict, and under runsc a session with none.
. "$(dirname "$0")/../lib/testlib.sh"
need_engine
PY=/usr/bin/python3
V=$BOXCERT_BIN/boxcert-verify
trap stop_helpers EXIT

mkdir -p "$T/ch" "$T/host/dir" "$T/host/bin"
static_helper references_helper "$T/ch/references_helper"
echo "# built: ${SECONDS}s"
H="$T/ch/references_helper"
cp "$H" "$T/host/bin/references_helper"
H2="$T/host/bin/references_helper"
for f in ro rw ring; do head -c 8192 /dev/zero >"$T/host/$f.dat"; done
head -c 8192 /dev/zero >"$T/ch/own.dat"
"$BOXCERT" keygen --out "$T/k" >/dev/null
uring_off=$(cat /proc/sys/kernel/io_uring_disabled 2>/dev/null || echo 0)

until_says() { # until_says FILE REGEX
  for _ in $(seq 100); do grep -qE "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  return 1
}
"$H2" serve "$T/ch/s.sock" >"$T/serve.out" 2>&1 &
HELPERS+=($!)
ok "a host helper passes descriptors" until_says "$T/serve.out" '^listening$'

in_session() { # in_session NAME [docker args...] -- HELPER-ARGS...
  local name=$1 args=(); shift
  while [ "$1" != -- ]; do args+=("$1"); shift; done; shift
  session "$name" --network none -v "$T/ch:/ch:ro" "${args[@]}" -- /ch/references_helper "$@" \
    >"$T/$name.id"
}
# the sessions start together (one docker run each, in the background); each its own ok line
start() { # start NAME WHAT [docker args...] -- HELPER-ARGS...
  local name=$1 what=$2; shift 2
  ( in_session "$name" "$@" 2>"$T/$name.err"; echo $? >"$T/$name.rc" ) &
  echo "$what" >"$T/$name.what"
}
start cwd "a host folder as working directory" -- take /ch/s.sock p "$T/host/dir" cwd
start root "a host folder as root" -- take /ch/s.sock p "$T/host/dir" root
start exe "a host file executed" -- take /ch/s.sock p "$H2" exe
start mapro "a host file mapped private, read-only" -- take /ch/s.sock r "$T/host/ro.dat" mapro
start maprw "a host file mapped shared, writable" -- take /ch/s.sock w "$T/host/rw.dat" maprw
# the engine's default seccomp profile refuses io_uring_setup, and unshare even of CLONE_FS
# alone: those two sessions run without it
start uring "a host file registered with an io_uring" --security-opt seccomp=unconfined -- \
  take /ch/s.sock w "$T/host/ring.dat" uring
start tcwd "a thread's own working directory a host folder" --security-opt seccomp=unconfined -- \
  take /ch/s.sock p "$T/host/dir" tcwd
start own "the session's own file mapped, its folder the working directory" -- own /ch/own.dat
start chsub "the init chrooted into a folder of its own root" -- chroot /tmp
( session hard --network none --read-only --cap-drop ALL --security-opt no-new-privileges \
  --pids-limit 64 --memory 256m --tmpfs /tmp:size=64m --user 65532:65532 >"$T/hard.id" \
  2>"$T/hard.err"; echo $? >"$T/hard.rc" ) &
echo "hardened" >"$T/hard.what"
wait_starts() { # wait_starts NAME...: one ok line per session started
  local n
  for n in "$@"; do
    while [ ! -s "$T/$n.rc" ]; do sleep 0.1; done
    cp "$T/$n.err" "$ERR"; : >"$OUT"
    _tap "$(cat "$T/$n.rc")" "$n: $(cat "$T/$n.what")"
  done
}
names=(cwd root exe mapro maprw uring tcwd own chsub hard)
if has_runtime runsc; then
  start gv "a runsc session" --runtime runsc -- hold
  names+=(gv)
fi
wait_starts "${names[@]}"
echo "# started: ${SECONDS}s"
logs_say() { # logs_say NAME REGEX
  for _ in $(seq 100); do
    "$DOCKER" logs "$(cat "$T/$1.id")" 2>&1 | grep -qE "$2" && return 0; sleep 0.1
  done
  return 1
}
for n in cwd root exe mapro maprw uring tcwd own chsub; do ok "$n: the reference is made" logs_say $n '^took$'; done
ring=1
if "$DOCKER" logs "$(cat "$T/uring.id")" 2>&1 | grep -q '^no-uring'; then
  ring=0
  echo "# io_uring refused here: $("$DOCKER" logs "$(cat "$T/uring.id")" 2>&1 | grep no-uring) (io_uring_disabled=$uring_off)"
fi

echo "# started and made: ${SECONDS}s"
collect_each "$T/k.key" "$T" "${names[@]}"
echo "# collected: ${SECONDS}s"
check_schema certificate $(for n in "${names[@]}"; do echo "$T/$n.intoto.json"; done)

refs() { # refs CERT: one line per reference, then the root file system and system paths
  "$PY" - "$1" <<'PY'
import base64, json, sys
st = json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))
c = st["predicate"]["containment"]
assert st["predicateType"] == "urn:boxcert:containment:v3"
for e in c["references"] if c["references"] is not None else []:
    print("ref", e["pid"], e["via"], e["kind"], e["target"], e["perms"])
print("references", "null" if c["references"] is None else len(c["references"]))
print("rootfs.readOnly", json.dumps(c["rootfs"]["readOnly"]))
print("writeSurface", json.dumps(sorted(w["path"] for w in c["writeSurface"] or [])))
print("systemPaths", json.dumps(c["systemPaths"], sort_keys=True))
print("nodes", json.dumps(sorted(n["path"] for n in c["devices"]["nodes"]) if c["devices"]["nodes"] is not None else None))
PY
}
for n in "${names[@]}"; do refs "$T/$n.intoto.json" >"$T/$n.txt"; done
echo "# checked: ${SECONDS}s"
pid() { cpid "$(cat "$T/$1.id")"; }

like "$T/cwd.txt" "^ref $(pid cwd) cwd host-directory $T/host/dir None\$" "cwd: the host folder, by its host path"
is "$(grep -c '^ref ' "$T/cwd.txt")" 1 "cwd: nothing else (the passed descriptor closed)"
like "$T/root.txt" "^ref $(pid root) root host-directory $T/host/dir None\$" "root: the host folder as root"
is "$(grep -c '^ref ' "$T/root.txt")" 1 "root: its working directory back on the session's own root"
like "$T/root.txt" '^rootfs.readOnly false$' "root: the init chrooted to a host folder, its namespace's mounts still read"
like "$T/exe.txt" "^ref $(pid exe) exe host-file $H2 None\$" "exe: the host file executed"
like "$T/exe.txt" "^ref $(pid exe) mapping host-file $H2 r-xp\$" "exe: and its text mapped from the host"
like "$T/mapro.txt" "^ref $(pid mapro) mapping host-file $T/host/ro.dat r--p\$" "mapro: the private read-only mapping"
is "$(grep -c '^ref ' "$T/mapro.txt")" 1 "mapro: nothing else"
like "$T/maprw.txt" "^ref $(pid maprw) mapping host-file $T/host/rw.dat rw-s\$" "maprw: the shared writable mapping, s kept"
is "$(head -c 1 "$T/host/rw.dat")" w "maprw: it writes to the host's file"
if [ $ring = 1 ]; then
  like "$T/uring.txt" "^ref $(pid uring) io_uring unplaced $T/host/ring.dat None\$" "uring: the registered host file, by the kernel's name"
  is "$(grep -c '^ref ' "$T/uring.txt")" 1 "uring: nothing else"
else
  like "$T/uring.txt" '^references 0$' "uring: no ring here, the list read and empty"
fi
like "$T/tcwd.txt" "^ref $(pid tcwd) cwd host-directory $T/host/dir None\$" "tcwd: a thread's working directory, not only the leader's"
for n in own chsub hard; do is "$(grep -c '^ref ' "$T/$n.txt")" 0 "$n: no reference"; done
like "$T/own.txt" '^references 0$' "own: the list read, empty"
# a chrooted init's own mountinfo lists no mount above its root: read from it, the write surface
# was empty, rootfs.readOnly null and masked paths absent
like "$T/chsub.txt" '^rootfs.readOnly false$' "chsub: the chrooted init's namespace read whole: the root file system writable"
is "$(grep '^writeSurface' "$T/chsub.txt")" "$(grep '^writeSurface' "$T/own.txt")" \
  "chsub: the write surface that of an unchrooted session of the same flags"
like "$T/chsub.txt" '^writeSurface \[.*"/".*\]$' "chsub: the root file system in it"
is "$(grep '^systemPaths' "$T/chsub.txt")" "$(grep '^systemPaths' "$T/own.txt")" \
  "chsub: the system paths those of an unchrooted session of the same flags"
is "$(grep '^nodes' "$T/chsub.txt")" "$(grep '^nodes' "$T/own.txt")" \
  "chsub: the device nodes beneath the namespace's root, not the chroot"
like "$T/chsub.txt" '^nodes \[.*"/dev/null".*\]$' "chsub: /dev/null among them"
[ -f "$T/gv.txt" ] && like "$T/gv.txt" '^references 0$' "runsc: none (the sandbox's are the runtime's)"

status_of() { # status_of NAME POLICY: containment.references' status (none: no finding)
  "$V" verify "$T/$1.intoto.json" --policy "$2" --key "$T/k.pub" --format json |
    "$PY" -c 'import json,sys; print(" ".join([f["status"] for f in json.load(sys.stdin)["results"][0]["findings"] if f["rule"] == "containment.references"]) or "none")'
}
verdict() { "$V" verify "$T/$1.intoto.json" --policy "$2" --key "$T/k.pub" >"$T/$1.v" 2>&1; echo $? >"$T/$1.rc"; }
out=(cwd root exe mapro maprw tcwd)
[ $ring = 1 ] && out+=(uring)
for n in "${out[@]}"; do
  verdict $n strict
  [ "$(cat "$T/$n.rc")" != 0 ] && [ "$n" != uring ] && like "$T/$n.v" 'fail containment.references' "$n: strict fails containment.references"
  [ $n = uring ] && is "$(status_of uring strict)" unknown "uring: a file the kernel names without its mount: unknown, not a pass"
  [ $n = uring ] && { [ "$(cat "$T/uring.rc")" != 0 ]; _tap $? "uring: strict does not pass"; }
done
# strict@2 over all of them at once: no finding of containment.references in any
"$V" verify $(for n in "${out[@]}"; do echo "$T/$n.intoto.json"; done) --policy strict@2 \
  --key "$T/k.pub" --format json >"$T/s2.json"
"$PY" - "$T/s2.json" "${#out[@]}" <<'PY' >"$T/s2.txt"
import json, sys
rs = json.load(open(sys.argv[1]))["results"]
assert len(rs) == int(sys.argv[2])
for r in rs:
    print(len(r["findings"]), sum(f["rule"] == "containment.references" for f in r["findings"]))
PY
is "$(wc -l <"$T/s2.txt")" "${#out[@]}" "strict@2: one result per certificate"
unlike "$T/s2.txt" '^0 |^[0-9]+ [1-9]' "strict@2: findings in each, none of containment.references (its verdicts unchanged)"
like "$T/maprw.v" "process $(pid maprw) mapping rw-s: host-file $T/host/rw.dat" "maprw: naming the shared writable mapping"
like "$T/root.v" "process $(pid root) root: host-directory $T/host/dir" "root: naming the root"
for n in own chsub; do is "$(status_of $n strict)" pass "$n: strict passes containment.references"; done
verdict hard strict
is "$(status_of hard strict)" pass "hard: strict passes containment.references"
is "$(cat "$T/hard.rc")" 0 "hard: strict passes"
verdict hard strict@2
is "$(cat "$T/hard.rc")" 0 "hard: strict@2 passes as before"
[ -f "$T/gv.txt" ] && is "$(status_of gv gvisor)" pass "runsc: gvisor passes containment.references"
printf 'version: 1\ncontainment:\n  references: {allow: [host-file]}\n' >"$T/allow.yaml"
is "$(status_of maprw "$T/allow.yaml")" pass "a policy allowing host files passes the shared mapping"
is "$(status_of root "$T/allow.yaml")" fail "and not a host folder as root"
done_testing
