#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Regenerate fixtures/base/statement.json from a real collection: a hardened runc session on
# the engine (scripts/engine.sh), collected by build/bin/boxcert, its identities, times and
# hashes set to fixed values (scripts/fixtures.py normalize). Every policy-eval case and
# statement fuzz seed is a merge patch over it; the build writes the full documents
# (bx-fixture-expand), so after this script `make test` shows what a new base changes.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BOXCERT_BIN:-build/bin}
tmp=$(mktemp -d)
name=bx-fixture-base-$$
trap 'docker rm -f "$name" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
"$B/boxcert" keygen --out "$tmp/k" >/dev/null
image=$(docker image inspect -f '{{.Id}}' boxcert-session:1)
docker run -d --name "$name" --label boxcert.test=fixture-base --network none --read-only \
  --cap-drop ALL --security-opt no-new-privileges --pids-limit 64 --memory 256m \
  --memory-swap 256m --cpus 1 --tmpfs /tmp:size=64m --user 65532:65532 \
  boxcert-session:1 sleep 600 >/dev/null
"$B/boxcert" collect "$name" --key "$tmp/k.key" --expect-image "$image" --out "$tmp/c.intoto.json"
/usr/bin/python3 scripts/fixtures.py normalize "$tmp/c.intoto.json" fixtures/base/statement.json
echo "fixtures/base/statement.json regenerated from session $name"
