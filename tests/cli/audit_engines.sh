#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Two engines are one only when they prove it (docs/audit.md, "On every engine"), and orphans
# are judged by the engines that own this host's tasks (docs/audit.md, "Orphans"), without an
# engine: fake Engine APIs (tests/lib/fake_audit_engine.py) on sockets of this test's own.
# Endpoints with one /info ID and other containers or other starts are two engines and a
# reported conflict (exit 1); the same containers and starts, or the same socket, are one;
# a container that starts mid-audit raises no conflict.
. "$(dirname "$0")/../lib/testlib.sh"
PY=/usr/bin/python3
pids=()
ID=ABCD:EFGH:IJKL:MNOP:QRST:UVWX:YZ01:2345:6789:ABCD:EFGH:IJKL
X=$(printf 'a%.0s' $(seq 64))
Y=$(printf 'b%.0s' $(seq 64))
Z=$(printf 'c%.0s' $(seq 64))

start() { # start NAME WORLD: a fake engine on $T/NAME.sock serving $T/WORLD.json
  rm -f "$T/$1.sock" "$T/$1.sock.pid"
  $PY "$BOXCERT_SOURCE_DIR/tests/lib/fake_audit_engine.py" "$T/$1.sock" "$T/$2.json" \
    >"$T/$1.log.err" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 50); do [ -S "$T/$1.sock" ] && return 0; sleep 0.1; done
  return 1
}
stop_all() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; pids=(); }
trap 'stop_all; rm -rf "$T"' EXIT
world() { # world FILE ID CONTAINER_JSON...
  local f=$1 id=$2; shift 2
  (IFS=,; echo "{\"id\": \"$id\", \"containers\": [$*]}") >"$T/$f.json"
}
ctr() { # ctr ID NAME STARTED [LISTED_FROM]
  echo "{\"Id\": \"$1\", \"Name\": \"$2\", \"State\": \"running\", \"StartedAt\": \"$3\", \"Pid\": 42, \"Labels\": {\"run\": \"r1\"}, \"listedFrom\": ${4:-0}}"
}
audit() { # audit OUT ENDPOINT...
  local out=$1 e args=(); shift
  for e in "$@"; do args+=(--engine "unix://$T/$e.sock"); done
  "$BOXCERT" audit --policy "$BOXCERT_SOURCE_DIR/fixtures/certificate/policy.yaml" \
    --key "$T/k.pub" --certs "$T/certs" --label run=r1 --tasks none --format json \
    --output "$T/$out.json" "${args[@]}"
}
q() { # q REPORT PYTHON_EXPR (r: the report)
  $PY -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$T/$1.json"
}

"$BOXCERT" keygen --out "$T/k" >/dev/null
mkdir "$T/certs"
T0=2026-05-01T10:00:00.123456789Z
T1=2026-05-01T10:00:00.5Z

# One ID, other containers: a host cloned from another's image.
world a "$ID" "$(ctr "$X" real "$T0")"
world b "$ID" "$(ctr "$Y" clone "$T0")"
ok "a fake engine" start a a
ok "another with the same ID" start b b
expect_rc 1 "one ID, other containers: a violation" audit ab a b
is "$(q ab 'r["engines"][1]["conflictWith"], r["engines"][1]["sameAs"], r["summary"]["conflicts"]')" \
  "unix://$T/a.sock None 1" "... the second is a conflict with the first, not the same engine"
is "$(q ab 'sorted(x["name"] for x in r["sessions"])')" "['clone', 'real']" \
  "... and both engines' sessions are audited"
expect_rc 1 "listed the other way round" audit ba b a
is "$(q ba 'sorted(x["name"] for x in r["sessions"]), r["summary"]["conflicts"]')" \
  "['clone', 'real'] 1" "... the same rows and the conflict"
"$BOXCERT" audit --policy "$BOXCERT_SOURCE_DIR/fixtures/certificate/policy.yaml" --key "$T/k.pub" \
  --certs "$T/certs" --label run=none --tasks none --engine "unix://$T/a.sock" \
  --engine "unix://$T/b.sock" >"$T/text" 2>&1
echo "rc $?" >>"$T/text"
like "$T/text" "^CONFLICT +unix://$T/b.sock: the engine ID of unix://$T/a.sock" \
  "text: the conflict is one line naming both endpoints"
like "$T/text" '^rc 1$' "... and fails the audit though no session is selected"

# One ID, the same containers, another start (a clone whose sessions started again).
world b "$ID" "$(ctr "$X" real "$T1")"
expect_rc 1 "one ID, the same container Ids, other starts" audit ab2 a b
is "$(q ab2 'r["summary"]["conflicts"], len(r["sessions"])')" "1 2" \
  "... a conflict, and each engine's session is a row"

# One ID, the same containers and starts: one engine through two endpoints.
world b "$ID" "$(ctr "$X" real "$T0")"
expect_rc 1 "one ID, the same containers and starts" audit same a b
is "$(q same 'r["engines"][1]["sameAs"], r["engines"][1]["conflictWith"], r["summary"]["conflicts"], len(r["sessions"])')" \
  "unix://$T/a.sock None 0 1" "... the same engine: audited once"

# A container started mid-audit: listed by one endpoint before the other sees it.
world a "$ID" "$(ctr "$X" real "$T0")" "$(ctr "$Z" late "$T1" 1)"
world b "$ID" "$(ctr "$X" real "$T0")" "$(ctr "$Z" late "$T1" 1)"
stop_all
ok "the fake engines again, their listings counted from 0" start a a
ok "... both" start b b
expect_rc 1 "a container starting while the endpoints are compared" audit mid a b
is "$(q mid 'r["engines"][1]["sameAs"], r["summary"]["conflicts"]')" "unix://$T/a.sock 0" \
  "... raises no conflict: two listings in a row agree"

# The same socket through another path: proven without a listing.
ln -s "$T/a.sock" "$T/a2.sock"
rm -f "$T/a.sock.log"
expect_rc 1 "the same socket, two paths" audit sock a a2
is "$(q sock 'r["engines"][1]["sameAs"], r["summary"]["conflicts"]')" "unix://$T/a.sock 0" \
  "... is one engine"
is "$(grep -c '^/containers/json$' "$T/a.sock.log")" 1 "... proven by the socket: listed once"

# Orphans: only an engine that shares this host's containerd (a dockerd of this host on a
# local socket: SO_PEERCRED) subtracts its containers from the host's tasks. A fake engine is
# no dockerd: a task it lists is still an orphan.
W=$(printf 'd%.0s' $(seq 64))
mkdir -p "$T/tasks/$X" "$T/tasks/$W"
"$BOXCERT" audit --policy "$BOXCERT_SOURCE_DIR/fixtures/certificate/policy.yaml" --key "$T/k.pub" \
  --certs "$T/certs" --label run=r1 --tasks "$T/tasks" --engine "unix://$T/a.sock" \
  --format json --output "$T/orph.json" >/dev/null 2>&1
is "$($PY -c 'import json,sys; r=json.load(open(sys.argv[1])); print(sorted(o["id"] for o in r["orphans"]) == sorted(sys.argv[2:]), r["engines"][0]["id"] is not None)' "$T/orph.json" "$X" "$W")" \
  "True True" "a task a fake engine on a local socket lists is an orphan (it is not this host's dockerd)"

done_testing
