#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Debian 13 test host (scripts/testhost.sh): cgroup v2 with the systemd driver,
# AppArmor, runc/crun/runsc, the mutual-TLS listener, and boxcert collecting a session
# there. Asserted from this machine, over ssh and over TLS. Skips (77) when no test host
# runs, fails instead under BOXCERT_REQUIRE_TESTHOST=1.
. "$(dirname "$0")/../lib/testlib.sh"
need_testhost env
S=bxh-$$                                  # the guest's session names
trap 'g "docker rm -f $S-runc $S-crun $S-runsc $S-slrunc $S-slcrun $S-aa-unconfined $S-aa-custom $S-aa-edited $S-aa-complain >/dev/null 2>&1; for p in /tmp/$S/aa/*; do [ -f \$p ] && apparmor_parser -R \$p; done >/dev/null 2>&1; systemctl stop $S.slice >/dev/null 2>&1; rm -rf /tmp/$S" >/dev/null 2>&1; rm -rf "$T"' EXIT

# ---- the kernel and init
ok "ssh answers as root with the built key" g true
is "$(gv stat -fc %T /sys/fs/cgroup)" cgroup2fs "/sys/fs/cgroup is cgroup2fs"
is "$(gv cat /sys/module/apparmor/parameters/enabled)" Y "AppArmor is enabled"
gv cat /proc/cmdline >"$T/cmdline"
like "$T/cmdline" 'systemd\.unified_cgroup_hierarchy=1' "cmdline: systemd.unified_cgroup_hierarchy=1"
like "$T/cmdline" 'apparmor=1 security=apparmor' "cmdline: apparmor=1 security=apparmor"
gv cat /etc/os-release >"$T/os"
like "$T/os" '^VERSION_CODENAME=trixie$' "Debian 13 (trixie)"
is "$(gv 'systemctl is-system-running')" running "systemd: running (no failed unit)"

# ---- the engine, over ssh
gv "docker info --format '{{.CgroupDriver}} {{.CgroupVersion}}'" >"$T/cg"
is "$(cat "$T/cg")" "systemd 2" "docker info: Cgroup Driver systemd, Cgroup Version 2"
gv "docker info --format '{{range \$k, \$v := .Runtimes}}{{\$k}} {{end}}'" >"$T/rt"
for r in runc crun runsc; do like "$T/rt" "(^| )$r( |$)" "docker info: runtime $r"; done
is "$(gv "docker info --format '{{.DefaultRuntime}}'")" runc "docker info: default runtime runc"
gv "docker info --format '{{json .SecurityOptions}}'" >"$T/sec"
like "$T/sec" 'name=apparmor' "docker info: Security Options apparmor"
like "$T/sec" 'name=cgroupns' "docker info: Security Options cgroupns"
gv "docker version --format '{{.Server.Version}}'" >"$T/ver"
like "$T/ver" '^26\.' "dockerd 26.x"
ok "boxcert-session:1 is there (docker import, no registry)" g docker image inspect boxcert-session:1
# runc run from one sealed copy of itself (docs/testhost.md, "runc from one sealed copy"):
# the same binary, a memfd with every seal runc asks for, and the copy the daemons find first
gv readlink /usr/local/sbin/runc >"$T/runc-link"
like "$T/runc-link" '^/proc/[0-9]+/fd/[0-9]+$' "runc: /usr/local/sbin/runc is a descriptor held open"
ok "runc: the held copy is /usr/sbin/runc, byte for byte" g cmp /usr/local/sbin/runc /usr/sbin/runc
is "$(gv "python3 -c 'import fcntl, os; print(fcntl.fcntl(os.open(\"/usr/local/sbin/runc\", os.O_RDONLY), fcntl.F_GET_SEALS) & 15)'")" \
  15 "runc: the held copy carries the seals runc checks (seal, shrink, grow, write)"
