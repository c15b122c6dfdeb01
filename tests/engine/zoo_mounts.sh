#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The mounts zoo (issue 21, items 2-5): sessions that reach the engine's socket, a runtime's
# folder, this host's procfs, sysfs or root, or the signing key through a mount the engine
# describes otherwise (a symlink re-pointed after start, a volume bound to /run, a folder
# holding a hard link to the socket), and sessions that reach nothing. Each session's truth is
# read on this host by tests/engine/zoo_mounts_probe.py (its mountinfo, or its gofer's under
# runsc, and this host's; none of boxcert's code) and every certificate's hostObjects is held
# to it object by object; then the verdicts under strict and cis-docker.
. "$(dirname "$0")/../lib/testlib.sh"
need_engine
PY=/usr/bin/python3
HERE=$BOXCERT_SOURCE_DIR/tests/engine
started_at=$(date +%s)
W=/tmp/bxz-mounts-$$        # this test's host folders
HL=/run/bxz-hl-$$           # a folder on /run's file system holding a hard link to the socket
VOL=bxz-run-$$              # a local volume bound to /run
SOCK=$(readlink -f /var/run/docker.sock)
zoo_cleanup() {
  cleanup_sessions
  "$DOCKER" volume rm -f "$VOL" >/dev/null 2>&1
  rm -rf "$W" "$HL"
}
trap zoo_cleanup EXIT

mkdir -p "$T/certs" "$W/safe" "$W/other" "$W/keys" "$HL"
"$BOXCERT" keygen --out "$W/keys/k" >/dev/null
KEY=$W/keys/k.key
echo data >"$W/safe/file"
echo data >"$W/other/file"
ln "$W/other/file" "$W/other/file.2"    # a hard link to a file that is no host object
ln -s /run "$W/link"                     # re-pointed to $W/safe once the session runs
ok "a hard link to the engine's socket in a folder of its own" ln "$SOCK" "$HL/engine.sock"
ok "a local volume bound to /run" "$DOCKER" volume create --label "boxcert.test=$RUN_ID" \
  --opt type=none --opt o=bind --opt device=/run "$VOL"

HARD=(--network none --read-only --cap-drop ALL --security-opt no-new-privileges --pids-limit 64
  --memory 256m --tmpfs /tmp:size=64m)
# Sessions start BOXCERT_ZOO_JOBS at a time (zoo_run), the runsc ones last: an idle sandbox
# polls a CPU while the others start.
run() { zoo_run "$@"; }
id() { cat "$T/$1.id"; }
pid() { cpid "$(id "$1")"; }
gofer() { # the runsc gofer of session NAME: found by its command line, as ps shows it
  local cid; cid=$(id "$1")
  pgrep -f "runsc-gofer.*$cid" | head -n 1
}

# -- the sessions: reaching nothing
run clean "${HARD[@]}"
run bind-safe "${HARD[@]}" -v "$W/safe:/data:ro"
run hardlink-other "${HARD[@]}" -v "$W/other:/data:ro"
# -- reaching a host object through a mount the engine names otherwise
run symlink-repointed "${HARD[@]}" -v "$W/link:/data:ro"
run volume-run "${HARD[@]}" -v "$VOL:/vol:ro"
run hardlink-folder "${HARD[@]}" -v "$HL:/hl:ro"
run hardlink-file "${HARD[@]}" -v "$HL/engine.sock:/x.sock:ro"
run var-run "${HARD[@]}" -v /var/run:/vr:ro
run host-proc "${HARD[@]}" -v /proc:/hostproc:ro
run host-sys "${HARD[@]}" -v /sys:/hostsys:ro
run host-root "${HARD[@]}" -v /:/host:ro
run containerd-folder "${HARD[@]}" -v /run/containerd:/c:ro
run containerd-inside "${HARD[@]}" -v /run/containerd/fifo:/f:ro
run netns "${HARD[@]}" -v /run/docker/netns:/netns:ro
run host-dev "${HARD[@]}" -v /dev:/hostdev:ro
run key-folder "${HARD[@]}" -v "$W/keys:/keys:ro"
# crun, where the engine has it (the test host): one reaching nothing, two reaching the socket
crun_clean="" crun_reach=""
if has_runtime crun; then
  run crun-clean --runtime crun "${HARD[@]}" -v "$W/safe:/data:ro"
  run crun-run --runtime crun "${HARD[@]}" -v /run:/hostrun:ro
  run crun-hardlink --runtime crun "${HARD[@]}" -v "$HL:/hl:ro"
  crun_clean=crun-clean crun_reach="crun-run crun-hardlink"
