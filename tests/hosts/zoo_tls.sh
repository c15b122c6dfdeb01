#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The zoo from this machine over the test host's mutual TLS (scripts/testhost.sh env): sessions
# of tests/engine/zoo.sh started in the guest through its TLS listener with this machine's
# docker client, collected by this machine's boxcert over the same listener. The sessions are
# not on this host, so the certificates are at level engine: the guest engine's own facts
# (Docker 26, its Id, the TLS peer's certificate) and the engine's word recorded, every kernel
# and runtime reading null (docs/collector.md, "Evidence levels"). Skips (77) when no test
# host runs, fails instead under BOXCERT_REQUIRE_TESTHOST=1.
. "$(dirname "$0")/../lib/testlib.sh"
PY=/usr/bin/python3
need_testhost env
c=$DOCKER_CERT_PATH
trap cleanup_sessions EXIT   # over TLS: $DOCKER talks to the guest's engine

zoo_check() { # zoo_check TABLE DIR: one TAP line per expectation
  local st label got
  : >"$ERR"
  while IFS=$'\t' read -r st label got; do
    if [ "$st" = PASS ]; then _tap 0 "$label"; else echo "#   got: $got"; _tap 1 "$label"; fi
  done < <($PY "$BOXCERT_SOURCE_DIR/tests/engine/zoo_expect.py" "$1" "$2")
}

"$BOXCERT" keygen --out "$T/k" >/dev/null
mkdir -p "$T/certs"
# name | docker run arguments, as in tests/engine/zoo.sh
cat >"$T/sessions" <<'EOF'
hardened-runc|--network none --read-only --cap-drop ALL --security-opt no-new-privileges --pids-limit 64 --memory 256m --tmpfs /tmp:size=64m
hardened-crun|--runtime crun --network none --read-only --cap-drop ALL --security-opt no-new-privileges --pids-limit 64 --memory 256m --tmpfs /tmp:size=64m
hardened-runsc|--runtime runsc --network none --read-only --cap-drop ALL --security-opt no-new-privileges --pids-limit 64 --memory 256m
privileged-runsc|--runtime runsc --privileged --network none
host-pid|--network none --pid host
EOF
while IFS='|' read -r name args; do
  # shellcheck disable=SC2086
  ( session "$name" $args >"$T/$name.id" 2>"$T/$name.err" ) &
done <"$T/sessions"
wait
started=0
while IFS='|' read -r name _; do
  if [ -s "$T/$name.id" ]; then started=$((started + 1)); else
    echo "# $name did not start: $(head -c 300 "$T/$name.err")"; fi
done <"$T/sessions"
is "$started" "$(wc -l <"$T/sessions" | tr -d ' ')" "every session started in the guest over TLS"
id() { cat "$T/$1.id"; }

while IFS='|' read -r name _; do
  [ -s "$T/$name.id" ] || continue
  ok "collect $name over TLS" "$BOXCERT" collect "$(id "$name")" --engine "$DOCKER_HOST" \
    --key "$T/k.key" --out "$T/certs/$name.intoto.json"
  sed 's/^/#   collect: /' "$ERR" | head -n 3
  # runsc sandboxes poll a vCPU of the emulated guest: gone once collected
  case $name in *runsc) "$DOCKER" rm -f "$(id "$name")" >/dev/null 2>&1 ;; esac