for d in containerd docker; do
  gv "tr '\\0' '\\n' </proc/\$(systemctl show -p MainPID --value $d.service)/environ" | sed -n 's/^PATH=//p' |
    tr : '\n' | grep -n -x -e /usr/local/sbin -e /usr/sbin >"$T/path-$d"
  like "$T/path-$d" '^1:/usr/local/sbin$' "runc: $d.service looks in /usr/local/sbin before /usr/sbin"
done
is "$(gv cat /sys/fs/cgroup/system.slice/boxcert-cfs-quota.service/cpu.max)" "400000 100000" \
  "a CPU quota held from boot (the kernel's CFS bandwidth key stays on: docs/testhost.md)"

# The sessions this test collects start in the guest in two lanes, in the background, while
# the checks before them run (each `docker run` costs seconds under emulation); `started NAME`
# waits for one (tests/lib/testlib.sh). A slice with its own limits is made
# first, for the sessions under it.
GARGS=(
  [runc]="--runtime runc --network none --read-only --cap-drop ALL --security-opt no-new-privileges"
  [crun]="--runtime crun --network none --read-only --cap-drop ALL --security-opt no-new-privileges"
  [runsc]="--runtime runsc --network none --read-only --cap-drop ALL --security-opt no-new-privileges"
  [slrunc]="--runtime runc --network none --cgroup-parent $S.slice --cgroupns host --memory 256m"
  [slcrun]="--runtime crun --network none --cgroup-parent $S.slice --cgroupns private --memory 256m"
  [aa-unconfined]="--network none --read-only --cap-drop ALL --security-opt no-new-privileges --security-opt apparmor=unconfined --memory 256m --pids-limit 64"
)
started() { gstarted "$S" "$1"; }
g "systemctl set-property --runtime $S.slice MemoryMax=96M TasksMax=33 AllowedCPUs=0" >/dev/null 2>&1
glane "$S" runc slrunc aa-unconfined
glane "$S" crun runsc slcrun

# one `docker run --rm` per runtime, the three side by side (each costs seconds under
# emulation): its exit code, and what the session itself reads of its AppArmor label, its
# seccomp mode and its cgroup
g "mkdir -p /tmp/$S/rm; for r in runc crun runsc; do (docker run --rm --runtime \$r boxcert-session:1 \
   sh -c 'echo \"attr=\$(cat /proc/self/attr/current 2>/dev/null)\"; grep Seccomp: /proc/self/status; \
   echo \"cgroup=\$(cat /proc/self/cgroup)\"' >/tmp/$S/rm/\$r.out 2>&1; echo \$? >/tmp/$S/rm/\$r.rc) & done; wait" \
  >/dev/null 2>&1
for r in runc crun runsc; do
  gv "cat /tmp/$S/rm/$r.out" >"$T/rm-$r"
  is "$(gv "cat /tmp/$S/rm/$r.rc")" 0 "docker run --rm --runtime $r boxcert-session:1 runs and exits 0"
done
like "$T/rm-runc" '^attr=docker-default \(enforce\)$' "a runc session is confined by docker-default (enforce)"
like "$T/rm-crun" '^attr=docker-default \(enforce\)$' "a crun session is confined by docker-default (enforce)"
like "$T/rm-runsc" '^Seccomp:[[:space:]]+2$' "a runsc session reports Seccomp: 2 from inside"
like "$T/rm-runc" '^cgroup=0::/$' "a runc session sees its own cgroup namespace (0::/)"

# ---- the engine, over mutual TLS from this machine
c=$DOCKER_CERT_PATH
ok "TLS /_ping answers with the client certificate" \
  curl -sf --max-time 10 --cacert "$c/ca.pem" --cert "$c/cert.pem" --key "$c/key.pem" "https://127.0.0.1:${DOCKER_HOST##*:}/_ping"
fails "TLS refuses a client without a certificate" \
  curl -sf --max-time 10 --cacert "$c/ca.pem" "https://127.0.0.1:${DOCKER_HOST##*:}/_ping"
ok "TLS /info answers" \
  curl -sf --max-time 20 --cacert "$c/ca.pem" --cert "$c/cert.pem" --key "$c/key.pem" "https://127.0.0.1:${DOCKER_HOST##*:}/info"
