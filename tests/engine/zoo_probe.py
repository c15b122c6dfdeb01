# SPDX-License-Identifier: Apache-2.0
"""The truth about a session's processes, read from this host's /proc by this script alone
(none of boxcert's code), for tests/engine/zoo_processes.sh to hold each certificate to.

usage: /usr/bin/python3 zoo_probe.py NAME INSPECT_JSON IDS_FILE [NAME INSPECT_JSON IDS_FILE...]
  INSPECT_JSON: `docker inspect` of the session (a list of one); IDS_FILE: the Id of every
  container the engine has, one a line. Prints expectation lines for zoo_expect.py:
  "NAME <dotted path> = <JSON>", one per fact.

Which processes are the session's: with a pid namespace of its own (its init is pid 1 there),
those in it (and, here, not below it: the zoo makes none), but those whose cgroup names another
container; otherwise those whose cgroup, in some hierarchy, is the session's or below it, but
another container's. Every task of each is read. A namespace is shared when a process outside
the session is in it (a host process, or another container's), or holds it open (a descriptor,
an nsfs bind mount but the engine's own at the SandboxKey); one the host shares names no
container. Which device nodes the session's device cgroup opens is asked of the kernel: a child
of this script in the session's cgroup opens each (v1: held to devices.list too; below).
"""
import errno
import json
import os
import re
import stat
import subprocess
import sys

CAPS = ["CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "FSETID", "KILL", "SETGID", "SETUID",
        "SETPCAP", "LINUX_IMMUTABLE", "NET_BIND_SERVICE", "NET_BROADCAST", "NET_ADMIN", "NET_RAW",
        "IPC_LOCK", "IPC_OWNER", "SYS_MODULE", "SYS_RAWIO", "SYS_CHROOT", "SYS_PTRACE", "SYS_PACCT",
        "SYS_ADMIN", "SYS_BOOT", "SYS_NICE", "SYS_RESOURCE", "SYS_TIME", "SYS_TTY_CONFIG", "MKNOD",
        "LEASE", "AUDIT_WRITE", "AUDIT_CONTROL", "SETFCAP", "MAC_OVERRIDE", "MAC_ADMIN", "SYSLOG",
        "WAKE_ALARM", "BLOCK_SUSPEND", "AUDIT_READ", "PERFMON", "BPF", "CHECKPOINT_RESTORE"]
KINDS = ["pid", "ipc", "uts", "net", "user", "cgroup", "mnt", "time"]
ENGINE_SOCKETS = {"/run/docker.sock", "/var/run/docker.sock", "/run/containerd/containerd.sock",
                  "/var/run/containerd/containerd.sock", "/run/containerd/containerd.sock.ttrpc",
                  "/var/run/containerd/containerd.sock.ttrpc"}
SYS_RO = ["/proc/bus", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"]
WATCHED = ["/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
           "/proc/sched_debug", "/proc/scsi", "/proc/timer_list", "/proc/timer_stats",
           "/sys/devices/virtual/powercap", "/sys/firmware"]
PSEUDO = {(1, 3), (1, 5), (1, 7), (1, 8), (1, 9), (5, 0), (5, 1), (5, 2), (10, 200)}


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def link(path):
    try:
        return os.readlink(path)
    except OSError:
        return ""


def status(path):
    d = {}
    for line in (read(path) or "").splitlines():
        k, _, v = line.partition(":")
        d[k] = v.split()
    return d


def cgroups(pid):
    out = {}
    for line in (read(f"/proc/{pid}/cgroup") or "").splitlines():
        _, ctl, path = line.split(":", 2)
        out[ctl] = path
    return out


def names(bits):
    return sorted(CAPS[b] for b in range(64) if bits >> b & 1 and b < len(CAPS)) + \
        [b for b in range(len(CAPS), 64) if bits >> b & 1]


def under(p, base):
    return base == "/" or p == base or p.startswith(base + "/")


def id_in(path, ids):
    """The deepest container Id a cgroup path names, or None."""
    for comp in reversed(path.split("/")):
        for m in re.finditer(r"(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])", comp):
            if m.group(0) in ids:
                return m.group(0)
    return None


def owner(pid, ids):
    for path in cgroups(pid).values():
        c = id_in(path, ids)
        if c:
            return c
    return None


def id_map(pid, which):
    m = []
    for line in (read(f"/proc/{pid}/{which}") or "").splitlines():
        if line.split():
            m.append([int(x) for x in line.split()])
    return m


def inside(m, v):
    for a, b, n in m:
        if b <= v < b + n:
            return a + v - b
    return 65534


def mounts(pid):
    out = []
    for line in (read(f"/proc/{pid}/mountinfo") or "").splitlines():
        f = line.split()
        sep = f.index("-")
        unesc = lambda s: re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), s)
        out.append({"id": int(f[0]), "root": unesc(f[3]), "point": unesc(f[4]),
                    "rw": "rw" in f[5].split(",") and "ro" not in f[sep + 3].split(","),
                    "fstype": f[sep + 1]})
    return out