fi
# runsc: one reaching nothing, the rest reaching the socket or this host's procfs
run runsc-clean --runtime runsc "${HARD[@]}" -v "$W/safe:/data:ro"
run runsc-run --runtime runsc "${HARD[@]}" -v /run:/hostrun:ro
run runsc-hardlink --runtime runsc "${HARD[@]}" -v "$HL:/hl:ro"
run runsc-proc --runtime runsc "${HARD[@]}" -v /proc:/hostproc:ro
zoo_wait
ok "re-point the symlink once the session runs" ln -sfn "$W/safe" "$W/link"

# runsc-proc: whether the gofer holds this host's procfs is the runsc version's (20221219 does
# not pass it: /hostproc is a tmpfs holding the sandbox's own procfs; 20240729 binds it), read
# here from the gofer's mountinfo: a mount of this host's procfs device
proc_dev=$(awk '$5 == "/proc" {print $3; exit}' /proc/self/mountinfo)
runsc_proc=clean
gp=$(gofer runsc-proc)
[ -n "$gp" ] && awk -v d="$proc_dev" '$3 == d {f = 1} END {exit !f}' "/proc/$gp/mountinfo" &&
  runsc_proc=reach
echo "# runsc-proc: the gofer $([ $runsc_proc = reach ] && echo holds || echo does not hold) this host's procfs ($proc_dev)"
clean="clean bind-safe hardlink-other runsc-clean $crun_clean"
reach="symlink-repointed volume-run hardlink-folder hardlink-file var-run host-proc host-sys
  host-root containerd-folder containerd-inside netns host-dev key-folder runsc-run
  runsc-hardlink $crun_reach"
if [ $runsc_proc = reach ]; then reach="$reach runsc-proc"; else clean="$clean runsc-proc"; fi
names="$clean $reach"
started=0
for n in $names; do [ -s "$T/$n.id" ] && started=$((started + 1)); done
is "$started" "$(echo $names | wc -w)" "every session started ($(echo $names | wc -w))"
is "$("$DOCKER" inspect --format '{{range .Mounts}}{{.Source}}{{end}}' "$(id symlink-repointed)")" \
  "$W/link" "symlink-repointed: the engine names the link"
is "$(readlink -f "$W/link")" "$W/safe" "... which now points at a safe folder"