done <"$T/sessions"
check_schema certificate "$T"/certs/*.intoto.json

# The guest's facts, read over ssh (its own docker CLI, its own openssl), not by boxcert
peer=$(openssl s_client -connect "${DOCKER_HOST#tcp://}" -CAfile "$c/ca.pem" -cert "$c/cert.pem" \
  -key "$c/key.pem" </dev/null 2>/dev/null | openssl x509 -outform DER | sha256sum | cut -d' ' -f1)
ok "the guest's server certificate digest (openssl s_client here)" test ${#peer} -eq 64
gsrv=$(gv "openssl x509 -in /etc/docker/tls/server-cert.pem -outform DER | sha256sum" | cut -d' ' -f1)
is "$peer" "$gsrv" "... is the guest's /etc/docker/tls/server-cert.pem"
gver=$(gv "docker version --format '{{.Server.Version}} {{.Server.APIVersion}}'")
gid=$(gv "docker info --format '{{.ID}}'")
is "$(gv "docker info --format '{{.CgroupDriver}} {{.CgroupVersion}}'")" "systemd 2" \
  "the guest's engine: cgroup driver systemd, cgroup v2 (docker info over ssh)"
img=$(gv "docker image inspect --format '{{.Id}}' boxcert-session:1")
# the API version spoken: the lower of the guest's and the newest boxcert speaks (the header's
# BX_ENGINE_API_MAX, docs/collector.md)
bx_api=$(sed -n 's/^#define BX_ENGINE_API_MAX "\(.*\)"$/\1/p' "$BOXCERT_SOURCE_DIR/attest/include/bx_attest.h")
api=$(printf '%s\n%s\n' "${gver#* }" "$bx_api" | sort -V | head -n 1)

cat >"$T/table" <<EOF
# --- the guest engine's facts, from its /version and /info over TLS
hardened-runc engine.kind = "docker"
hardened-runc engine.version = "${gver% *}"
hardened-runc engine.version ~ "^26\\\\."
hardened-runc engine.apiVersion = "$api"
hardened-runc engine.id = "$gid"
hardened-runc engine.endpoint = "$DOCKER_HOST"
hardened-runc engine.tlsPeerSha256 = "$peer"
hardened-runsc engine.tlsPeerSha256 = "$peer"
hardened-crun engine.id = "$gid"
hardened-runc image.id = "$img"
# --- level engine: no kernel, no OCI spec, no sandbox
hardened-runc evidence.level = "engine"
hardened-runc evidence.kernelSha256 = null
hardened-runc evidence.ociSpecSha256 = null
hardened-runc evidence.sandbox = null
hardened-crun evidence.level = "engine"
hardened-crun evidence.kernelSha256 = null
hardened-runsc evidence.level = "engine"
hardened-runsc evidence.sandbox = null
privileged-runsc evidence.level = "engine"
host-pid evidence.level = "engine"
# --- the engine's word, recorded as it says it
hardened-runc containment.runtime.name = "runc"
hardened-crun containment.runtime.name = "crun"
hardened-crun containment.runtime.path = "/usr/bin/crun"
hardened-runsc containment.runtime.name = "runsc"
hardened-runsc containment.runtime.path = "/usr/bin/runsc"
hardened-runsc containment.runtime.args = ["--network=none","--oci-seccomp"]
hardened-runc containment.network.mode = "none"
hardened-runc containment.rootfs.readOnly = true
hardened-runc containment.capabilities.drop = ["ALL"]
hardened-runc containment.capabilities.effective = []
hardened-runc containment.noNewPrivileges = true
hardened-runc containment.resources.memoryBytes = 268435456
hardened-runc containment.resources.pidsLimit = 64
hardened-crun containment.resources.pidsLimit = 64
hardened-crun containment.rootfs.readOnly = true
hardened-runc containment.namespaces.cgroup.engine = "private"
hardened-runc containment.namespaces.pid.engine = "private"
host-pid containment.namespaces.pid.engine = "host"
privileged-runsc containment.privileged = true
privileged-runsc containment.capabilities.bounding has "SYS_ADMIN"
# --- and every kernel reading null: nothing of the guest's kernel is seen from here
hardened-runc containment.seccomp.profileSha256 = null
hardened-runc containment.user.uids = null
hardened-runc containment.namespaces.pid.kernel = null
hardened-runc containment.namespaces.cgroup.kernel = null
hardened-runc containment.network.interfaces = null
hardened-runc containment.apparmor.kernel = null
hardened-crun containment.apparmor.kernel = null
hardened-crun containment.namespaces.pid.kernel = null
host-pid containment.namespaces.pid.kernel = null
EOF
zoo_check "$T/table" "$T/certs"

# the verdict of a level-engine certificate: strict asks for the kernel's evidence
expect_rc 1 "strict fails hardened-runc at level engine" "$BOXCERT" verify \
  "$T/certs/hardened-runc.intoto.json" --policy strict --key "$T/k.pub"
ok "a policy that accepts level engine passes it" "$BOXCERT" verify "$T/certs/hardened-runc.intoto.json" \
  --policy "$BOXCERT_SOURCE_DIR/examples/policies/demo.yaml" --key "$T/k.pub"
done_testing
