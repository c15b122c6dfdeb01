# SPDX-License-Identifier: Apache-2.0
"""The truth about a session's network namespace, read on this host with iproute2 alone (none
of boxcert's code), for tests/engine/zoo_network.sh to hold each certificate to.

usage: /usr/bin/python3 zoo_net_probe.py NAME PID [runsc]
  PID: the session's State.Pid (runsc: the sandbox, whose namespace is the session's host
  side). Prints expectation lines for zoo_expect.py: "NAME <dotted path> OP <JSON>".

What is read: `nsenter -t PID -n ip -j -d link show`, `ip -j addr show` and `ip -j -4/-6 route
show table all` in the session's network namespace, `ip -j -d link show` in this host's. A
veth's peer is on the host when this host has a veth of the peer's index whose own peer index
is the session's link; its bridge is that veth's master. Routes as the kernel keeps them but
the local, broadcast, anycast and multicast ones (those never leave the namespace); the main
table is 254, local 255; "default" is 0.0.0.0/0 (::/0).
"""
import json
import subprocess
import sys

name, pid = sys.argv[1], sys.argv[2]
runsc = len(sys.argv) > 3 and sys.argv[3] == "runsc"
TABLES = {"main": 254, "local": 255, "default": 253}


def ip(*args, netns=True):
    cmd = (["nsenter", "-t", pid, "-n"] if netns else []) + ["ip", "-j"] + list(args)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out) if out.strip() else []


links = ip("-d", "link", "show")
addrs = ip("addr", "show")
host = {l["ifindex"]: l for l in ip("-d", "link", "show", netns=False)}
by_index = {l["ifindex"]: l["ifname"] for l in links}


def emit(path, op, value):
    print("%s containment.network.%s %s %s" % (name, path, op, json.dumps(value)))


names = sorted(l["ifname"] for l in links)
if not runsc:  # under runsc the interfaces are the sentry's (its flags), not the host side's
    emit("interfaces", "=", names)
emit("links", "len", len(links))
for l in links:
    n = l["ifname"]
    kind = l.get("linkinfo", {}).get("info_kind")
    a = next((x for x in addrs if x["ifindex"] == l["ifindex"]), {})
    got = sorted("%s/%d" % (i["local"], i["prefixlen"]) for i in a.get("addr_info", [])
                 if i.get("family") in ("inet", "inet6"))
    emit("links.[name=%s].kind" % n, "=", kind)
    emit("links.[name=%s].up" % n, "=", "UP" in l.get("flags", []))
    emit("links.[name=%s].operState" % n, "=", l.get("operstate", "").lower() or None)
    emit("links.[name=%s].addresses" % n, "=", got)
    if kind == "veth":
        peer = host.get(l.get("link_index")) if "link_netnsid" in l else None
        on_host = bool(peer and peer.get("link_index") == l["ifindex"] and "link_netnsid" in peer
                       and peer.get("linkinfo", {}).get("info_kind") == "veth")
        emit("links.[name=%s].peer.host" % n, "=", on_host)
        bridge = peer.get("master") if on_host else None
        if bridge and host.get(next((i for i, h in host.items() if h["ifname"] == bridge), -1),
                               {}).get("linkinfo", {}).get("info_kind") != "bridge":
            bridge = None
        emit("links.[name=%s].peer.bridge" % n, "=", bridge)
    else:
        emit("links.[name=%s].peer" % n, "=", None)

routes = []
for fam, any_dst, full in (("-4", "0.0.0.0/0", 32), ("-6", "::/0", 128)):
    for r in ip(fam, "route", "show", "table", "all"):
        t = r.get("type", "unicast")
        if t in ("local", "broadcast", "anycast", "multicast"):
            continue
        dst = r["dst"]
        dst = any_dst if dst == "default" else dst if "/" in dst else "%s/%d" % (dst, full)
        table = r.get("table", "main")
        routes.append({"table": TABLES.get(table, int(table) if str(table).isdigit() else -1),
                       "dst": dst, "gateway": r.get("gateway"), "dev": r.get("dev"), "type": t})


def key(r):
    return (r["table"], r["dst"], r["dev"] is not None, r["dev"] or "", r["gateway"] is not None,
            r["gateway"] or "", r["type"])


emit("routes", "=", sorted(routes, key=key))