like "$OUT" '"CgroupVersion":"2"' "TLS /info: CgroupVersion 2"
like "$OUT" '"CgroupDriver":"systemd"' "TLS /info: CgroupDriver systemd"
if [ -x "$DOCKER" ] || command -v "$DOCKER" >/dev/null 2>&1; then
  ok "docker --tlsverify version (client on this machine)" "$DOCKER" --tlsverify \
    --tlscacert "$c/ca.pem" --tlscert "$c/cert.pem" --tlskey "$c/key.pem" -H "$DOCKER_HOST" version
  like "$OUT" 'Version:[[:space:]]+26\.' "docker version over TLS: server 26.x"
  ok "docker run over TLS" "$DOCKER" run --rm boxcert-session:1 true
else
  echo "# no docker client at $DOCKER: the docker CLI checks over TLS are left out"
fi

# ---- the guest's engine over ssh:// and, beside this machine's, through docker contexts
# (each engine with its own TLS material)
ssh_cfg=$(printf '%s\n' "$BOXCERT_TESTHOST_SSH" | sed -n 's/.*-F \([^ ]*\) .*/\1/p')
# without the shared master connection: a connection of its own, whose host key ssh checks
grep -v '^ *Control' "$ssh_cfg" >"$T/ssh_config" && ssh_cfg=$T/ssh_config
host_alias=${BOXCERT_TESTHOST_SSH##* }
# (the hardened runc session below: one session fewer to start under emulation)
ok "a session for ssh:// starts" started runc
"$BOXCERT" keygen --out "$T/k" >/dev/null
expect_rc 0 "collect over ssh://$host_alias (docker system dial-stdio in the guest)" \
  env -u DOCKER_HOST BOXCERT_SSH_CONFIG="$ssh_cfg" "$BOXCERT" collect "$S-runc" \
  --engine "ssh://$host_alias" --key "$T/k.key" --require-level engine --out "$T/ssh.intoto.json"
sed 's/^/#   collect: /' "$ERR" | head -n 5
/usr/bin/python3 -c 'import base64,json,sys; print(base64.b64decode(json.load(open(sys.argv[1]))["payload"]).decode())' \
  "$T/ssh.intoto.json" >"$T/ssh.json" 2>/dev/null || : >"$T/ssh.json"
fieldp() { /usr/bin/python3 -c 'import json,sys
v=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): v=v.get(k) if isinstance(v, dict) else None
print(v if isinstance(v,str) else json.dumps(v, sort_keys=True))' "$1" "$2" 2>/dev/null; }
is "$(fieldp "$T/ssh.json" predicate.engine.endpoint)" "ssh://$host_alias" "... the certificate names the ssh:// engine"
fieldp "$T/ssh.json" predicate.engine.version >"$T/ssh.ver"
like "$T/ssh.ver" '^26\.' "... the guest's dockerd 26.x answered"
is "$(fieldp "$T/ssh.json" predicate.evidence.level)" engine "... at level engine (its sessions are not on this host)"
gv 'for f in /etc/ssh/ssh_host_*_key.pub; do ssh-keygen -lf $f; done' | awk '{print $2}' >"$T/hostkeys"
hk=$(fieldp "$T/ssh.json" predicate.engine.sshHostKey)
ok "... and the host key ssh checked, one of the guest's ($hk)" grep -qxF "${hk#* }" "$T/hostkeys"
expect_rc 3 "an ssh:// engine whose key is refused: exit 3" env -u DOCKER_HOST \
  BOXCERT_SSH_CONFIG=/dev/null "$BOXCERT" collect "$S-runc" --engine "ssh://root@127.0.0.1:1" \
  --key "$T/k.key" --out "$T/ssh2.intoto.json"
like "$ERR" 'engine unreachable at ssh://root@127.0.0.1:1: ssh: ' "... in one line with ssh's own words"
eval "$(env -u DOCKER_HOST bash "$BOXCERT_SOURCE_DIR/scripts/engine.sh" env)"
export DOCKER_CONFIG=$T/docker-config
lc=$BOXCERT_TLS_CERT_PATH
ok "docker context create guest (the guest's TLS material)" "$DOCKER" context create guest \
  --docker "host=$DOCKER_HOST,ca=$c/ca.pem,cert=$c/cert.pem,key=$c/key.pem"
ok "docker context create here (this machine's TLS listener, another CA)" "$DOCKER" context create here \
  --docker "host=$BOXCERT_TLS_HOST,ca=$lc/ca.pem,cert=$lc/cert.pem,key=$lc/key.pem"
ok "the two CAs differ" test "$(sha256sum <"$c/ca.pem")" != "$(sha256sum <"$lc/ca.pem")"
mkdir -p "$T/nocerts"
expect_rc 0 "audit --engine context:guest --engine context:here (no session selected)" \
  env -u DOCKER_HOST -u DOCKER_TLS_VERIFY -u DOCKER_CERT_PATH "$BOXCERT" audit \
  --engine context:guest --engine context:here --policy strict --key "$T/k.pub" \
  --certs "$T/nocerts" --label "boxcert.test=none-$$" --format json --output "$T/audit2.json"
sed 's/^/#   audit: /' "$ERR" | head -n 5
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); e=d["engines"]; print(len(e), all(x["reachable"] for x in e), len({x["id"] for x in e}), sorted(x["endpoint"] for x in e) == sorted(sys.argv[2:]))' \
  "$T/audit2.json" "$DOCKER_HOST" "$BOXCERT_TLS_HOST" >"$T/eng2" 2>&1
