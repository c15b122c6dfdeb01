#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The seccomp programs the kernel enforces (containment.seccompPrograms), read on the Debian 13
# test host (scripts/testhost.sh: Docker 26, runc, crun, runsc) by the guest's boxcert as root,
# and judged by strict@2's seccomp.deny: each runtime's default session, a custom profile that
# re-allows mount and keyctl, seccomp=unconfined, a profile stricter than the default, runsc
# with --oci-seccomp and without it (runsc-plain). The guest's own word (each task's
# /proc/PID/status, the OCI config.json the engine wrote) is read beside the certificate.
# Asserted from this machine over ssh. Skips (77) when no test host runs, fails instead under
# BOXCERT_REQUIRE_TESTHOST=1.
. "$(dirname "$0")/../lib/testlib.sh"
need_testhost
PY=/usr/bin/python3                      # this machine's, on what the guest printed
S=bxs-$$                                  # the guest's session names and its folder /tmp/$S
L="--label boxcert.test=$S"
NAMES="runc crun loose unconfined stricter runsc runsc-plain"
trap 'g "docker rm -f $(for n in $NAMES; do printf "%s " "$S-$n"; done) >/dev/null 2>&1; rm -rf /tmp/$S" >/dev/null 2>&1; rm -rf "$T"' EXIT
B=/usr/local/bin/boxcert
MOBY=/run/containerd/io.containerd.runtime.v2.task/moby

g "mkdir -p /tmp/$S" >/dev/null 2>&1
ok "boxcert keygen in the guest" g $B keygen --out "/tmp/$S/k"

# The sessions start in the guest in lanes, in the background, while the checks run (each
# `docker run` costs seconds under emulation; tests/lib/testlib.sh): their arguments here, the
# ones of the custom profiles once those are made. Each runs a session of three processes (sh
# and two sleeps).
three="sh -c 'sleep 600 & sleep 600 & wait'"
GARGS=([runc]="--runtime runc $L"
  [crun]="--runtime crun $L" [unconfined]="$L --security-opt seccomp=unconfined"
  [loose]="$L --security-opt seccomp=/tmp/$S/loose.json"
  [stricter]="$L --security-opt seccomp=/tmp/$S/stricter.json"
  [runsc]="--runtime runsc $L" [runsc-plain]="--runtime runsc-plain $L")
GCMD=([runc]=$three [crun]=$three [unconfined]=$three [loose]=$three [stricter]=$three
  [runsc]=$three [runsc-plain]=$three)
glane "$S" runc unconfined
glane "$S" crun

# ---- Docker 26's own default profile, as the engine hands it to the runtime
oci_seccomp() { # oci_seccomp NAME: linux.seccomp of the session's OCI config.json in the guest
  gv "cat $MOBY/\$(docker inspect -f '{{.Id}}' $S-$1)/config.json" >"$T/$1.config.json"
  "$PY" -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["linux"].get("seccomp"), sort_keys=True))' \
    "$T/$1.config.json" 2>/dev/null
}
# (the runc and crun sessions below, which have no seccomp option, give the default profile)
ok "a runc session with no seccomp option (to read the default profile from)" gstarted "$S" runc
oci_seccomp runc >"$T/d26.json"
"$PY" -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1])), sort_keys=True))' \
  "$BOXCERT_SOURCE_DIR/fixtures/seccomp/docker-26-oci.json" >"$T/fixture.json"
ok "Docker 26's default linux.seccomp is fixtures/seccomp/docker-26-oci.json" cmp -s "$T/d26.json" "$T/fixture.json"
ok "a crun session with no seccomp option" gstarted "$S" crun
is "$(oci_seccomp crun | sha256sum)" "$(sha256sum <"$T/d26.json")" "crun is handed the same default profile"

# Custom profiles made from the default read: mount and keyctl re-allowed; ptrace,
# process_vm_readv/writev and io_uring taken away (stricter). Copied into the guest.
"$PY" - "$T/d26.json" "$T" <<'PYEOF'
import json, sys
sc = json.load(open(sys.argv[1]))
out = sys.argv[2]
loose = json.loads(json.dumps(sc))
loose["syscalls"].append({"names": ["mount", "keyctl"], "action": "SCMP_ACT_ALLOW"})
json.dump(loose, open(out + "/loose.json", "w"))
gone = {"ptrace", "process_vm_readv", "process_vm_writev", "io_uring_setup", "io_uring_enter",
        "io_uring_register"}
for r in sc["syscalls"]:
    r["names"] = [n for n in r["names"] if n not in gone]
sc["syscalls"] = [r for r in sc["syscalls"] if r["names"]]
json.dump(sc, open(out + "/stricter.json", "w"))
PYEOF
for p in loose stricter; do
  ok "the $p profile copied into the guest" g "cat >/tmp/$S/$p.json" <"$T/$p.json"
