#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The seccomp programs the kernel enforces (issue 25), read from every task of real sessions on
# this engine and judged by meaning: Docker's default profile, a stricter custom one, one that
# re-allows mount and keyctl, seccomp=unconfined, argument conditions, a thread that loads a
# filter of its own after start, the i386 ABI, runsc with and without --oci-seccomp, and a
# session that traces one of its own processes. What each chain lets through is checked
# against the kernel's own answers inside the session (tests/engine/seccomp_helper.c, built
# static here, mounted at /sc): a syscall the certificate says is denied gets the profile's
# errno, one it says is let through gets the kernel's answer to its bad arguments. Every task
# of every session must run on untraced and unstopped after each collection.
. "$(dirname "$0")/../lib/testlib.sh"
need_engine
PY=/usr/bin/python3
HERE=$BOXCERT_SOURCE_DIR/tests/engine
mkdir -p "$T/sc"
static_helper seccomp_helper "$T/sc/seccomp_helper"
"$BOXCERT" keygen --out "$T/k" >/dev/null

# strict@2's list as a policy of its own (so that only seccomp is judged)
"$PY" - "$BOXCERT_SOURCE_DIR/policy/profiles/strict@2.yaml" >"$T/deny.yaml" <<'PYEOF'
import json, sys, yaml
p = yaml.safe_load(open(sys.argv[1]))
print(json.dumps({"version": 1, "containment": {"seccomp": {"deny": p["containment"]["seccomp"]["deny"]}}}))
PYEOF
# profiles in Docker's format, from the default the engine gave a container
base=$(session probe -- sleep 600)
ok "a session to read the default profile from" test -n "$base"
cfg=/run/containerd/io.containerd.runtime.v2.task/moby/$base/config.json
"$PY" - "$cfg" "$T" <<'PYEOF'
import json, sys
sc = json.load(open(sys.argv[1]))["linux"]["seccomp"]
out = sys.argv[2]
def drop(p, names):
    for r in p["syscalls"]:
        r["names"] = [n for n in r["names"] if n not in names]
    p["syscalls"] = [r for r in p["syscalls"] if r["names"]]
    return p
strict = drop(json.loads(json.dumps(sc)), {"ptrace", "process_vm_readv", "process_vm_writev",
                                            "io_uring_setup", "io_uring_enter", "io_uring_register"})
json.dump(strict, open(out + "/stricter.json", "w"))
loose = json.loads(json.dumps(sc))
loose["syscalls"].append({"names": ["mount", "keyctl"], "action": "SCMP_ACT_ALLOW"})
json.dump(loose, open(out + "/loose.json", "w"))
args = drop(json.loads(json.dumps(sc)), {"socket"})
args["syscalls"].append({"names": ["socket"], "action": "SCMP_ACT_ALLOW",
                         "args": [{"index": 0, "value": 1, "op": "SCMP_CMP_EQ"}]})
json.dump(args, open(out + "/args.json", "w"))
PYEOF
"$DOCKER" rm -f "$base" >/dev/null

HARD=(--network none --read-only --cap-drop ALL --security-opt no-new-privileges --pids-limit 64
  --memory 256m -v "$T/sc:/sc:ro")
TRY=(/sc/seccomp_helper try mount keyctl ptrace unshare socket-inet socket-unix)
# the sessions start BOXCERT_ZOO_JOBS at a time (tests/lib/testlib.sh: zoo_run; the test host: 2)
run() { zoo_run "$@"; } # run NAME ARGS... [-- CMD...]
id() { cat "$T/$1.id"; }
run default -v "$T/sc:/sc:ro" -- "${TRY[@]}"
run stricter "${HARD[@]}" --security-opt "seccomp=$T/stricter.json" -- "${TRY[@]}"
run loose "${HARD[@]}" --security-opt "seccomp=$T/loose.json" -- "${TRY[@]}"
run unconfined "${HARD[@]}" --security-opt seccomp=unconfined -- "${TRY[@]}"
run args "${HARD[@]}" --security-opt "seccomp=$T/args.json" -- "${TRY[@]}"
run extra "${HARD[@]}" -- /sc/seccomp_helper extra
run i386 "${HARD[@]}" -- /sc/seccomp_helper i386
run trace "${HARD[@]}" -- /sc/seccomp_helper trace
run runsc --runtime runsc --network none --read-only --cap-drop ALL \
  --security-opt no-new-privileges --pids-limit 64 --memory 256m
