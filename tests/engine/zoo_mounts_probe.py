# SPDX-License-Identifier: Apache-2.0
"""The mounts zoo's host-side truth, written without boxcert's code: what of this host a
session's mounts reach, from its mountinfo (or, under runsc, its gofer's) and this host's,
by device and inode.

usage: /usr/bin/python3 zoo_mounts_probe.py CERTDIR KEYFILE SESSION=PID[:runsc]...

For each session, CERTDIR/SESSION.intoto.json is read for the list of host objects it names
(their paths only); the probe then finds each object on this host itself (lstat of the path),
places it in its file system (this host's /proc/self/mountinfo), reads the session's
mountinfo, and decides for every object whether a mount exposes it: the same device and a
mount root that is the object's path or an ancestor; a state folder also by a mount inside it;
this host's procfs and sysfs by any mount of them; a hard link to an object with more than one
link by walking beneath the mount in the session's root. The forbidden file system types are
listed again here (a read-only devtmpfs mount of the null device alone, on top at its point, is
a masked path: crun binds this host's /dev/null so). Prints PASS/FAIL lines (as zoo_expect.py).
"""
import base64
import json
import os
import stat
import sys

FORBIDDEN = {"devtmpfs", "debugfs", "tracefs", "securityfs", "bpf", "nsfs", "efivarfs", "configfs"}
# the objects every collection on this host must name, when this host has them
MUST = ["/run/docker.sock", "/run/containerd/containerd.sock", "/run/containerd", "/run/docker",
        "/proc", "/sys", "/"]


def unescape(s):
    out, i = "", 0
    while i < len(s):
        if s[i] == "\\" and i + 3 < len(s) and s[i + 1:i + 4].isdigit():
            out += chr(int(s[i + 1:i + 4], 8))
            i += 4
        else:
            out += s[i]
            i += 1
    return out


def mountinfo(path):
    lines = []
    with open(path) as f:
        for line in f:
            a = line.split()
            sep = a.index("-")
            major, minor = (int(x) for x in a[2].split(":"))
            lines.append({"id": int(a[0]), "dev": os.makedev(major, minor), "root": unescape(a[3]),
                          "point": unescape(a[4]), "opts": a[5].split(","), "fstype": a[sep + 1],
                          "super": a[sep + 3].split(",")})
    return lines


def within(anc, p):
    return anc == "/" or p == anc or p.startswith(anc + "/")


def place(host, path, dev):
    best = None
    for m in host:
        if within(m["point"], path) and (best is None or len(m["point"]) >= len(best["point"])):
            best = m
    if best is None or best["dev"] != dev:
        return None
    rest = path if best["point"] == "/" else path[len(best["point"]):]
    if rest == "/":
        rest = ""
    return (rest or "/") if best["root"] == "/" else best["root"] + rest


def walk_for(top, dev, ino, budget=[0]):
    """1 found, 0 absent, None: a covered place or too much to walk."""
    result, seen = 0, 0
    stack = [(top, 0)]
    while stack:
        d, depth = stack.pop()
        try:
            entries = list(os.scandir(d))
        except OSError:
            return None
        for e in entries:
            seen += 1
            if seen > 20000:
                return None
            st = os.lstat(e.path)
            if st.st_dev != dev:
                result = None
                continue
            if st.st_ino == ino and not stat.S_ISDIR(st.st_mode):
                return 1
            if stat.S_ISDIR(st.st_mode):
                if depth >= 16:
                    result = None
                else:
                    stack.append((e.path, depth + 1))
    return result