done
glane "$S" loose stricter runsc runsc-plain

# ---- the sessions, each collected and judged in the guest
start() { ok "$1: the session starts" gstarted "$S" "$1"; } # start NAME: its lane started it
collect() { # collect NAME: certificate, its statement (show), strict@2's findings (verify)
  expect_rc 0 "$1: boxcert collect" g $B collect "$S-$1" --key "/tmp/$S/k.key" --out "/tmp/$S/$1.intoto.json"
  sed 's/^/#   collect: /' "$ERR" | head -n 10
  gv $B show "/tmp/$S/$1.intoto.json" --policy strict@2 --key "/tmp/$S/k.pub" -q >"$T/$1.json"
  gv $B verify "/tmp/$S/$1.intoto.json" --policy strict@2 --key "/tmp/$S/k.pub" --format json >"$T/$1.v.json"
}
q() { # q NAME PYEXPR: over sp (containment.seccompPrograms), c (containment), d (discrepancies)
  "$PY" -c '
import json, sys
p = json.load(open(sys.argv[1]))["predicate"]
c = p["containment"]; sp = c["seccompPrograms"]; d = p["evidence"]["discrepancies"]
def x(ch, abi, name): # the verdict of a chain for a name on an ABI
    a = ch["abis"][abi]
    return "allow" if name in a["allow"] else "depends" if name in a["depends"] else "deny"
print(eval(sys.argv[2]))' "$T/$1.json" "$2" 2>&1
}
deny_verdict() { # deny_verdict NAME: status and message of strict@2's containment.seccomp_deny
  "$PY" -c '
import json, sys
r = json.load(open(sys.argv[1]))
fs = [f for res in r.get("results", [r]) for f in res.get("findings", []) if f["rule"] == "containment.seccomp_deny"]
print(fs[0]["status"] + " " + fs[0]["message"] if fs else "none")' "$T/$1.v.json" 2>&1
}
like_s() { case "$1" in *"$2"*) _tap 0 "$3";; *) echo "#   got: $1"; _tap 1 "$3";; esac; }
statuses() { # statuses NAME: "Seccomp Seccomp_filters" of every task of the session's processes
  gv "for p in \$(docker top $S-$1 -eo pid | tail -n +2); do for s in /proc/\$p/task/*/status; do \
      awk '/^Seccomp:/ {m=\$2} /^Seccomp_filters:/ {f=\$2} END {print m, f}' \$s; done; done" | sort | uniq -c
}

# -- each runtime's default session
for r in runc crun; do
  start $r
  collect $r
  statuses $r >"$T/$r.st"
  sed 's/^/#   tasks (count, Seccomp, Seccomp_filters): /' "$T/$r.st"
  is "$(awk 'END {print NR}' "$T/$r.st") $(awk '{print ($1 >= 3), $2}' "$T/$r.st")" "1 1 2" \
    "$r default: all (3 or more) tasks of the session in filter mode, one count (/proc/PID/status)"
  is "$(q $r "sp['servedBy'], sp['why'], sp['tasks']['unread'], sp['tasks']['none']")" "('kernel', None, 0, 0)" \
    "$r default: read from the kernel, no task unread, none without seccomp"
  is "$(q $r "len(sp['chains']), sp['chains'][0]['tasks'] == sum(ch['tasks'] for ch in sp['chains'])")" "(1, True)" \
    "$r default: one chain for all tasks"
  is "$(q $r "sp['chains'][0]['filters'], sp['chains'][0]['tasks']")" "($(awk '{print $3 ", " $1}' "$T/$r.st"))" \
    "$r default: the chain's filters are the tasks' Seccomp_filters, its tasks their number"
  is "$(q $r "sp['chains'][0]['insns'] > 0, len(sp['chains'][0]['abis']['x86_64']['allow']) > 250")" "(True, True)" \
    "$r default: the chain is non-empty (instructions, an allow list)"
  is "$(q $r "sp['profile']['looser'], [e['field'] for e in d if e['field'].startswith('containment.seccomp')]")" \
    "([], [])" "$r default: the kernel's chain lets through nothing the OCI profile denies, no discrepancy"
  is "$(q $r "c['seccomp']['mode'], c['seccomp']['profile']")" "('filter', 'default')" "$r default: seccomp filter, the default profile"
  like_s "$(deny_verdict $r)" "pass every seccomp chain of the session (1) denies the" \
    "$r default: strict@2's containment.seccomp_deny passes (Docker 26's own default)"
  grm "$S-$r"
done

