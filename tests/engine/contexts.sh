#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Docker contexts, as the docker CLI writes them (`docker context create`): a context on this
# machine's mutual-TLS listener chosen by DOCKER_CONTEXT and by config.json's currentContext,
# its own TLS material (DOCKER_CERT_PATH does not apply), DOCKER_HOST over the context, an
# audit of two engines named by context, and unknown or broken contexts: exit 2 and no
# certificate, never the default socket.
. "$(dirname "$0")/../lib/testlib.sh"
need_engine
PY=/usr/bin/python3
eval "$(bash "$BOXCERT_SOURCE_DIR/scripts/engine.sh" env)"
export DOCKER_CONFIG=$T/docker-config
mkdir -p "$DOCKER_CONFIG"
unset DOCKER_HOST DOCKER_CONTEXT DOCKER_TLS_VERIFY DOCKER_CERT_PATH
"$BOXCERT" keygen --out "$T/k" >/dev/null
id=$(session ctx --network none --read-only --cap-drop ALL --security-opt no-new-privileges)
c=$BOXCERT_TLS_CERT_PATH
ok "docker context create: the TLS listener" "$DOCKER" context create tlslab \
  --docker "host=$BOXCERT_TLS_HOST,ca=$c/ca.pem,cert=$c/cert.pem,key=$c/key.pem"
ok "docker context create: the unix socket" "$DOCKER" context create local \
  --docker "host=unix:///var/run/docker.sock"
ok "docker context create: an engine that is down" "$DOCKER" context create down \
  --docker "host=unix://$T/nobody.sock"
ok "the docker CLI reaches the engine through tlslab" "$DOCKER" --context tlslab version

endpoint_of() { # the certificate's engine.endpoint and tlsPeerSha256 (set or not)
  $PY -c 'import base64,json,sys; e=json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))["predicate"]["engine"]; print(e["endpoint"], "tls" if e.get("tlsPeerSha256") else "plain")' "$1"
}

ok "DOCKER_CONTEXT=tlslab: collect" env DOCKER_CONTEXT=tlslab "$BOXCERT" collect "$id" \
  --key "$T/k.key" --out "$T/tls.intoto.json"
is "$(endpoint_of "$T/tls.intoto.json")" "$BOXCERT_TLS_HOST tls" \
  "... over the context's TLS listener, its certificate recorded"
ok "... DOCKER_CERT_PATH pointing elsewhere does not apply to a context" \
  env DOCKER_CONTEXT=tlslab DOCKER_TLS_VERIFY=1 DOCKER_CERT_PATH=/nonexistent \
  "$BOXCERT" collect "$id" --key "$T/k.key" --out "$T/tls2.intoto.json"

ok "--context tlslab: collect" "$BOXCERT" collect "$id" --context tlslab --key "$T/k.key" \
  --out "$T/flag.intoto.json"
is "$(endpoint_of "$T/flag.intoto.json")" "$BOXCERT_TLS_HOST tls" "... over the TLS listener"
expect_rc 2 "--context nosuch: exit 2" "$BOXCERT" collect "$id" --context nosuch --key "$T/k.key" \
  --out "$T/flag2.intoto.json"
ok "... and no certificate" test ! -e "$T/flag2.intoto.json"

"$DOCKER" context use tlslab >/dev/null
is "$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["currentContext"])' "$DOCKER_CONFIG/config.json")" \
  tlslab "docker context use writes currentContext"
ok "currentContext tlslab: collect" "$BOXCERT" collect "$id" --key "$T/k.key" \
  --out "$T/cur.intoto.json"
is "$(endpoint_of "$T/cur.intoto.json")" "$BOXCERT_TLS_HOST tls" "... over the TLS listener"
ok "DOCKER_CONTEXT=local over currentContext" env DOCKER_CONTEXT=local "$BOXCERT" collect "$id" \
  --key "$T/k.key" --out "$T/local.intoto.json"