def truth(pid, objects, host):
    lines = mountinfo(f"/proc/{pid}/mountinfo")
    root = f"/proc/{pid}/root"
    tops = {}
    for m in lines:
        tops[m["point"]] = m  # the last at a point is on top
    reach, via = {}, {}
    for o in objects:
        r = False
        for m in lines:
            if m["dev"] != o["dev"]:
                continue
            hit = False
            if o["whole"]:
                hit = True
            elif o["fs"] is None:
                hit = None
            elif within(m["root"], o["fs"]) or (o["below"] and within(o["fs"], m["root"])):
                hit = True
            elif not o["dir"] and o["nlink"] > 1:
                if tops.get(m["point"]) is not m:
                    hit = None
                else:
                    p = root + m["point"]
                    st = os.lstat(p)
                    if st.st_dev != o["dev"]:
                        hit = None
                    elif not stat.S_ISDIR(st.st_mode):
                        hit = st.st_ino == o["ino"]
                    else:
                        w = walk_for(p, o["dev"], o["ino"])
                        hit = None if w is None else bool(w)
            if hit:
                r = True
                via.setdefault(o["path"], set()).add(m["point"])
            elif hit is None and r is False:
                r = None
        reach[o["path"]] = r
    types = set()
    for m in lines:
        writable = "rw" in m["opts"] and "ro" not in m["super"]
        if m["fstype"] == "devtmpfs" and not writable and null_bind(root, m, tops):
            continue  # a path masked with this host's /dev/null (crun), read-only
        if m["fstype"] in FORBIDDEN or (m["fstype"] == "cgroup" and writable):
            types.add((m["point"], m["fstype"]))
    return reach, via, types


def null_bind(root, m, tops):
    """The mount is on top at its point and what is there is the null device (1:3) of its own
    device: a bind of that node alone."""
    if tops.get(m["point"]) is not m:
        return False
    try:
        st = os.lstat(root + m["point"])
    except OSError:
        return False
    return (stat.S_ISCHR(st.st_mode) and os.major(st.st_rdev) == 1 and os.minor(st.st_rdev) == 3
            and st.st_dev == m["dev"])


def main():
    certdir, keyfile = sys.argv[1], sys.argv[2]
    host = mountinfo("/proc/self/mountinfo")
    for arg in sys.argv[3:]:
        name, rest = arg.split("=", 1)
        pid = rest.split(":")[0]
        env = json.load(open(os.path.join(certdir, name + ".intoto.json")))
        pred = json.loads(base64.b64decode(env["payload"]))["predicate"]
        ho = pred["containment"]["hostObjects"]
        label = f"{name}:"
        if not isinstance(ho, dict):
            print(f"FAIL\t{label} hostObjects recorded\t{ho!r}")
            continue
        objs = []
        for c in ho["objects"]:
            st = os.lstat(c["path"])
            objs.append({"path": c["path"], "dev": st.st_dev, "ino": st.st_ino,
                         "nlink": st.st_nlink, "dir": stat.S_ISDIR(st.st_mode),
                         "whole": c["path"] in ("/proc", "/sys"),
                         "below": c["what"] == "engine folder",
                         "fs": place(host, c["path"], st.st_dev)})
            got_dev = c["device"]
            want_dev = f"{os.major(st.st_dev)}:{os.minor(st.st_dev)}"
            if got_dev != want_dev or c["inode"] != st.st_ino:
                print(f"FAIL\t{label} {c['path']} identity\t{got_dev} {c['inode']} (probe {want_dev} {st.st_ino})")
        named = {c["path"] for c in ho["objects"]}
        for p in MUST + [os.path.realpath(keyfile), os.path.dirname(os.path.realpath(keyfile))]:
            if os.path.lexists(p):
                print(("PASS" if os.path.realpath(p) in named else "FAIL") +
                      f"\t{label} names {p}\t{sorted(named)}")
        # the truth: the gofer's mountinfo under runsc
        reach, via, types = truth(pid, objs, host)
        for c in ho["objects"]:
            want = reach[c["path"]]
            ok = c["reachable"] == want and (not want or set(c["via"]) == via.get(c["path"], set()))
            print(("PASS" if ok else "FAIL") +
                  f"\t{label} {c['what']} {c['path']} reachable={json.dumps(want)}"
                  f"\t{c['reachable']} via {c['via']} (probe via {sorted(via.get(c['path'], []))})")
        got = {(t["destination"], t["fsType"]) for t in ho["forbiddenTypes"]}
        print(("PASS" if got == types else "FAIL") +
              f"\t{label} forbidden types {sorted(types)}\t{sorted(got)}")


if __name__ == "__main__":
    main()