have_plain_runsc=0
if "$DOCKER" info --format '{{json .Runtimes}}' | grep -q '"runsc-plain"'; then
  have_plain_runsc=1
  run runsc-plain --runtime runsc-plain --network none --read-only --cap-drop ALL \
    --security-opt no-new-privileges --pids-limit 64 --memory 256m
fi
zoo_wait
# what each session printed, once it printed all (probe reads it from here)
for n in default stricter loose unconfined args extra i386 trace; do
  for _ in $(seq 1 50); do
    "$DOCKER" logs "$(id $n)" >"$T/$n.log" 2>/dev/null; grep -q '^done' "$T/$n.log" && break; sleep 0.1
  done
done

collect() { # collect NAME: the certificate
  "$BOXCERT" collect "$(id "$1")" --key "$T/k.key" --out "$T/$1.cert" >/dev/null 2>"$T/$1.cerr" || true
}
# One python answers every question (a python start costs a second under emulation): a line
# "cert PATH PYEXPR" is PYEXPR over the certificate's statement (sp: containment.seccompPrograms,
# c: containment, d: the discrepancies), "verdict PATH" the seccomp_deny finding of a verify
# report; one line back each, an error as "error: ...".
coproc QPY { "$PY" -u -c '
import base64, json, sys
def x(ch, abi, name): # the verdict of a chain for a name on an ABI
    a = ch["abis"][abi]
    return "allow" if name in a["allow"] else "depends" if name in a["depends"] else "deny"
def cert(path, expr):
    p = json.loads(base64.b64decode(json.load(open(path))["payload"]))["predicate"]
    c = p["containment"]
    return eval(expr, {"x": x, "p": p, "c": c, "sp": c["seccompPrograms"],
                       "d": p["evidence"]["discrepancies"]})
def verdict(path):
    r = json.load(open(path))
    fs = [f for res in r.get("results", [r]) for f in res.get("findings", []) if f["rule"] == "containment.seccomp_deny"]
    return fs[0]["status"] + " " + fs[0]["message"] if fs else "none"
for line in sys.stdin:
    kind, path, expr = (line.rstrip("\n").split("\t") + [""])[:3]
    try:
        out = cert(path, expr) if kind == "cert" else verdict(path)
    except Exception as e:
        out = "error: %s: %r" % (type(e).__name__, e)
    print(str(out).replace("\n", " "))
'; }
ask() { # ask KIND PATH [EXPR]: the answer of the python above
  local r
  printf '%s\t%s\t%s\n' "$1" "$2" "${3:-}" >&"${QPY[1]}"
  IFS= read -r r <&"${QPY[0]}" || r="error: no answer"
  printf '%s\n' "$r"
}
q() { ask cert "$T/$1.cert" "$2"; } # q NAME PYEXPR
probe() { # probe NAME SYSCALL: the errno the session saw
  awk -v s="$2" '$1 == s {print $2}' "$T/$1.log"
}
verdict() { # verdict NAME: the status of containment.seccomp_deny under strict@2's list
  "$BOXCERT" verify "$T/$1.cert" --key "$T/k.pub" --policy "$T/deny.yaml" --format json \
    >"$T/$1.v.json" 2>/dev/null
  ask verdict "$T/$1.v.json"
}
untouched() { # untouched NAME: every task of the session's processes runs, untraced
  local pid bad=0
  for pid in $("$DOCKER" top "$(id "$1")" -eo pid 2>/dev/null | tail -n +2); do
    for st in /proc/"$pid"/task/*/status; do
      [ -r "$st" ] || continue
      awk '/^State:/ {s=$2} /^TracerPid:/ {t=$2} END {exit !(s != "t" && s != "T")}' "$st" || bad=1
    done
  done
  [ $bad = 0 ]
}
names_ok() { # names_ok NAME: the kernel's reading agrees with what the session saw, per syscall
  local n=$1 s want got
  for s in mount keyctl ptrace unshare; do
    got=$(probe "$n" "$s")
    want=$(q "$n" "x(sp['chains'][0], 'x86_64', '$s')")
    if [ "$want" = deny ]; then is "$got" 1 "$n: $s denied by the kernel's chain, and EPERM inside"
    else unlike_eq "$got" 1 "$n: $s let through by the kernel's chain, and not EPERM inside ($got)"; fi
  done
}
unlike_eq() { if [ "$1" != "$2" ]; then _tap 0 "$3"; else _tap 1 "$3"; fi; }

# (no two of these sessions share a namespace: collected BOXCERT_COLLECT_JOBS at a time)
cjobs=() cnames=(default stricter loose unconfined args extra i386 trace runsc)
[ $have_plain_runsc = 1 ] && cnames+=(runsc-plain)
for n in "${cnames[@]}"; do
  if [ ${#cjobs[@]} -ge "${BOXCERT_COLLECT_JOBS:-1}" ]; then wait "${cjobs[0]}"; cjobs=("${cjobs[@]:1}"); fi
  collect "$n" & cjobs+=($!)
done
wait "${cjobs[@]}"
for n in "${cnames[@]}"; do
  ok "collect $n" test -s "$T/$n.cert"
  [ -s "$T/$n.cert" ] || sed 's/^/#   /' "$T/$n.cerr" | head -n 3
done

# -- Docker's default profile
is "$(q default "sp['servedBy'], len(sp['chains']), sp['tasks']['unread'], sp['why']")" \
  "('kernel', 1, 0, None)" "default: one chain read from the kernel, every task read"
is "$(q default "sp['profile']['looser']")" "[]" "default: the kernel lets through nothing the profile denies"
is "$(q default "sp['chains'][0]['abis']['x86_64']['beyond'], sp['chains'][0]['otherArch']")" \
  "('deny', 'kill_thread')" "default: past the table denied, other arches killed"
is "$(q default "[x(sp['chains'][0], a, 'mount') for a in ('x86_64', 'x32', 'x86')]")" \
  "['deny', 'deny', 'deny']" "default: mount denied on every ABI"
names_ok default
is "$(verdict default)" "pass every seccomp chain of the session (1) denies the 92 syscall(s) on every ABI" \
  "default: the engine's own default profile passes strict@2's list"
ok "default: its tasks run on, untraced" untouched default
pid=$(cpid "$(id default)")
is "$(q default "sp['chains'][0]['filters']")" "$(awk '/^Seccomp_filters:/ {print $2}' /proc/$pid/status)" \
  "default: the filters of the chain are Seccomp_filters of the init's status"

# -- stricter custom profile: passes, whatever it is called
is "$(q stricter "c['seccomp']['profile'], len(sp['chains'])")" "('custom', 1)" "stricter: a custom profile, one chain"
is "$(q stricter "x(sp['chains'][0], 'x86_64', 'ptrace'), x(sp['chains'][0], 'x86', 'ptrace')")" \
  "('deny', 'deny')" "stricter: ptrace denied on x86_64 and i386"
names_ok stricter
like_s() { case "$1" in *"$2"*) _tap 0 "$3";; *) echo "#   got: $1"; _tap 1 "$3";; esac; }
like_s "$(verdict stricter)" "pass " "stricter: a custom profile stricter than the default passes"

# -- mount and keyctl re-allowed: fails, whatever it is called
is "$(q loose "x(sp['chains'][0], 'x86_64', 'mount'), x(sp['chains'][0], 'x86_64', 'keyctl')")" \
  "('allow', 'allow')" "loose: mount and keyctl let through"
names_ok loose
v=$(verdict loose)
like_s "$v" "fail " "loose: fails strict@2's list"
like_s "$v" "x86_64 mount (allow)" "... naming mount"
like_s "$v" "x86_64 keyctl (allow)" "... and keyctl"

# -- seccomp=unconfined
is "$(q unconfined "sp['chains'], sp['tasks']['none'] > 0, c['seccomp']['mode']")" "([], True, 'disabled')" \
  "unconfined: no chain, its tasks without seccomp"
is "$(probe unconfined keyctl)" 95 "unconfined: keyctl reaches the kernel (EOPNOTSUPP)"
like_s "$(verdict unconfined)" "run without seccomp" "unconfined: fails"

# -- argument conditions
is "$(q args "x(sp['chains'][0], 'x86_64', 'socket')")" "depends" "args: socket depends on its arguments"
is "$(probe args socket-inet) $(probe args socket-unix)" "1 0" "args: AF_INET refused, AF_UNIX let through inside"

# -- a thread that loads a filter of its own after start
is "$(probe extra extra-filter)" 0 "extra: the thread loaded its filter (no-new-privileges)"
is "$(q extra "len(sp['chains']), sorted(ch['tasks'] for ch in sp['chains'])[0], sorted(ch['filters'] for ch in sp['chains'])")" \
  "(2, 1, [1, 2])" "extra: two chains, one task runs the longer one"
is "$(q extra "any(e['field'] == 'containment.seccompPrograms.chains' for e in d)")" True \
  "extra: tasks running different chains are a discrepancy"
ok "extra: its tasks run on, untraced" untouched extra

# -- the i386 ABI (int 0x80)
if [ "$(probe i386 i386-getpid)" = ok ]; then
  is "$(q i386 "x(sp['chains'][0], 'x86', 'getpid'), x(sp['chains'][0], 'x86', 'keyctl')")" \
    "('allow', 'deny')" "i386: getpid let through, keyctl denied on the x86 ABI"
  is "$(probe i386 i386-keyctl)" 1 "i386: keyctl through int 0x80 gets EPERM, as the chain says"
elif [ "$(probe i386 i386-getpid)" = absent ]; then
  # the helper's child was killed by int 0x80: no i386 ABI to probe; the chain's x86 meaning
  # is still read from the kernel and judged
  not_applicable "int 0x80 killed the helper's probe process (a kernel without IA32 emulation)" \
    "i386: getpid and keyctl through int 0x80"
  is "$(q i386 "x(sp['chains'][0], 'x86', 'keyctl')")" "deny" \
    "i386: keyctl denied on the x86 ABI of the chain read from the kernel"
else
  _tap 1 "i386: the helper said neither ok nor absent for int 0x80 ($(probe i386 i386-getpid))"
fi

# -- a session that traces one of its own processes
is "$(q trace "sp['tasks']['unread'], 'traced by process' in sp['unread'][0]['reason']")" "(1, True)" \
  "trace: the traced process's task is unread, and says why"
like_s "$(verdict trace)" "could not be read" "trace: a task whose programs could not be read fails"
tpid=$(cpid "$(id trace)")
tchild=$(awk '{print $1}' /proc/"$tpid"/task/"$tpid"/children 2>/dev/null)
is "$(awk '/^TracerPid:/ {print $2}' /proc/"$tchild"/status 2>/dev/null)" "$tpid" \
  "trace: the traced process keeps its own tracer, the session's"
ok "trace: its tasks run on" untouched trace

# -- runsc
is "$(q runsc "sp['servedBy'], len(sp['chains']), len(sp['sandbox']) >= 1, sp['profile']['looser']")" \
  "('sentry', 1, True, [])" "runsc --oci-seccomp: the workload's chain is the profile's, the sentry's own filter recorded"
is "$(q runsc "sp['chains'][0]['sha256'] == sp['profile']['sha256'] == c['seccomp']['profileSha256'], sp['chains'][0]['filters']")" \
  "(True, 0)" "runsc --oci-seccomp: the workload's chain is the OCI profile's rules (no program)"
is "$(q runsc "x(sp['chains'][0], 'x86_64', 'mount'), x(sp['chains'][0], 'x86_64', 'read')")" \
  "('deny', 'allow')" "runsc --oci-seccomp: the profile's meaning (mount denied, read let through)"
is "$(q runsc "all(ch['tasks'] >= 1 for ch in sp['sandbox'])")" True "runsc: the sentry's tasks counted"
if [ $have_plain_runsc = 1 ]; then
  is "$(q runsc-plain "sp['servedBy'], sp['chains'], c['seccomp']['mode']")" "('sentry', [], 'disabled')" \
    "runsc without --oci-seccomp: no workload filter, mode disabled"
  like_s "$(verdict runsc-plain)" "no seccomp program is in force" "runsc without --oci-seccomp: fails"
else
  skip_one "no runsc-plain runtime in this engine (scripts/engine.sh configures it at the next start)"
fi
for n in default stricter loose args i386 runsc; do
  ok "$n: its tasks run on, untraced" untouched "$n"
done
done_testing