is "$(endpoint_of "$T/local.intoto.json")" "unix:///var/run/docker.sock plain" "... the unix socket"
ok "DOCKER_HOST over the context" env DOCKER_HOST=unix:///var/run/docker.sock "$BOXCERT" collect \
  "$id" --key "$T/k.key" --out "$T/host.intoto.json"
is "$(endpoint_of "$T/host.intoto.json")" "unix:///var/run/docker.sock plain" "... the unix socket"

# Broken and unknown contexts: exit 2 (configuration), no certificate, no fallback.
expect_rc 2 "an unknown DOCKER_CONTEXT" env DOCKER_CONTEXT=nosuch "$BOXCERT" collect "$id" \
  --key "$T/k.key" --out "$T/x1.intoto.json"
like "$ERR" '^boxcert: .*nosuch.*no such docker context' "... one line naming it"
ok "... and no certificate" test ! -e "$T/x1.intoto.json"
"$DOCKER" context use default >/dev/null
$PY - "$DOCKER_CONFIG/config.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); d["currentContext"] = "gone"; json.dump(d, open(sys.argv[1], "w"))
EOF
expect_rc 2 "a currentContext that names no context" "$BOXCERT" collect "$id" --key "$T/k.key" \
  --out "$T/x2.intoto.json"
ok "... and no certificate" test ! -e "$T/x2.intoto.json"
expect_rc 1 "... the docker CLI refuses it too" "$DOCKER" version
"$DOCKER" context use default >/dev/null 2>&1 || $PY - "$DOCKER_CONFIG/config.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); d["currentContext"] = "default"; json.dump(d, open(sys.argv[1], "w"))
EOF
meta=$(ls "$DOCKER_CONFIG"/contexts/meta/*/meta.json | while read -r f; do
  grep -q '"Name":"tlslab"' "$f" && echo "$f"; done)
ok "tlslab's meta.json found where the docker CLI wrote it" test -f "$meta"
cp "$meta" "$T/meta.saved"
printf '{"Name":"tlslab",' >"$meta"
expect_rc 2 "a context whose meta.json is not JSON" env DOCKER_CONTEXT=tlslab "$BOXCERT" collect \
  "$id" --key "$T/k.key" --out "$T/x3.intoto.json"
like "$ERR" 'meta.json: not a JSON object' "... named with its file"
cp "$T/meta.saved" "$meta"
tlsdir=$(dirname "$(dirname "$meta")")/../tls/$(basename "$(dirname "$meta")")/docker
mv "$tlsdir/key.pem" "$T/key.saved"
expect_rc 2 "a context whose key.pem is gone" env DOCKER_CONTEXT=tlslab "$BOXCERT" collect "$id" \
  --key "$T/k.key" --out "$T/x4.intoto.json"
like "$ERR" 'TLS file for the engine' "... says which file is missing"
like "$ERR" "contexts/tls/[0-9a-f]{64}/docker/key" "... in the context's own TLS folder"
mv "$T/key.saved" "$tlsdir/key.pem"
expect_rc 3 "a context whose engine is down: unreachable (exit 3), not the default socket" \
  env DOCKER_CONTEXT=down "$BOXCERT" collect "$id" --key "$T/k.key" --out "$T/x5.intoto.json"
like "$ERR" 'nobody.sock' "... naming the context's socket"
ok "... and no certificate" test ! -e "$T/x5.intoto.json"

# An audit of two endpoints of one engine, each named by its context with its own TLS material
# (the unix one has none); context:NAME is the engine of that context.
mkdir "$T/certs" && cp "$T"/tls.intoto.json "$T/certs/"
expect_rc 1 "audit: --engine context:tlslab --engine context:local (exit 1: the session is still running)" \
  "$BOXCERT" audit \
  --engine context:tlslab --engine context:local --policy strict --key "$T/k.pub" --certs "$T/certs" --label "boxcert.test=$RUN_ID" \
  --format json --output "$T/audit.json"
is "$($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sorted(e["endpoint"] for e in d["engines"]))' "$T/audit.json" 2>&1)" \
  "['$BOXCERT_TLS_HOST', 'unix:///var/run/docker.sock']" "... both endpoints reached"
done_testing
