#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# containment.channels (predicate v3) on real sessions: a descriptor broker beside a session (a
# host process hands it one end of a socketpair over a bind-mounted socket, the connection then
# closed and the socket's path removed), a session connected to a host listener, two sessions
# connected to each other (each names the other's Id), a session with --network none holding an
# inet, a netlink and a packet socket made in the host's network namespace (network.mode then
# the host's, a discrepancy), descriptors in flight on a session's own socketpair, a policy
# allowing the listener's path, a runsc session (its sandbox's sockets are the runtime's own),
# and a hardened session that passes strict. The helpers are
# test-owned processes, killed by their pid. Sockets are created, passed and inspected only:
# no packet is sent to any address.
. "$(dirname "$0")/../lib/testlib.sh"
need_engine
PY=/usr/bin/python3
V=$BOXCERT_BIN/boxcert-verify
trap stop_helpers EXIT

mkdir -p "$T/ch" "$T/pd"
static_helper channels_helper "$T/ch/channels_helper"
H="$T/ch/channels_helper"
"$BOXCERT" keygen --out "$T/k" >/dev/null

serve() { # serve NAME KIND: a host helper listening on $T/ch/NAME.sock
  "$H" serve "$T/ch/$1.sock" "$2" >"$T/$1.serve" 2>&1 &
  HELPERS+=($!)
  eval "pid_$1=$!"
  for _ in $(seq 50); do [ -S "$T/ch/$1.sock" ] && return 0; sleep 0.1; done
  return 1
}
until_says() { # until_says FILE WORD: wait until FILE has WORD
  for _ in $(seq 100); do grep -qx "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  return 1
}
in_session() { # in_session NAME HELPER-ARGS...: a session running the helper (network none)
  local name=$1; shift
  local id
  id=$(session "$name" --network none -v "$T/ch:/ch:ro" -v "$T/pd:/pd" -- /ch/channels_helper "$@") || return 1
  echo "$id" >"$T/$name.id"
}
logs_say() { # logs_say NAME WORD
  for _ in $(seq 100); do
    "$DOCKER" logs "$(cat "$T/$1.id")" 2>/dev/null | grep -qx "$2" && return 0; sleep 0.1
  done
  return 1
}

ok "a host broker listens" serve broker pair
ok "a host listener listens" serve listener none
ok "a host helper with an inet socket" serve inet inet
ok "a host helper with a netlink socket" serve netlink netlink
packet=1
serve packet packet || packet=0
ok "the broker's session" in_session broker take /ch/broker.sock close
ok "the listener's session" in_session listener take /ch/listener.sock bare
ok "the inet session" in_session inet take /ch/inet.sock close
ok "the netlink session" in_session netlink take /ch/netlink.sock close
[ $packet = 1 ] && ok "the packet session" in_session packet take /ch/packet.sock close
ok "a session listening" in_session peerA listen /pd/peer.sock
ok "it listens" logs_say peerA listening
ok "a session connecting to it" in_session peerB take /pd/peer.sock bare
ok "a session with descriptors in flight" in_session inflight inflight
hard=$(session hard --network none --read-only --cap-drop ALL --security-opt no-new-privileges \
  --pids-limit 64 --memory 256m --tmpfs /tmp:size=64m --user 65532:65532)
echo "$hard" >"$T/hard.id"
runsc=0
if has_runtime runsc; then
  runsc=1
  session gv --runtime runsc --network none >"$T/gv.id"
fi
for n in broker inet netlink listener; do ok "$n: the helper passed its socket" until_says "$T/$n.serve" sent; done
for n in broker listener inet netlink peerB; do ok "$n: the session took it" logs_say $n took; done
ok "inflight: held" logs_say inflight held
if [ $packet = 1 ]; then
  until_says "$T/packet.serve" sent || packet=0
fi
# the broker's bind gone: the path removed, the connection closed; the socketpair stays
rm -f "$T/ch/broker.sock"

names=(broker listener inet netlink peerA peerB inflight hard)
[ $packet = 1 ] && names+=(packet)
[ $runsc = 1 ] && names+=(gv)
collect_each "$T/k.key" "$T" "${names[@]}"
for n in "${names[@]}"; do check_schema certificate "$T/$n.intoto.json"; done

channels() { # channels CERT: one line per channel, then the network mode and discrepancies
  "$PY" - "$1" <<'PY'
import base64, json, sys
st = json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))
c = st["predicate"]["containment"]
assert st["predicateType"] == "urn:boxcert:containment:v3"
for e in c["channels"]:
    p = e["peer"] or {}
    print("channel", e["family"], e["type"], e["netnsOf"], p.get("kind"), p.get("container"),
          p.get("pid"), p.get("comm"), e["path"], e["inFlight"])
print("mode", c["network"]["mode"])
for d in st["predicate"]["evidence"]["discrepancies"]:
    print("discrepancy", d["field"], d["recorded"])
PY
}
for n in "${names[@]}"; do channels "$T/$n.intoto.json" >"$T/$n.txt"; done
idA=$(cat "$T/peerA.id"); idB=$(cat "$T/peerB.id")

