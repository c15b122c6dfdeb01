#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The platform the collector is tested on: a real engine with runc and runsc, the
# session image, and the mutual-TLS listener.
. "$(dirname "$0")/../lib/testlib.sh"
need_engine

ok "engine answers /_ping" curl -sf --unix-socket /var/run/docker.sock http://engine/_ping
ok "session image $SESSION_IMAGE exists" "$DOCKER" image inspect "$SESSION_IMAGE"

runsc=$("$DOCKER" info --format '{{json .Runtimes.runsc}}' 2>/dev/null)
like <(echo "$runsc") '"--network=none"' "runsc runtime has --network=none"
like <(echo "$runsc") '"--oci-seccomp"' "runsc runtime has --oci-seccomp"

ok "runsc session runs" "$DOCKER" run --rm --label "boxcert.test=$RUN_ID" --runtime=runsc \
  "$SESSION_IMAGE" grep Seccomp: /proc/self/status
like "$OUT" '^Seccomp:[[:space:]]+2$' "runsc session reports Seccomp: 2 from inside"

id=$(session hardened --read-only --cap-drop ALL --security-opt no-new-privileges --network none)
pid=$("$DOCKER" inspect --format '{{.State.Pid}}' "$id")
ok "hardened runc session has a host pid" test "$pid" -gt 0
cp "/proc/$pid/status" "$T/status"
like "$T/status" '^CapEff:[[:space:]]+0000000000000000$' "hardened session: CapEff 0"
like "$T/status" '^NoNewPrivs:[[:space:]]+1$' "hardened session: NoNewPrivs 1"

eval "$(bash "$BOXCERT_SOURCE_DIR/scripts/engine.sh" env)"
tls=$BOXCERT_TLS_CERT_PATH
if [ -f "$tls/cert.pem" ]; then
  ok "TLS endpoint answers /_ping with the client certificate" \
    curl -sf --max-time 5 --cacert "$tls/ca.pem" --cert "$tls/cert.pem" --key "$tls/key.pem" \
    "https://127.0.0.1:2376/_ping"
  fails "TLS endpoint refuses a client without a certificate" \
    curl -s --max-time 5 --cacert "$tls/ca.pem" "https://127.0.0.1:2376/_ping"
else
  is "missing" "present" "TLS client certificate at $tls (engine not started by scripts/engine.sh?)"
fi
done_testing