# -- a custom profile that re-allows mount and keyctl
start loose
is "$(oci_seccomp loose | "$PY" -c 'import json,sys; s=json.load(sys.stdin); print(any(set(r["names"]) >= {"mount", "keyctl"} and r["action"] == "SCMP_ACT_ALLOW" and not r.get("args") for r in s["syscalls"]))')" \
  True "loose: the engine handed runc the profile re-allowing mount and keyctl"
collect loose
is "$(q loose "c['seccomp']['profile'], x(sp['chains'][0], 'x86_64', 'mount'), x(sp['chains'][0], 'x86_64', 'keyctl')")" \
  "('custom', 'allow', 'allow')" "loose: a custom profile; the kernel's chain lets mount and keyctl through"
v=$(deny_verdict loose)
like_s "$v" "fail " "loose: strict@2's containment.seccomp_deny fails"
like_s "$v" "x86_64 mount (allow)" "... naming mount"
like_s "$v" "x86_64 keyctl (allow)" "... and keyctl"
grm "$S-loose"

# -- seccomp=unconfined
start unconfined
statuses unconfined >"$T/unconfined.st"
is "$(awk '{print $2}' "$T/unconfined.st" | sort -u)" 0 "unconfined: every task says Seccomp: 0 (/proc/PID/status)"
collect unconfined
is "$(q unconfined "sp['chains'], sp['tasks']['none'] > 0, c['seccomp']['mode']")" "([], True, 'disabled')" \
  "unconfined: no chain, its tasks without seccomp, mode disabled"
like_s "$(deny_verdict unconfined)" "run without seccomp" "unconfined: strict@2's containment.seccomp_deny fails (tasks run without seccomp)"
grm "$S-unconfined"

# -- a profile stricter than the default
start stricter
collect stricter
is "$(q stricter "c['seccomp']['profile'], len(sp['chains']), x(sp['chains'][0], 'x86_64', 'ptrace'), x(sp['chains'][0], 'x86', 'ptrace')")" \
  "('custom', 1, 'deny', 'deny')" "stricter: a custom profile, one chain, ptrace denied on x86_64 and i386"
like_s "$(deny_verdict stricter)" "pass " "stricter: strict@2's containment.seccomp_deny passes"
grm "$S-stricter"

# -- runsc with --oci-seccomp: the sentry enforces the OCI profile
start runsc
is "$(gv docker exec "$S-runsc" grep Seccomp: /proc/1/status | awk '{print $2}')" 2 \
  "runsc: the workload reports Seccomp: 2 inside the sandbox"
collect runsc
grm "$S-runsc"   # an idle runsc sandbox costs a third of a vCPU under TCG
is "$(q runsc "sp['servedBy'], len(sp['chains']), len(sp['sandbox']) >= 1, sp['profile']['looser']")" \
  "('sentry', 1, True, [])" "runsc: the workload's chain is served by the sentry, its own host filter recorded"
is "$(q runsc "sp['chains'][0]['sha256'] == sp['profile']['sha256'] == c['seccomp']['profileSha256'], sp['chains'][0]['filters']")" \
  "(True, 0)" "runsc: the workload's chain is the OCI profile's rules (its hash, no program)"
is "$(q runsc "x(sp['chains'][0], 'x86_64', 'mount'), x(sp['chains'][0], 'x86_64', 'keyctl'), x(sp['chains'][0], 'x86_64', 'read')")" \
  "('deny', 'deny', 'allow')" "runsc: the profile's meaning (mount and keyctl denied, read let through)"
like_s "$(deny_verdict runsc)" "pass " "runsc: strict@2's containment.seccomp_deny passes"

# -- runsc without --oci-seccomp (runsc-plain): the workload runs without a filter
start runsc-plain
is "$(gv docker exec "$S-runsc-plain" grep Seccomp: /proc/1/status | awk '{print $2}')" 0 \
  "runsc-plain: the workload reports Seccomp: 0 inside the sandbox"
gv "docker info --format '{{json .Runtimes}}'" | "$PY" -c 'import json,sys; r=json.load(sys.stdin); print(r["runsc-plain"].get("runtimeArgs"), r["runsc"].get("runtimeArgs"))' >"$T/rtargs" 2>&1
is "$(cat "$T/rtargs")" "['--network=none'] ['--network=none', '--oci-seccomp']" \
  "docker info: runsc-plain runs runsc without --oci-seccomp, runsc with it"
collect runsc-plain
grm "$S-runsc-plain"
is "$(q runsc-plain "sp['servedBy'], sp['chains'], c['seccomp']['mode']")" "('sentry', [], 'disabled')" \
  "runsc-plain: no workload chain, the certificate says seccomp disabled"
like_s "$(deny_verdict runsc-plain)" "no seccomp program is in force" "runsc-plain: strict@2's containment.seccomp_deny fails (no seccomp program in force)"
done_testing