# a descriptor broker: the socketpair's other end is the helper's (pid, comm), bound to no path;
# the socketpair was made in the host's network namespace (an abstract name reached from it would
# be the host's): the network is the host's
like "$T/broker.txt" "^channel unix stream host host None $pid_broker channels_helper None 0\$" \
  "broker: the passed socketpair's peer is the host's broker, by pid and comm"
is "$(grep -c '^channel' "$T/broker.txt")" 1 "broker: the closed connection is gone, one channel"
like "$T/broker.txt" '^mode host$' "broker: a unix socket of the host's namespace: the host's network"
like "$T/listener.txt" '^mode none$' "listener: the session's own socket: the network stays none"
# a host listener: its path
like "$T/listener.txt" "^channel unix stream session host None $pid_listener channels_helper $T/ch/listener.sock 0\$" \
  "listener: connected to the host's listener, its path on the host"
# two sessions: each names the other's Id
like "$T/peerB.txt" "^channel unix stream session container $idA [0-9]* channels_helper /pd/peer.sock 0\$" \
  "two sessions: the connecting one names the listening one's container"
like "$T/peerA.txt" "^channel unix stream other container $idB [0-9]* channels_helper /pd/peer.sock 0\$" \
  "two sessions: the listening one names the connecting one's container (its accepted socket made in that one's namespace)"
like "$T/peerA.txt" '^mode None$' "two sessions: a socket of another container's namespace: the network not known"
is "$(grep -c '^channel' "$T/peerA.txt")" 1 "two sessions: the listening socket is not a channel"
# sockets of the host's network namespace, the session's own none
like "$T/inet.txt" '^channel inet stream host None None None None None None$' \
  "inet: a socket made in the host's network namespace (no peer, no path)"
like "$T/inet.txt" '^mode host$' "inet: network.mode the host's, whatever the session's namespace shows"
like "$T/inet.txt" '^discrepancy containment.network.mode host$' "inet: a discrepancy recorded"
like "$T/netlink.txt" '^channel netlink raw host ' "netlink: a netlink socket of the host's namespace"
like "$T/netlink.txt" '^mode host$' "netlink: network.mode the host's"
if [ $packet = 1 ]; then
  like "$T/packet.txt" '^channel packet dgram host ' "packet: a packet socket of the host's namespace"
else
  skip_one "no packet socket could be made here"
fi
# descriptors in flight on the session's own socketpair
like "$T/inflight.txt" "^channel unix stream session session None $(cpid "$(cat "$T/inflight.id")") None None 1\$" \
  "in flight: one descriptor sent and never received, on the session's own socketpair"
is "$(grep -c '^channel' "$T/inflight.txt")" 1 "in flight: the sending end is not recorded"
# the hardened session: nothing
is "$(grep -c '^channel' "$T/hard.txt")" 0 "hardened: no channel"

# runsc: the sandbox's sockets of the host's namespace are the runtime's own, its peers its own
if [ $runsc = 1 ]; then
  is "$(grep -c '^channel' "$T/gv.txt")" 0 "runsc: no channel (the sandbox's sockets are the runtime's)"
  like "$T/gv.txt" '^mode none$' "runsc: the network stays none"
fi
# verdicts
status_of() { # status_of NAME POLICY: containment.channels' status
  "$V" verify "$T/$1.intoto.json" --policy "$2" --key "$T/k.pub" --format json |
    "$PY" -c 'import json,sys; print([f["status"] for f in json.load(sys.stdin)["results"][0]["findings"] if f["rule"] == "containment.channels"])' |
    tr -d "[]'"
}
verdict() { "$V" verify "$T/$1.intoto.json" --policy "$2" --key "$T/k.pub" >"$T/$1.v" 2>&1; echo $? >"$T/$1.rc"; }
for n in broker listener inet netlink peerA peerB inflight; do
  verdict $n strict
  like "$T/$n.v" 'fail containment.channels' "$n: strict fails containment.channels"
done
like "$T/broker.v" "process [0-9]+ fd [0-9]+: a socket \\(unix\\) made in the host's network namespace" "broker: naming the namespace"
like "$T/inet.v" "made in the host's network namespace" "inet: naming the namespace"
like "$T/inet.v" 'fail containment.network: network mode is host' "inet: containment.network sees the host's network"
like "$T/inflight.v" '1 descriptor\(s\) in flight' "in flight: naming the count"
like "$T/peerB.v" "connected to container $idA at /pd/peer.sock" "two sessions: naming the other container"
like "$T/listener.v" "connected to the host's process $pid_listener \\(channels_helper\\) at $T/ch/listener.sock" \
  "listener: naming the host's process and its path"
verdict hard strict
is "$(status_of hard strict)" pass "hardened: strict passes containment.channels"
is "$(cat "$T/hard.rc")" 0 "hardened: strict passes"
[ $runsc = 1 ] && is "$(status_of gv gvisor)" pass "runsc: gvisor passes containment.channels"
printf 'version: 1\ncontainment:\n  channels: {allow: [%s]}\n' "$T/ch/listener.sock" >"$T/allow.yaml"
is "$(status_of listener "$T/allow.yaml")" pass "a policy allowing the listener's path passes"
verdict broker "$T/allow.yaml"
like "$T/broker.v" 'fail containment.channels' "and does not allow the broker's socketpair"
done_testing