is "$(cat "$T/eng2")" "2 True 2 True" "... both engines reached, each over its own TLS, two engine IDs"
unset DOCKER_CONFIG

# ---- boxcert in the guest
field() { # field FILE PATH: a member of the statement `boxcert show` printed (python3 here)
  /usr/bin/python3 -c 'import json,sys
v=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): v=v[int(k)] if isinstance(v,list) else v.get(k)
print(v if isinstance(v,str) else json.dumps(v, sort_keys=True))' "$1" "$2" 2>/dev/null
}
B=/usr/local/bin/boxcert
ok "boxcert --help runs in the guest" g $B --help
ok "boxcert-verify --help runs in the guest" g /usr/local/bin/boxcert-verify --help
g "mkdir -p /tmp/$S" >/dev/null 2>&1
ok "boxcert keygen" g $B keygen --out "/tmp/$S/k"
for r in runc crun runsc; do
  ok "a hardened $r session starts" started $r
  expect_rc 0 "boxcert collect ($r session; cgroup v2, systemd driver, AppArmor)" \
    g $B collect "$S-$r" --key "/tmp/$S/k.key" --out "/tmp/$S/$r.intoto.json"
  sed 's/^/#   collect: /' "$ERR" | head -n 20
  # the pids.max the kernel applies, on the session's cgroup and above it (systemd's TasksMax)
  gv "pid=\$(docker inspect -f '{{.State.Pid}}' $S-$r); d=/sys/fs/cgroup\$(sed -n 's/^0:://p' /proc/\$pid/cgroup); \
      while [ \$d != /sys/fs/cgroup ]; do echo \${d#/sys/fs/cgroup} \$(cat \$d/pids.max); d=\${d%/*}; done" >"$T/$r.pids"
  sed 's/^/#   pids.max: /' "$T/$r.pids"
  grm "$S-$r"   # an idle runsc sandbox costs a third of a vCPU under TCG
  expect_rc 0 "boxcert verify: demo policy passes ($r)" g $B verify "/tmp/$S/$r.intoto.json" \
    --policy /usr/local/share/doc/boxcert/examples/policies/demo.yaml --key "/tmp/$S/k.pub"
  sed 's/^/#   /' "$OUT" | head -n 10
  g $B show "/tmp/$S/$r.intoto.json" --policy /usr/local/share/doc/boxcert/examples/policies/demo.yaml \
    --key "/tmp/$S/k.pub" >"$T/$r.json" 2>/dev/null
  is "$(field "$T/$r.json" predicate.containment.runtime.name)" "$r" "$r certificate: runtime $r"
  is "$(field "$T/$r.json" predicate.containment.apparmor.profile)" docker-default "$r certificate: AppArmor docker-default"
  is "$(field "$T/$r.json" predicate.containment.seccomp.mode)" filter "$r certificate: seccomp filter"
  is "$(field "$T/$r.json" predicate.containment.noNewPrivileges)" true "$r certificate: no-new-privileges"
  is "$(field "$T/$r.json" predicate.containment.capabilities.effective)" "[]" "$r certificate: no effective capability"
  is "$(field "$T/$r.json" predicate.evidence.discrepancies)" "[]" "$r certificate: no discrepancy"
  want=engine+kernel; [ $r = runsc ] && want=engine+runtime
  is "$(field "$T/$r.json" predicate.evidence.level)" $want "$r certificate: evidence $want"
  field "$T/$r.json" predicate.containment.resources.pidsLimit >"$T/$r.pl"
  echo "#   $r certificate: resources.pidsLimit $(cat "$T/$r.pl")"
  [ $r = runsc ] && continue
  # the limit in force: the smallest pids.max from the session's cgroup up to the root
  is "$(cat "$T/$r.pl")" "$(awk '$2 != "max" {print $2}' "$T/$r.pids" | sort -n | head -n 1)" \
    "$r certificate: resources.pidsLimit is the smallest pids.max on the way up"
  field "$T/$r.json" predicate.containment.resources >"$T/$r.res"
  like "$T/$r.res" '"cpusetCpus": null' "$r certificate: cpusetCpus read, null (every CPU of the guest)"
  # AppArmor as the kernel applies it
  is "$(field "$T/$r.json" predicate.containment.apparmor.kernel.hostEnabled)" true \
    "$r certificate: apparmor.kernel.hostEnabled true"
  is "$(field "$T/$r.json" predicate.containment.apparmor.kernel.enforced)" true \
    "$r certificate: apparmor.kernel.enforced true (every task docker-default, enforce)"
  # crun on Debian 13 runs under its own profile (unconfined mode) stacked with docker-default:
  # the kernel writes "(mixed)", each profile's mode is securityfs's
  want='["docker-default (enforce)"]'; [ $r = crun ] && want='["crun//&docker-default (mixed)"]'
  is "$(field "$T/$r.json" predicate.containment.apparmor.kernel.labels)" "$want" \
    "$r certificate: the kernel's labels: $want"
  /usr/bin/python3 -c 'import json,sys
