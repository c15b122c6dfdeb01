#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Namespace creation by what seccomp lets clone, unshare and clone3 do with their arguments
# (containment.namespaceCreation, rule containment.user_namespaces), on real sessions of this
# engine: Docker's default profile (clone without namespace bits, clone3 ENOSYS), the same with
# --cap-add SYS_ADMIN (all three open), a profile whose clone mask leaves CLONE_NEWUSER out, one
# that lets clone3 through, seccomp=unconfined, and runsc. Each session tries to create a user
# namespace each way inside (tests/engine/userns_helper.c, built static, mounted at /h): the
# record must say exactly what the kernel let it do, and strict@3 must fail every session that
# could. user.max_user_namespaces is per user namespace and Docker refuses --sysctl user.*; a
# limit of 0 would be this host's for every session of every test, so that case is judged by
# the fixtures and the unit tests (tests/unit/attest/test_ns_creation.c reads a limit of 5 set
# in a user namespace of its own).
. "$(dirname "$0")/../lib/testlib.sh"
need_engine
PY=/usr/bin/python3
mkdir -p "$T/h"
static_helper userns_helper "$T/h/userns_helper"
"$BOXCERT" keygen --out "$T/k" >/dev/null
printf 'version: 1\ncontainment:\n  userNamespaces: false\n' >"$T/userns.yaml"

# profiles from the default the engine gives a container (the OCI form: capabilities resolved)
base=$(session probe -- sleep 600)
ok "a session to read the default profile from" test -n "$base"
cfg=/run/containerd/io.containerd.runtime.v2.task/moby/$base/config.json
"$PY" - "$cfg" "$T" <<'PYEOF'
import json, sys
sc = json.load(open(sys.argv[1]))["linux"]["seccomp"]
out = sys.argv[2]
NS = 0x7E020000
found = {"clone": 0, "clone3": 0}
clone_user = json.loads(json.dumps(sc))
for r in clone_user["syscalls"]:
    for a in r.get("args") or []:
        if r["names"] == ["clone"] and a["op"] == "SCMP_CMP_MASKED_EQ" and a["value"] == NS:
            a["value"] = NS & ~0x10000000  # CLONE_NEWUSER left out of the mask
            found["clone"] += 1
json.dump(clone_user, open(out + "/clone-user.json", "w"))
clone3 = json.loads(json.dumps(sc))
for r in clone3["syscalls"]:
    if r["names"] == ["clone3"] and r["action"] == "SCMP_ACT_ERRNO":
        r["action"] = "SCMP_ACT_ALLOW"
        r.pop("errnoRet", None)
        found["clone3"] += 1
json.dump(clone3, open(out + "/clone3.json", "w"))
print(found["clone"], found["clone3"], file=open(out + "/found", "w"))
PYEOF
is "$(cat "$T/found")" "1 1" "the default profile has the masked clone rule and clone3's ENOSYS"
"$DOCKER" rm -f "$base" >/dev/null

HARD=(--network none --read-only --cap-drop ALL --security-opt no-new-privileges --pids-limit 64
  --memory 256m -v "$T/h:/h:ro")
run() { zoo_run "$@"; }
id() { cat "$T/$1.id"; }
run default "${HARD[@]}" -- /h/userns_helper
run sysadmin --network none --cap-add SYS_ADMIN -v "$T/h:/h:ro" -- /h/userns_helper
run cloneuser "${HARD[@]}" --security-opt "seccomp=$T/clone-user.json" -- /h/userns_helper
run clone3 "${HARD[@]}" --security-opt "seccomp=$T/clone3.json" -- /h/userns_helper
run unconfined "${HARD[@]}" --security-opt seccomp=unconfined -- /h/userns_helper
have_runsc=0
if has_runtime runsc; then
  have_runsc=1
  run runsc --runtime runsc "${HARD[@]}" -- /h/userns_helper
fi
zoo_wait
names=(default sysadmin cloneuser clone3 unconfined)
[ $have_runsc = 1 ] && names+=(runsc)
for n in "${names[@]}"; do
  for _ in $(seq 1 100); do
    "$DOCKER" logs "$(id $n)" >"$T/$n.log" 2>/dev/null; grep -q '^done' "$T/$n.log" && break; sleep 0.1
  done
  ok "$n: the helper ran" grep -q '^done' "$T/$n.log"
done
collect_each "$T/k.key" "$T" "${names[@]}"

