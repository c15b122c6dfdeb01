#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# containment.sysctls (predicate v2) on real sessions, each value checked against a host-side
# probe written without boxcert's code (nsenter into the session's namespaces, cat of its own
# /proc/sys): sysctls set by the engine whose session values differ from this host's (a net
# and an ipc one; Docker refuses uts sysctls), one changed from the host after the start (the kernel's value is
# recorded and the engine's is a discrepancy), the watched ones, a runsc session (the sentry
# serves sysctls: the kernel's values are null), level engine over TLS (null too); and the
# verdicts of strict, of allow and pin policies.
. "$(dirname "$0")/../lib/testlib.sh"
need_engine
PY=/usr/bin/python3
V=$BOXCERT_BIN/boxcert-verify

"$BOXCERT" keygen --out "$T/k" >/dev/null
host_port=$(cat /proc/sys/net/ipv4/ip_unprivileged_port_start)
host_shm=$(cat /proc/sys/kernel/shm_rmid_forced)
port=$((host_port == 1000 ? 999 : 1000))
shm=$((host_shm == 1 ? 0 : 1))

a=$(session set --network none --sysctl net.ipv4.ip_unprivileged_port_start=$port \
  --sysctl kernel.shm_rmid_forced=$shm)
b=$(session changed --network none --sysctl net.ipv4.ip_unprivileged_port_start=$port)
r=$(session runsc --runtime runsc --network none)
pid_a=$("$DOCKER" inspect -f '{{.State.Pid}}' "$a")
pid_b=$("$DOCKER" inspect -f '{{.State.Pid}}' "$b")

# the probes: the session's own values, and this host's differ from them
probe_port=$(nsenter -t "$pid_a" -n cat /proc/sys/net/ipv4/ip_unprivileged_port_start)
probe_shm=$(nsenter -t "$pid_a" -i cat /proc/sys/kernel/shm_rmid_forced)
probe_fwd=$(nsenter -t "$pid_a" -n cat /proc/sys/net/ipv4/ip_forward)
probe_ping=$(nsenter -t "$pid_a" -n cat /proc/sys/net/ipv4/ping_group_range | tr -s ' \t' ' ')
is "$probe_port" "$port" "probe: the session's ip_unprivileged_port_start is the one set"
unlike <(echo "$host_port") "^$port\$" "probe: and this host's is another ($host_port)"
is "$probe_shm" "$shm" "probe: the session's kernel.shm_rmid_forced (its ipc namespace)"
# changed from the host after the start: the kernel now holds another value than the engine set
nsenter -t "$pid_b" -n sh -c 'echo 2000 > /proc/sys/net/ipv4/ip_unprivileged_port_start'
is "$(nsenter -t "$pid_b" -n cat /proc/sys/net/ipv4/ip_unprivileged_port_start)" 2000 \
  "probe: the second session's value changed after its start"

ok "collect the session with sysctls" "$BOXCERT" collect "$a" --key "$T/k.key" --out "$T/a.intoto.json"
ok "collect the changed one" "$BOXCERT" collect "$b" --key "$T/k.key" --out "$T/b.intoto.json"
ok "collect the runsc one" "$BOXCERT" collect "$r" --key "$T/k.key" --out "$T/r.intoto.json"
check_schema certificate "$T/a.intoto.json" "$T/b.intoto.json" "$T/r.intoto.json"

sysctls() { # sysctls CERT: "name engine kernel" lines and the discrepancy fields
  "$PY" - "$1" <<'PY'
import base64, json, sys
st = json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))
p = st["predicate"]
assert st["predicateType"] == "urn:boxcert:containment:v3"
for name, v in sorted(p["containment"]["sysctls"].items()):
    print(name, v["engine"], v["kernel"])
for d in p["evidence"]["discrepancies"]:
    print("discrepancy", d["field"], d["recorded"])
PY
}
sysctls "$T/a.intoto.json" >"$T/a.txt"
sysctls "$T/b.intoto.json" >"$T/b.txt"
sysctls "$T/r.intoto.json" >"$T/r.txt"
like "$T/a.txt" "^net.ipv4.ip_unprivileged_port_start $port $probe_port\$" \
  "the net sysctl: the engine's value and the session's, not this host's"
like "$T/a.txt" "^kernel.shm_rmid_forced $shm $probe_shm\$" "the ipc sysctl, read in its ipc namespace"
like "$T/a.txt" "^net.ipv4.ip_forward None $probe_fwd\$" "a watched sysctl the engine did not set"
like "$T/a.txt" "^net.ipv4.ping_group_range 0 2147483647 $probe_ping\$" \
  "Docker's own sysctl, from the OCI spec, whitespace as one space"
unlike "$T/a.txt" '^discrepancy' "no discrepancy where the kernel holds what was set"
like "$T/b.txt" "^net.ipv4.ip_unprivileged_port_start $port 2000\$" \
  "changed after the start: the kernel's value recorded"
like "$T/b.txt" "^discrepancy containment.sysctls.net.ipv4.ip_unprivileged_port_start 2000\$" \
  "and the engine's is a discrepancy"
like "$T/r.txt" "^net.ipv4.ip_forward None None\$" "runsc: the kernel's value is null (the sentry serves sysctls)"
ok "runsc: no kernel value at all" test "$(grep -v '^discrepancy' "$T/r.txt" | grep -vc ' None$')" -eq 0

# verdicts
expect_rc 1 "strict refuses sysctls it does not allow" "$V" verify "$T/a.intoto.json" --policy strict --key "$T/k.pub"
like "$OUT" 'fail containment.sysctls: .*does not allow: kernel.shm_rmid_forced' "naming it"
printf 'version: 1\ncontainment:\n  sysctls: {pin: {net.ipv4.ip_unprivileged_port_start: "%s"}}\n' "$port" >"$T/pin.yaml"
ok "a pin the kernel holds passes" "$V" verify "$T/a.intoto.json" --policy "$T/pin.yaml" --key "$T/k.pub"
expect_rc 1 "a pin on the changed session fails: the kernel's value counts" "$V" verify \
  "$T/b.intoto.json" --policy "$T/pin.yaml" --key "$T/k.pub"
like "$OUT" 'fail containment.sysctls: .*net.ipv4.ip_unprivileged_port_start differs' "it differs"
expect_rc 1 "under runsc a pin is unknown (not read back)" "$V" verify "$T/r.intoto.json" \
  --policy "$T/pin.yaml" --key "$T/k.pub"
like "$OUT" 'unknown containment.sysctls' "unknown"

# level engine, over the mutual-TLS endpoint: no kernel values
if eval "$(bash "$BOXCERT_SOURCE_DIR/scripts/engine.sh" env 2>/dev/null)" && [ -n "${BOXCERT_TLS_HOST:-}" ]; then
  ok "collect over TLS" env DOCKER_TLS_VERIFY=1 DOCKER_CERT_PATH="$BOXCERT_TLS_CERT_PATH" \
    "$BOXCERT" collect "$a" --engine "$BOXCERT_TLS_HOST" --key "$T/k.key" --out "$T/t.intoto.json"
  sysctls "$T/t.intoto.json" >"$T/t.txt"
  like "$T/t.txt" "^net.ipv4.ip_unprivileged_port_start $port None\$" "level engine: the engine's value, no kernel's"
else
  _tap 1 "the engine's TLS listener (scripts/engine.sh env)"
fi
done_testing