c=json.load(open(sys.argv[1]))["predicate"]["containment"]["apparmor"]["kernel"]
print(" ".join("%s=%s" % (p["name"], p["mode"]) for p in c["profiles"]))
print("".join(p["sha256"] or "" for p in c["profiles"] if p["name"] == "docker-default"))' \
    "$T/$r.json" >"$T/$r.aaprof" 2>&1
  echo "#   $r AppArmor profiles: $(head -n 1 "$T/$r.aaprof")"
  like "$T/$r.aaprof" '(^| )docker-default=enforce( |$)' "$r certificate: docker-default in enforce mode"
  like "$T/$r.aaprof" '^[0-9a-f]{64}$' "$r certificate: docker-default's hash from securityfs"
  # v2 devices: the device programs in force, read back and interpreted
  is "$(field "$T/$r.json" predicate.containment.devices.allowAll)" false \
    "$r certificate: devices.allowAll false (the device programs read and interpreted)"
  /usr/bin/python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))["predicate"]["containment"]["devices"]["nodes"]
print(" ".join("%s=%s" % (n["path"], json.dumps(n["accessible"])) for n in d))' "$T/$r.json" >"$T/$r.nodes" 2>&1
  echo "#   $r nodes: $(cat "$T/$r.nodes")"
  like "$T/$r.nodes" '(^| )/dev/null=true( |$)' "$r certificate: /dev/null accessible (judged by the programs)"
  unlike "$T/$r.nodes" '=null' "$r certificate: every node of /dev judged"