# One python for every question: "cert NAME EXPR" over the certificate (nc:
# containment.namespaceCreation, c: containment), "rule NAME POLICY" the status of
# containment.user_namespaces under POLICY.
coproc QPY { "$PY" -u -c '
import base64, json, sys, subprocess
def cert(path, expr):
    p = json.loads(base64.b64decode(json.load(open(path))["payload"]))["predicate"]
    c = p["containment"]
    return eval(expr, {"p": p, "c": c, "nc": c["namespaceCreation"]})
for line in sys.stdin:
    kind, path, expr = (line.rstrip("\n").split("\t") + [""])[:3]
    try:
        if kind == "cert":
            out = cert(path, expr)
        else:
            r = json.load(open(path))
            fs = [f for res in r.get("results", [r]) for f in res.get("findings", []) if f["rule"] == "containment.user_namespaces"]
            out = fs[0]["status"] + " " + fs[0]["message"] if fs else "none"
    except Exception as e:
        out = "error: %s: %r" % (type(e).__name__, e)
    print(str(out).replace("\n", " "))
'; }
ask() {
  local r
  printf '%s\t%s\t%s\n' "$1" "$2" "${3:-}" >&"${QPY[1]}"
  IFS= read -r r <&"${QPY[0]}" || r="error: no answer"
  printf '%s\n' "$r"
}
q() { ask cert "$T/$1.intoto.json" "$2"; }
rule() { # rule NAME POLICY: status and message of containment.user_namespaces
  "$BOXCERT" verify "$T/$1.intoto.json" --key "$T/k.pub" --policy "$2" --format json \
    >"$T/$1.v.json" 2>/dev/null
  ask rule "$T/$1.v.json"
}
seen() { awk -v s="$2" '$1 == s {print $2}' "$T/$1.log"; } # seen NAME WAY: errno inside
like_s() { case "$1" in *"$2"*) _tap 0 "$3";; *) echo "#   got: $1"; _tap 1 "$3";; esac; }
truth() { # truth NAME: the x86_64 record agrees with the kernel's answers inside
  local n=$1 w rec got
  for w in unshare clone clone3; do
    if [ $w = clone3 ]; then rec=$(q "$n" "nc['abis']['x86_64']['clone3']")
    else rec=$(q "$n" "'user' in nc['abis']['x86_64']['$w']"); fi
    got=$(seen "$n" "$w-user")
    if [ "$rec" = True ]; then is "$got" 0 "$n: $w may create a user namespace, and the kernel made one"
    else unlike_eq "$got" 0 "$n: $w may not, and the kernel refused ($got)"; fi
  done
}
unlike_eq() { if [ "$1" != "$2" ]; then _tap 0 "$3"; else _tap 1 "$3"; fi; }
HOSTMAX=$(cat /proc/sys/user/max_user_namespaces)

# -- Docker's default profile, hardened: nothing on any ABI
is "$(q default "nc['servedBy'], nc['why'], nc['maxUserNamespaces']")" "('kernel', None, $HOSTMAX)" \
  "default: read from the kernel, the limit as the session sees it"
is "$(q default "[(a, v['clone'], v['unshare'], v['clone3']) for a, v in sorted(nc['abis'].items())]")" \
  "[('x32', [], [], False), ('x86', [], [], False), ('x86_64', [], [], False)]" \
  "default: clone without namespace bits, unshare and clone3 refused on every ABI"
truth default
is "$(seen default clone3-user)" 38 "default: clone3 answers ENOSYS"
like_s "$(rule default "$T/userns.yaml")" "pass " "default: passes userNamespaces: false"
like_s "$(rule default strict@3)" "pass " "default: containment.user_namespaces passes strict@3"

# -- the default profile with CAP_SYS_ADMIN: clone, unshare and clone3 all open
is "$(q sysadmin "[(a, 'user' in v['clone'], 'user' in v['unshare'], v['clone3']) for a, v in sorted(nc['abis'].items())]")" \
  "[('x32', True, True, True), ('x86', True, True, True), ('x86_64', True, True, True)]" \
  "sysadmin: every way open on every ABI"
truth sysadmin
v=$(rule sysadmin strict@3)
like_s "$v" "fail " "sysadmin: fails strict@3"
like_s "$v" "x86_64: clone unshare clone3" "... naming the ABI and the syscalls"

# -- a clone mask without CLONE_NEWUSER: clone makes user namespaces, nothing else
is "$(q cloneuser "[(a, v['clone'], v['unshare'], v['clone3']) for a, v in sorted(nc['abis'].items())]")" \
  "[('x32', ['user'], [], False), ('x86', ['user'], [], False), ('x86_64', ['user'], [], False)]" \
  "cloneuser: clone with CLONE_NEWUSER alone, on every ABI, by the mask's comparison"
truth cloneuser
v=$(rule cloneuser strict@3)
like_s "$v" "fail " "cloneuser: fails strict@3"
like_s "$v" "x86_64: clone let through" "... naming clone"
like_s "$(rule cloneuser "$T/userns.yaml")" "fail " "cloneuser: fails userNamespaces: false"

# -- clone3 let through
is "$(q clone3 "[(a, v['clone'], v['clone3']) for a, v in sorted(nc['abis'].items())]")" \
  "[('x32', [], True), ('x86', [], True), ('x86_64', [], True)]" "clone3: clone3 let through, clone still masked"
truth clone3
like_s "$(rule clone3 strict@3)" "fail " "clone3: fails strict@3"

# -- seccomp=unconfined: every kind
is "$(q unconfined "sorted(nc['abis']['x86_64']['unshare']), nc['abis']['x86']['clone3']")" \
  "(['cgroup', 'ipc', 'mnt', 'net', 'pid', 'time', 'user', 'uts'], True)" \
  "unconfined: a task without seccomp can create every kind"
truth unconfined
like_s "$(rule unconfined strict@3)" "fail " "unconfined: fails strict@3"

# -- runsc: the sandbox's own tasks on this host's kernel
if [ $have_runsc = 1 ]; then
  is "$(q runsc "nc['servedBy'], nc['why'], nc['maxUserNamespaces'] is not None")" "('sentry', None, True)" \
    "runsc: the sandbox's own tasks, the limit read in its user namespace"
  is "$(q runsc "sorted(a for a, v in nc['abis'].items() if 'user' in v['clone'] or 'user' in v['unshare'] or v['clone3'])")" \
    "[]" "runsc: the sentry's host filter lets no way to a user namespace through"
  like_s "$(rule runsc "$T/userns.yaml")" "pass " "runsc: passes userNamespaces: false"
fi
done_testing