def showing(ms, path):
    r = None
    for m in ms:
        if under(path, m["point"]):
            r = m
    return r


def open_in_cgroup(v2, init_cg, paths):
    """Whether the device cgroup of the session's init lets a task open each path (read or
    write): a child of this script joins init's cgroup (v2: its one cgroup; v1: its devices
    cgroup), tries, reports through a pipe and exits, leaving the cgroup as it was."""
    lock = read("/sys/kernel/security/lockdown")
    if lock is not None and "[none]" not in lock:
        sys.exit(f"kernel lockdown {lock.strip()}: an EPERM would not be the device cgroup's")
    procs = f"/sys/fs/cgroup{init_cg['']}/cgroup.procs" if v2 else \
        f"/sys/fs/cgroup/devices{init_cg['devices']}/cgroup.procs"
    r, w = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(r)
        out = []
        try:
            with open(procs, "w") as f:
                f.write(str(os.getpid()))
            for path in paths:
                acc = False
                for mode in (os.O_RDONLY, os.O_WRONLY):
                    try:
                        os.close(os.open(path, mode | os.O_NONBLOCK | os.O_NOCTTY))
                        acc = True
                    except OSError as e:
                        if e.errno == errno.EACCES:
                            raise  # a permission check that is not the device cgroup's
                        acc = e.errno != errno.EPERM
                    if acc:
                        break
                out.append(acc)
            os.write(w, json.dumps(out).encode())
        except Exception as e:  # reported by the parent
            os.write(w, json.dumps(str(e)).encode())
        os._exit(0)
    os.close(w)
    data = b""
    while True:
        b = os.read(r, 65536)
        if not b:
            break
        data += b
    os.close(r)
    os.waitpid(child, 0)
    got = json.loads(data or b"null")
    if not isinstance(got, list):
        sys.exit(f"opening the nodes in {procs}: {got}")
    return got


