#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The CPUs and memory nodes in force (containment.resources.cpusetCpus/cpusetMems, v2): real
# sessions with and without --cpuset-cpus/--cpuset-mems, and one whose cpuset is narrowed in
# the kernel behind the engine's back. The truth is the kernel's word for the session's init,
# read here without boxcert: Cpus_allowed_list and Mems_allowed_list of /proc/<pid>/status,
# and this host's every CPU and node from /sys/devices/system/{cpu,node}/online.
. "$(dirname "$0")/../lib/testlib.sh"
need_engine
PY=/usr/bin/python3
"$BOXCERT" keygen --out "$T/k" >/dev/null
online=$(cat /sys/devices/system/cpu/online)
nodes=$(cat /sys/devices/system/node/online 2>/dev/null || echo 0)
last=$(( $(nproc --all) - 1 ))
echo "# this host: CPUs $online, memory nodes $nodes"

# canon LIST: the kernel's canonical form of a list (as boxcert must write it)
canon() { "$PY" -c 'import sys
s=set()
for part in sys.argv[1].split(","):
    if not part: continue
    a,_,b=part.partition("-"); s.update(range(int(a),int(b or a)+1))
out=[]; xs=sorted(s); i=0
while i<len(xs):
    j=i
    while j+1<len(xs) and xs[j+1]==xs[j]+1: j+=1
    out.append(str(xs[i]) if i==j else "%d-%d"%(xs[i],xs[j])); i=j+1
print(",".join(out))' "$1"; }
# payload FILE MEMBER: a member of containment.resources, or evidence.discrepancies' fields
member() { "$PY" -c 'import base64,json,sys
p=json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))["predicate"]
if sys.argv[2]=="discrepancies":
    print(" ".join(sorted(d["field"] for d in p["evidence"]["discrepancies"])))
else:
    print(json.dumps(p["containment"]["resources"].get(sys.argv[2], "(absent)")))' "$1" "$2"; }
# truth ID KEY: the session's init's Cpus_allowed_list / Mems_allowed_list, as the certificate
# must say it (null when it is every CPU/node of this host)
truth() {
  local pid all got
  pid=$("$DOCKER" inspect -f '{{.State.Pid}}' "$1")
  got=$(sed -n "s/^$2:[[:space:]]*//p" "/proc/$pid/status")
  all=$online; [ "$2" = Mems_allowed_list ] && all=$nodes
  if [ "$(canon "$got")" = "$(canon "$all")" ]; then echo null; else echo "\"$(canon "$got")\""; fi
}

cat >"$T/cases" <<EOF2
default|
pinned0|--cpuset-cpus 0
pinnedlast|--cpuset-cpus $last
every|--cpuset-cpus 0-$last
unordered|--cpuset-cpus $last,0
mems0|--cpuset-mems 0
EOF2
while IFS='|' read -r name args; do
  # shellcheck disable=SC2086
  id=$(session "$name" --network none $args)
  ok "session $name ($args)" test -n "$id"
  expect_rc 0 "collect $name" "$BOXCERT" collect "$id" --key "$T/k.key" --out "$T/$name.json"
  is "$(member "$T/$name.json" cpusetCpus)" "$(truth "$id" Cpus_allowed_list)" \
    "$name: cpusetCpus is the kernel's (Cpus_allowed_list of the init)"
  is "$(member "$T/$name.json" cpusetMems)" "$(truth "$id" Mems_allowed_list)" \
    "$name: cpusetMems is the kernel's (Mems_allowed_list of the init)"
  member "$T/$name.json" discrepancies >"$T/$name.disc"
  unlike "$T/$name.disc" 'resources\.cpuset' "$name: no cpuset discrepancy"
done <"$T/cases"
[ "$last" -ge 1 ] && is "$(member "$T/pinnedlast.json" cpusetCpus)" "\"$last\"" "pinnedlast: \"$last\", as asked"
is "$(member "$T/pinned0.json" cpusetCpus)" '"0"' 'pinned0: "0", as asked'
is "$(member "$T/every.json" cpusetCpus)" null "every: all of this host's CPUs asked for is null"
is "$(member "$T/default.json" cpusetCpus)" null "default: null"

# narrowed behind the engine's back: the engine gave every CPU, the kernel allows CPU 0 only
id=$(session narrowed --network none)
pid=$("$DOCKER" inspect -f '{{.State.Pid}}' "$id")
cg=$(sed -n 's/^[0-9]*:cpuset:\(.*\)/\1/p; s/^0::\(.*\)/\1/p' "/proc/$pid/cgroup" | head -n 1)
if [ -d /sys/fs/cgroup/cpuset ]; then f=/sys/fs/cgroup/cpuset$cg/cpuset.cpus; else f=/sys/fs/cgroup$cg/cpuset.cpus; fi
ok "the session's cpuset.cpus written to 0 ($f)" sh -c "echo 0 > '$f'"
expect_rc 0 "collect narrowed" "$BOXCERT" collect "$id" --key "$T/k.key" --out "$T/narrowed.json"
is "$(member "$T/narrowed.json" cpusetCpus)" "$(truth "$id" Cpus_allowed_list)" \
  "narrowed: cpusetCpus is the kernel's"
if [ "$last" -ge 1 ]; then
  is "$(member "$T/narrowed.json" cpusetCpus)" '"0"' 'narrowed: "0", not the engine'"'"'s every CPU'
  member "$T/narrowed.json" discrepancies >"$T/narrowed.disc"
  like "$T/narrowed.disc" 'containment\.resources\.cpusetCpus' \
    "narrowed: the engine's word against the kernel's is a discrepancy"
fi
check_schema certificate "$T/default.json" "$T/narrowed.json"
cleanup_sessions
done_testing