# (no two of these sessions share a namespace: collected side by side where
# BOXCERT_COLLECT_JOBS says so)
# shellcheck disable=SC2086
collect_each "$KEY" "$T/certs" $names
check_schema certificate "$T"/certs/*.intoto.json

# -- the truth, read by the probe on this host, against every certificate
args=()
for n in $names; do
  case $n in runsc-*) p=$(gofer "$n") ;; *) p=$(pid "$n") ;; esac
  [ -n "$p" ] || echo "# $n: no process found for the probe"
  args+=("$n=$p")
done
probe_lines=0
while IFS=$'\t' read -r st label got; do
  probe_lines=$((probe_lines + 1))
  if [ "$st" = PASS ]; then _tap 0 "$label"; else echo "#   got: $got"; _tap 1 "$label"; fi
done < <($PY "$HERE/zoo_mounts_probe.py" "$T/certs" "$KEY" "${args[@]}" 2>"$T/probe.err";
  rc=$?; [ $rc = 0 ] && echo "PASS	the probe exits 0" || echo "FAIL	the probe exits 0	$rc")
[ -s "$T/probe.err" ] && sed 's/^/#   probe: /' "$T/probe.err" | head -n 5
ok "the probe judged every session's objects ($probe_lines lines)" test "$probe_lines" -ge 200
# every runsc session is collected and its gofer probed: removed now (an idle sandbox polls a
# CPU; what follows reads the certificates and tables only)
"$DOCKER" rm -f $(for n in $names; do case $n in runsc-*) id "$n" ;; esac; done) >/dev/null 2>&1

# -- a few truths by hand, beside the probe's
# (each kind of check is one python run over a table: under emulation a python start costs
# a second or more)
checks() { # checks TABLE: the TAP lines of tests/engine/zoo_mounts_checks.py over TABLE
  local st label got
  while IFS=$'\t' read -r st label got; do
    if [ "$st" = PASS ]; then _tap 0 "$label"; else echo "#   got: $got"; _tap 1 "$label"; fi
  done < <($PY "$HERE/zoo_mounts_checks.py" "$1" 2>"$T/checks.err"; rc=$?
    [ $rc = 0 ] || echo "FAIL	the checks of $(basename "$1") run	exit $rc: $(head -c 300 "$T/checks.err")")
}
: >"$T/reached"
reached() { # reached NAME PATH: the certificate says PATH is reachable
  printf 'reached\t%s\t%s\t%s\n' "$T/certs/$1.intoto.json" "$1" "$2" >>"$T/reached"
}
for n in symlink-repointed volume-run hardlink-folder hardlink-file var-run host-root runsc-run \
  runsc-hardlink $crun_reach; do
  reached "$n" "$SOCK"
done
reached host-proc /proc
[ $runsc_proc = reach ] && reached runsc-proc /proc
reached host-sys /sys
reached host-root /
reached containerd-folder /run/containerd
reached containerd-inside /run/containerd
reached key-folder "$KEY"
reached key-folder "$W/keys"
checks "$T/reached"
ok "symlink-repointed: the mount's source is the kernel's (/run), with a discrepancy" $PY -c '
import base64, json, sys
p = json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))["predicate"]
m = [x for x in p["containment"]["mounts"] if x["destination"] == "/data"][0]
d = [x for x in p["evidence"]["discrepancies"] if x["field"] == "containment.mounts[/data].source"]
assert m["source"] == "/run" and d and d[0]["recorded"] == "/run", (m, d)' \
  "$T/certs/symlink-repointed.intoto.json"
ok "volume-run: the volume's source is /run" $PY -c '
import base64, json, sys
p = json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))["predicate"]
m = [x for x in p["containment"]["mounts"] if x["destination"] == "/vol"][0]
assert m["source"] == "/run", m' "$T/certs/volume-run.intoto.json"
ok "netns and host-dev: nsfs and devtmpfs are forbidden types" $PY -c '
import base64, json, sys
def types(f):
    p = json.loads(base64.b64decode(json.load(open(f))["payload"]))["predicate"]
    return {t["fsType"] for t in p["containment"]["hostObjects"]["forbiddenTypes"]}
assert "nsfs" in types(sys.argv[1]), types(sys.argv[1])
assert "devtmpfs" in types(sys.argv[2]), types(sys.argv[2])' "$T/certs/netns.intoto.json" \
  "$T/certs/host-dev.intoto.json"

# crun masks /proc/kcore with this host's /dev/null (a devtmpfs bind of that node alone): the
# mount is described, and is not a forbidden type; /dev bound whole (host-dev) still is
for n in $crun_clean; do
  ok "$n: /proc/kcore masked by a read-only devtmpfs bind of the null device, not forbidden" $PY -c '
import base64, json, sys
p = json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))["predicate"]
ho = p["containment"]["hostObjects"]
m = [x for x in ho["mounts"] if x["destination"] == "/proc/kcore"]
assert m and m[0]["fsType"] == "devtmpfs" and m[0]["readOnly"] is True and m[0]["type"] == "char-device", m
assert not ho["forbiddenTypes"], ho["forbiddenTypes"]' "$T/certs/$n.intoto.json"
done

# -- verdicts
"$BOXCERT" verify "$T"/certs/*.intoto.json --policy strict --key "$W/keys/k.pub" --format json \
  --output "$T/strict.json" >/dev/null 2>&1
"$BOXCERT" verify "$T"/certs/*.intoto.json --policy cis-docker --key "$W/keys/k.pub" \
  --format json --output "$T/cis.json" >/dev/null 2>&1
"$BOXCERT" verify "$T"/certs/*.intoto.json --policy strict@1 --key "$W/keys/k.pub" \
  --format json --output "$T/strict1.json" >/dev/null 2>&1
check_schema report "$T/strict.json" "$T/cis.json" "$T/strict1.json"
: >"$T/verdicts"
judged() { # judged REPORT NAME RULE STATUS
  printf 'judged\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$T/verdicts"
}
verdict() { # verdict REPORT NAME VERDICT
  printf 'verdict\t%s\t%s\t%s\n' "$1" "$2" "$3" >>"$T/verdicts"
}
# (a clean session does not pass strict here: the sessions that bind /run hold its network
# namespace's bind mount, namespaces.notShared: [net])
for n in $clean; do
  judged "$T/strict.json" "$n" containment.host_objects pass
  judged "$T/cis.json" "$n" containment.host_objects pass
done
for n in $reach; do
  verdict "$T/strict.json" "$n" fail
  judged "$T/strict.json" "$n" containment.host_objects fail
  judged "$T/cis.json" "$n" containment.host_objects fail
done
# strict@1 judges by the engine's paths: the re-pointed symlink and the hard link pass it
# (what issue 21 found); @2 is what closes them
verdict "$T/strict1.json" hardlink-folder pass
checks "$T/verdicts"
echo "# zoo_mounts: $(( $(date +%s) - started_at ))s"
done_testing