done
# With the systemd driver, systemd puts TasksMax (DefaultTasksMax, 15% of threads-max) on
# docker-<id>.scope. runc runs the session in the scope itself; crun in a child cgroup,
# <scope>/container, whose own pids.max is "max": the limit in force is the scope's for both.
is "$(cat "$T/crun.pl")" "$(cat "$T/runc.pl")" "the pids limit in force is the same in the runc and crun certificates"

# ---- a slice above the session: its MemoryMax and TasksMax bind it (--cgroup-parent),
# under --cgroupns host (runc) and private (crun)
for r in runc crun; do
  ns=private; [ $r = runc ] && ns=host
  ok "a $r session under $S.slice (--memory 256m, --cgroupns $ns)" started sl$r
  expect_rc 0 "boxcert collect (the $r session under the slice)" \
    g $B collect "$S-sl$r" --key "/tmp/$S/k.key" --out "/tmp/$S/sl$r.intoto.json"
  # the CPUs the kernel lets the session's init run on, read without boxcert
  gv "pid=\$(docker inspect -f '{{.State.Pid}}' $S-sl$r); sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/\$pid/status" >"$T/sl$r.cpus"
  grm "$S-sl$r"
  g $B show "/tmp/$S/sl$r.intoto.json" --policy /usr/local/share/doc/boxcert/examples/policies/demo.yaml \
    --key "/tmp/$S/k.pub" >"$T/sl$r.json" 2>/dev/null
  is "$(field "$T/sl$r.json" predicate.containment.resources.memoryBytes)" 100663296 \
    "$r under the slice: memoryBytes is the slice's MemoryMax (96 MiB), not the session's 256 MiB"
  is "$(field "$T/sl$r.json" predicate.containment.resources.pidsLimit)" 33 \
    "$r under the slice: pidsLimit is the slice's TasksMax"
  is "$(field "$T/sl$r.json" predicate.containment.namespaces.cgroup.kernel)" $ns \
    "$r under the slice: the kernel says cgroup namespace $ns"
  field "$T/sl$r.json" predicate.evidence.discrepancies >"$T/sl$r.disc"
  like "$T/sl$r.disc" '"field": "containment.resources.memoryBytes"' \
    "$r under the slice: the engine's 256 MiB against the kernel's 96 MiB is a discrepancy"
  is "$(cat "$T/sl$r.cpus")" 0 "$r under the slice: the kernel runs the session on CPU 0 only (Cpus_allowed_list)"
  is "$(field "$T/sl$r.json" predicate.containment.resources.cpusetCpus)" 0 \
    "$r under the slice: cpusetCpus is the slice's AllowedCPUs (0), not the engine's every CPU"
  like "$T/sl$r.disc" '"field": "containment.resources.cpusetCpus"' \
    "$r under the slice: the engine's every CPU against the kernel's CPU 0 is a discrepancy"
done

# ---- AppArmor cases: apparmor=unconfined, a custom profile loaded here (then edited and
# reloaded under the same name), a profile in complain mode; strict@2 judges them
aa() { # aa NAME FLAGS [RULE]: a profile file in the guest (everything allowed, but RULE)
  printf 'profile %s flags=(attach_disconnected,mediate_deleted%s) {\n  file,\n  network,\n  capability,\n  signal,\n  unix,\n  ptrace,\n  mount,\n  umount,\n  pivot_root,\n%b}\n' \
    "$1" "$2" "${3:-}" | g "mkdir -p /tmp/$S/aa && cat >/tmp/$S/aa/$1"
}
aa_case() { # aa_case NAME SECURITY-OPT: a runc session, collected, verified by strict@2
  if [ -n "${GARGS[aa-$1]:-}" ]; then   # started in a lane
    ok "a session with --security-opt $2" started "aa-$1"
  else
    ok "a session with --security-opt $2" g docker run -d --name "$S-aa-$1" --network none --read-only \
      --cap-drop ALL --security-opt no-new-privileges --security-opt "$2" --memory 256m \
      --pids-limit 64 boxcert-session:1 sleep 600
  fi
  expect_rc 0 "boxcert collect ($1)" g $B collect "$S-aa-$1" --key "/tmp/$S/k.key" \
    --out "/tmp/$S/aa-$1.intoto.json"
  grm "$S-aa-$1"
  g $B show "/tmp/$S/aa-$1.intoto.json" --policy strict@2 --key "/tmp/$S/k.pub" >"$T/aa-$1.json" 2>/dev/null
  g $B verify "/tmp/$S/aa-$1.intoto.json" --policy strict@2 --key "/tmp/$S/k.pub" --format json \
    >"$T/aa-$1.verdict" 2>/dev/null
  /usr/bin/python3 -c 'import json,sys
r=json.load(open(sys.argv[1]))["results"]
print(" ".join(f["status"] for f in r[0]["findings"] if f["rule"] == "containment.apparmor"))' \
    "$T/aa-$1.verdict" >"$T/aa-$1.rule" 2>/dev/null
}
aa_case unconfined apparmor=unconfined
is "$(field "$T/aa-unconfined.json" predicate.containment.apparmor.kernel.labels)" '["unconfined"]' \
  "apparmor=unconfined: the kernel says unconfined"