def probe(name, inspect, ids_file):
    c = json.load(open(inspect))[0]
    sid, init = c["Id"], c["State"]["Pid"]
    ids = {l.strip() for l in open(ids_file) if l.strip()}
    others = ids - {sid}
    facts = {}
    all_pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    st = status(f"/proc/{init}/status")
    own_pidns = len(st.get("NSpid", [])) >= 2 and st["NSpid"][-1] == "1"
    init_cg = cgroups(init)
    v2 = any(m["point"] == "/sys/fs/cgroup" and m["fstype"] == "cgroup2" for m in mounts("self"))
    init_pidns = link(f"/proc/{init}/ns/pid")
    me = os.getpid()

    def is_session(p):
        if p == me:
            return False
        cg = cgroups(p)
        if not cg:
            return False
        if own_pidns:
            ok = link(f"/proc/{p}/ns/pid") == init_pidns
        else:
            ok = any(ctl in init_cg and id_in(init_cg[ctl], {sid}) and under(path, init_cg[ctl])
                     for ctl, path in cg.items())
        return ok and owner(p, ids) in (sid, None) and (owner(p, ids) == sid or own_pidns)

    session = [p for p in all_pids if is_session(p)]
    facts["containment.processes.count"] = len(session)
    facts["containment.processes.rule"] = "pid-namespace" if own_pidns else "cgroup"
    facts["containment.processes.settled"] = True
    caps = [0] * 5
    nnp, seccomp, ntasks = True, None, 0
    every = {"uid": set(), "gid": set(), "group": set()}
    inns = {"uid": set(), "gid": set(), "group": set()}
    userns = {}
    outside = []
    for p in session:
        um, gm = id_map(p, "uid_map"), id_map(p, "gid_map")
        u = link(f"/proc/{p}/ns/user")
        userns.setdefault(u, {"id": u, "uidMap": um, "gidMap": gm, "processes": 0})["processes"] += 1
        for t in os.listdir(f"/proc/{p}/task"):
            s = status(f"/proc/{p}/task/{t}/status")
            if not s:
                continue
            ntasks += 1
            for i, k in enumerate(["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"]):
                caps[i] |= int(s[k][0], 16)
            nnp = nnp and s["NoNewPrivs"] == ["1"]
            sc = int(s["Seccomp"][0])
            seccomp = sc if seccomp is None or [0, 2, 1][sc] < [0, 2, 1][seccomp] else seccomp
            for v in s["Uid"]:
                every["uid"].add(int(v)); inns["uid"].add(inside(um, int(v)))
            for v in s["Gid"]:
                every["gid"].add(int(v)); inns["gid"].add(inside(gm, int(v)))
            for v in s.get("Groups", []):
                every["group"].add(int(v)); inns["group"].add(inside(gm, int(v)))
        cg = cgroups(p)
        for ctl in ["devices", "memory", "pids"]:
            k = "" if v2 else ctl  # v2: one hierarchy, every controller's cgroup the same
            if k in init_cg and not under(cg.get(k, ""), init_cg[k]):
                outside.append({"controller": ctl, "path": cg.get(k), "pid": p})
    for i, k in enumerate(["inheritable", "permitted", "effective", "bounding", "ambient"]):
        facts[f"containment.capabilities.{k}"] = names(caps[i])
    facts["containment.noNewPrivileges"] = nnp
    facts["containment.seccomp.mode"] = "disabled" if seccomp == 0 else "filter"
    facts["containment.processes.tasks"] = ntasks
    facts["containment.processes.outsideCgroups"] = sorted(outside, key=lambda o: (o["pid"], o["controller"]))
    facts["containment.processes.userNamespaces"] = sorted(userns.values(), key=lambda u: u["id"])
    for k in ["uid", "gid", "group"]:
        K = k.capitalize()
        facts[f"containment.user.every{K}"] = sorted(every[k])
        facts[f"containment.user.inNamespace.every{K}"] = sorted(inns[k])

    # namespaces: who outside the session is in them or holds them
    mine = {k: {link(f"/proc/{p}/ns/{k}") for p in session} for k in KINDS}
    shared = {k: {"host": False, "containers": set(), "heldOpen": []} for k in KINDS}
    key = c["NetworkSettings"].get("SandboxKey") or ""
    dockerd = int(open("/var/run/docker.pid").read().strip())
    keys = {key, os.path.realpath(key)} if key else set()
    seen_mnt = set()
    for p in all_pids:
        if p in session or p == me or not os.path.isdir(f"/proc/{p}"):
            continue
        st = status(f"/proc/{p}/status")
        o = owner(p, ids)
        if o == sid and (own_pidns and link(f"/proc/{p}/ns/pid") == init_pidns):
            continue  # one of the session's, started since
        cid = o if o in others else None
        for k in KINDS:
            if link(f"/proc/{p}/ns/{k}") in mine[k]:
                if cid:
                    shared[k]["containers"].add(cid)
                else:
                    shared[k]["host"] = True
        try:
            fds = os.listdir(f"/proc/{p}/fd")
        except OSError:
            fds = []
        for fd in fds:
            l = link(f"/proc/{p}/fd/{fd}")
            m = re.fullmatch(r"([a-z_]+):\[\d+\]", l)
            if m and m.group(1) in KINDS and l in mine[m.group(1)]:
                shared[m.group(1)]["heldOpen"].append(
                    {"by": "fd", "container": cid, "pid": p, "place": f"fd {fd}"})
        mnt = link(f"/proc/{p}/ns/mnt")
        try:  # a container's process not yet in its own root: the runtime's copy of the host's
            a, b = os.stat(f"/proc/{p}/root"), os.stat(f"/proc/{dockerd}/root")
            pre = cid and (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)
        except OSError:
            pre = False
        if mnt and mnt not in seen_mnt and not pre:
            seen_mnt.add(mnt)
            for m in mounts(p):
                t = re.fullmatch(r"([a-z_]+):\[\d+\]", m["root"])
                if m["fstype"] != "nsfs" or not t or t.group(1) not in KINDS or \
                        m["root"] not in mine[t.group(1)]:
                    continue
                if t.group(1) == "net" and not cid and m["point"] in keys:
                    continue
                shared[t.group(1)]["heldOpen"].append(
                    {"by": "mount", "container": cid, "pid": p, "place": m["point"]})
    modes = {"pid": "PidMode", "ipc": "IpcMode", "uts": "UTSMode", "net": "NetworkMode",
             "user": "UsernsMode", "cgroup": "CgroupnsMode"}
    for k, field in modes.items():
        mode = c["HostConfig"].get(field) or ""
        if mode.startswith("container:"):
            ref = mode[10:]
            hit = [i for i in others if i.startswith(ref)] if len(ref) >= 12 else []
            shared[k]["containers"].add(hit[0] if hit else ref)
    for k in KINDS:
        s = shared[k]
        if s["host"]:
            s["containers"], s["heldOpen"] = set(), []
        facts[f"containment.namespaces.{k}.shared"] = {
            "host": s["host"], "containers": sorted(s["containers"]),
            "heldOpen": sorted(s["heldOpen"], key=lambda h: (h["pid"], h["by"], h["place"]))}

    # system paths, from every mount namespace of the session
    ro = {p: None for p in SYS_RO}
    masks = {}
    masked_cfg = set(c["HostConfig"].get("MaskedPaths") or []) | set(WATCHED)
    for mnt_pid in {link(f"/proc/{p}/ns/mnt"): p for p in session}.values():
        ms = mounts(mnt_pid)
        root = f"/proc/{mnt_pid}/root"
        for path in SYS_RO:
            v = showing(ms, path)
            r = bool(v) and not v["rw"] and not any(
                m["point"] != path and under(m["point"], path) and m["rw"] and showing(ms, m["point"]) is m
                for m in ms)
            if not r and not os.path.lexists(root + path):
                r = True
            ro[path] = r if ro[path] is None else ro[path] and r
        for path in masked_cfg:
            v = showing(ms, path)
            if v and v["point"] == path and ((v["fstype"] == "tmpfs" and not v["rw"]) or
                                            (v["root"].endswith("/null") and
                                             stat.S_ISCHR(os.lstat(root + path).st_mode))):
                state = "masked"
            elif v and v["point"] == path:
                state = "exposed"
            else:
                state = "exposed" if os.path.lexists(root + path) else "absent"
            order = ["masked", "absent", "exposed"]
            if order.index(state) > order.index(masks.get(path, "masked")):
                masks[path] = state
            masks.setdefault(path, state)
    facts["containment.systemPaths.readOnly"] = ro
    facts["containment.systemPaths.masks"] = masks
    facts["containment.systemPaths.servedBy"] = "kernel"

    # descriptors reaching outside: engine sockets (held, or connected: ss's peers), files on a
    # mount the process's namespace lacks, namespaces none of the session's processes is in
    listeners, peers = {}, {}
    for line in (read("/proc/net/unix") or "").splitlines()[1:]:
        f = line.split()
        if len(f) >= 8 and f[7] in ENGINE_SOCKETS:
            listeners[int(f[6])] = f[7]
    # the server's end of a connection is in the network namespace of the client that made it:
    # this host's, and each of the session's
    nets = {link(f"/proc/{p}/ns/net"): p for p in session}
    for cmd in [["ss", "-xa"]] + [["nsenter", "-t", str(p), "-n", "ss", "-xa"] for p in nets.values()]:
        ss = subprocess.run(cmd, capture_output=True, text=True).stdout
        for line in ss.splitlines()[1:]:
            f = line.split()
            if len(f) >= 8 and f[4] in ENGINE_SOCKETS and f[7].isdigit():
                peers[int(f[7])] = f[4]
    desc = []
    for p in session:
        own_mounts = {m["id"] for m in mounts(p)}
        for fd in sorted(os.listdir(f"/proc/{p}/fd"), key=int):
            l = link(f"/proc/{p}/fd/{fd}")
            m = re.fullmatch(r"socket:\[(\d+)\]", l)
            n = re.fullmatch(r"([a-z_]+):\[\d+\]", l)
            if m:
                ino = int(m.group(1))
                if ino in listeners or ino in peers:
                    desc.append({"pid": p, "fd": int(fd), "kind": "engine-socket",
                                 "target": listeners.get(ino) or peers[ino]})
            elif n and n.group(1) in KINDS:
                if l not in mine[n.group(1)]:
                    desc.append({"pid": p, "fd": int(fd), "kind": "namespace", "target": l})
            elif l.startswith("/"):
                mnt = int(re.search(r"mnt_id:\s*(\d+)", read(f"/proc/{p}/fdinfo/{fd}")).group(1))
                if mnt in own_mounts:
                    continue
                s = os.stat(f"/proc/{p}/fd/{fd}")
                dev = (os.major(s.st_rdev), os.minor(s.st_rdev))
                if stat.S_ISCHR(s.st_mode) and (dev in PSEUDO or dev[0] == 136):
                    continue
                kind = "host-directory" if stat.S_ISDIR(s.st_mode) else "host-device" if \
                    stat.S_ISCHR(s.st_mode) or stat.S_ISBLK(s.st_mode) else "host-file"
                desc.append({"pid": p, "fd": int(fd), "kind": kind, "target": l})
    facts["containment.descriptors"] = desc

    # device nodes of /dev: which the session's device cgroup lets it open. On cgroup v2 the
    # device cgroup is eBPF programs (runc's, crun's, systemd's, each cgroup's up to the root)
    # that only a program interpreter would read, so the truth is the kernel's own answer: a
    # child of this script joins the session's init's cgroup (the same programs, or v1 rules,
    # apply to every task in it) and opens each node through /proc/INIT/root, read-only, then
    # write-only. The device cgroup judges an open before the driver does (inode_permission),
    # and answers EPERM; the child is host root with every capability, unconfined, on a kernel
    # without lockdown (checked), so nothing else answers EPERM for these nodes (the mem
    # driver's CAP_SYS_RAWIO is held): an open that succeeds or fails otherwise (ENXIO from
    # /dev/tty without a terminal) got past the device cgroup. On v1 the same answer is held
    # to the session's devices.list as well, and the probe fails where they differ.
    nodes = []
    base = f"/proc/{init}/root/dev"
    for d in [base] + [os.path.join(base, e) for e in sorted(os.listdir(base))
                       if stat.S_ISDIR(os.lstat(os.path.join(base, e)).st_mode)]:
        for e in os.listdir(d):
            s = os.lstat(os.path.join(d, e))
            if not (stat.S_ISCHR(s.st_mode) or stat.S_ISBLK(s.st_mode)):
                continue
            nodes.append({"path": "/dev" + os.path.join(d, e)[len(base):],
                          "type": "c" if stat.S_ISCHR(s.st_mode) else "b",
                          "major": os.major(s.st_rdev), "minor": os.minor(s.st_rdev)})
    opened = open_in_cgroup(v2, init_cg, [base + n["path"][4:] for n in nodes])
    if not v2:
        rules = []
        dl = read(f"/sys/fs/cgroup/devices{init_cg.get('devices', '')}/devices.list") or ""
        for line in dl.split("\n"):
            m = re.fullmatch(r"([abc]) (\*|\d+):(\*|\d+) ([rwm]+)", line.strip())
            if m:
                rules.append(m.groups())
        for n, acc in zip(nodes, opened):
            by_rules = any((rt in ("a", n["type"])) and rmaj in ("*", str(n["major"])) and
                           rmin in ("*", str(n["minor"])) and ("r" in a or "w" in a)
                           for rt, rmaj, rmin, a in rules)
            if by_rules != acc:
                sys.exit(f"{n['path']}: devices.list says {by_rules}, an open in the cgroup {acc}")
    # a process of the session outside its devices cgroup (v2: outside its cgroup) leaves the
    # nodes' access unknown, and boxcert records null (docs/collector.md, "Whose processes")
    escaped = any(o["controller"] == "devices" for o in outside)
    for n, acc in zip(nodes, opened):
        n["accessible"] = None if escaped else acc
    facts["containment.devices.nodes"] = sorted(nodes, key=lambda n: n["path"])

    for k, v in facts.items():
        print(f"{name} {k} = {json.dumps(v, sort_keys=True)}")


def main():
    # NAME INSPECT_JSON IDS_FILE, once or more: the sessions one after another, in one python
    # (a python start costs a second in the test host); one that fails says so and the rest go on
    args, failed = sys.argv[1:], 0
    if not args or len(args) % 3:
        sys.exit("usage: zoo_probe.py NAME INSPECT_JSON IDS_FILE [NAME INSPECT_JSON IDS_FILE...]")
    for i in range(0, len(args), 3):
        try:
            probe(*args[i:i + 3])
        except SystemExit as e:
            print(f"probe {args[i]}: {e}", file=sys.stderr)
            failed = 1
        sys.stdout.flush()
    sys.exit(failed)


main()