is "$(field "$T/aa-unconfined.json" predicate.containment.apparmor.kernel.enforced)" false \
  "apparmor=unconfined: not enforced"
is "$(cat "$T/aa-unconfined.rule")" fail "apparmor=unconfined: strict@2's containment.apparmor fails"
aa bxh-custom ""
ok "apparmor_parser -r loads bxh-custom" g apparmor_parser -r "/tmp/$S/aa/bxh-custom"
aa_case custom apparmor=bxh-custom
is "$(field "$T/aa-custom.json" predicate.containment.apparmor.kernel.labels)" '["bxh-custom (enforce)"]' \
  "a custom profile: the kernel's label bxh-custom (enforce)"
is "$(field "$T/aa-custom.json" predicate.containment.apparmor.kernel.enforced)" true \
  "a custom profile in enforce mode: enforced"
is "$(cat "$T/aa-custom.rule")" pass "a custom profile in enforce mode: strict@2's containment.apparmor passes"
field "$T/aa-custom.json" predicate.containment.apparmor.kernel.profiles.0.sha256 >"$T/aa-custom.sha"
like "$T/aa-custom.sha" '^[0-9a-f]{64}$' "a custom profile: its hash from securityfs"
is "$(cat "$T/aa-custom.sha")" "$(gv "cat /sys/kernel/security/apparmor/policy/profiles/bxh-custom.*/sha256")" \
  "... the one securityfs shows for bxh-custom"
aa bxh-custom "" "  deny /etc/shadow r,\n"
ok "bxh-custom edited and reloaded under the same name" g apparmor_parser -r "/tmp/$S/aa/bxh-custom"
aa_case edited apparmor=bxh-custom
is "$(field "$T/aa-edited.json" predicate.containment.apparmor.profile)" bxh-custom \
  "the edited profile: the engine's word is the same name"
field "$T/aa-edited.json" predicate.containment.apparmor.kernel.profiles.0.sha256 >"$T/aa-edited.sha"
like "$T/aa-edited.sha" '^[0-9a-f]{64}$' "the edited profile: a hash"
ok "the edited profile under the same name has another hash" test "$(cat "$T/aa-edited.sha")" != "$(cat "$T/aa-custom.sha")"
aa bxh-complain ",complain"
ok "apparmor_parser -r loads bxh-complain (complain mode)" g apparmor_parser -r "/tmp/$S/aa/bxh-complain"
aa_case complain apparmor=bxh-complain
is "$(field "$T/aa-complain.json" predicate.containment.apparmor.kernel.labels)" '["bxh-complain (complain)"]' \
  "a complain-mode profile: the kernel's label bxh-complain (complain)"
is "$(field "$T/aa-complain.json" predicate.containment.apparmor.kernel.enforced)" false \
  "a complain-mode profile: not enforced"
is "$(cat "$T/aa-complain.rule")" fail "a complain-mode profile: strict@2's containment.apparmor fails"
done_testing
