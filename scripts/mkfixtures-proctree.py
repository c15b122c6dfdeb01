#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Write fixtures/proctree/<case>/: a recorded /proc of a host with one session and its
neighbours, written from the small descriptions below (the formats of the kernel's files, as a
cgroup v1 host with Docker shows them), for tests/unit/attest/test_proctree.c to read with the
collector's kernel view (attest/kernel.c) through paths.proc. Namespace links and descriptors
are symbolic links, as in /proc; nothing here is read from this machine.

  scripts/mkfixtures-proctree.py        rewrite every case (expected.json is written by hand)

Each case folder: proc/<pid>/{stat,status,task/<tid>/status,cgroup,fdinfo/*,mountinfo,net/dev,
uid_map,gid_map,root/...}, proc/self/mountinfo (this host's cgroup mounts),
sys/fs/cgroup/<controller>/docker/<id>/ (the session's limit files), docker.pid, containers.json
(the engine's other containers), session.json (the session as the engine names it), CASE, and
links: "<path>\t<target>" for every link of /proc (ns/*, fd/*), which the test makes in its copy.
"""
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "fixtures", "proctree")

S = "5e55" + "0" * 60            # the session
W = "0b7e" + "1" * 60            # another container: joined the session's pid namespace
C = "c4d0" + "2" * 60            # another container: --cgroup-parent under the session
HOST_NS = {"pid": 4026531836, "ipc": 4026531839, "uts": 4026531838, "net": 4026531840,
           "user": 4026531837, "cgroup": 4026531835, "mnt": 4026531841, "time": 4026531834}
S_NS = dict(HOST_NS, pid=4026532182, ipc=4026532181, uts=4026532180, net=4026532183,
            mnt=4026532179)
CTLS = ["cpu", "cpuacct", "cpuset", "memory", "devices", "freezer", "blkio", "pids",
        "name=systemd"]
ALL_CAPS = "000001ffffffffff"  # every capability this collector names (0..40)


def status(name, uid=(0, 0, 0, 0), gid=(0, 0, 0, 0), groups=(0,), caps=("0" * 16,) * 5,
           nnp=0, seccomp=2, nspid=None, tracer=0):
    inh, prm, eff, bnd, amb = caps
    lines = [f"Name:\t{name}", "Umask:\t0022", "State:\tS (sleeping)", f"TracerPid:\t{tracer}",
             "Uid:\t" + "\t".join(map(str, uid)), "Gid:\t" + "\t".join(map(str, gid)),
             "Groups:\t" + " ".join(map(str, groups)) + " "]
    if nspid:
        lines.append("NSpid:\t" + "\t".join(map(str, nspid)))
    lines += [f"CapInh:\t{inh}", f"CapPrm:\t{prm}", f"CapEff:\t{eff}", f"CapBnd:\t{bnd}",
              f"CapAmb:\t{amb}", f"NoNewPrivs:\t{nnp}", f"Seccomp:\t{seccomp}", "Threads:\t1"]
    return "\n".join(lines) + "\n"


def stat(pid, name, ppid, start):
    return f"{pid} ({name}) S {ppid} " + " ".join(["0"] * 17) + f" {start} " + \
        " ".join(["0"] * 30) + "\n"


def cgroup(paths):
    """paths: controller -> path (default: the same for all)."""
    lines = []
    for i, c in reversed(list(enumerate(CTLS, 1))):
        lines.append(f"{i}:{c}:{paths.get(c, paths['*'])}")
    lines.append(f"0::{paths.get('', paths['*'])}")
    return "\n".join(lines) + "\n"


def mountinfo_session(ro_sys=True, ro_irq=False, masks=True):
    m = [
        "78 52 0:40 / / ro,relatime master:3 - overlay overlay rw,lowerdir=/l",
        "79 78 0:43 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw",
        "80 78 0:44 / /dev rw,nosuid - tmpfs tmpfs rw,size=65536k,mode=755",
        "81 80 0:45 / /dev/pts rw,nosuid,noexec,relatime - devpts devpts rw,gid=5,mode=620",
        "82 78 0:46 / /sys ro,nosuid,nodev,noexec,relatime - sysfs sysfs ro",
        "94 80 0:48 / /dev/shm rw,nosuid,nodev,noexec,relatime - tmpfs shm rw,size=65536k",
        "96 78 254:0 /var/lib/docker/containers/x/hostname /etc/hostname ro,relatime - ext4 "
        "/dev/vda rw",
        "98 78 0:49 / /tmp rw,nosuid,nodev - tmpfs tmpfs rw,size=65536k",
        "53 79 0:43 /bus /proc/bus ro,nosuid,nodev,noexec,relatime - proc proc rw",
    ]
    if ro_sys:
        m.append("56 79 0:43 /sys /proc/sys ro,nosuid,nodev,noexec,relatime - proc proc rw")
        # a writable mount below a read-only one is not read-only
        m.append("57 56 0:43 /sys/kernel /proc/sys/kernel rw,nosuid - proc proc rw")
    if ro_irq:
        m.append("55 79 0:43 /irq /proc/irq ro,nosuid,nodev,noexec,relatime - proc proc rw")
    if masks:
        m.append("58 79 0:44 /null /proc/kcore rw,nosuid - tmpfs tmpfs rw,size=65536k,mode=755")
        m.append("60 82 0:50 / /sys/firmware ro,relatime - tmpfs tmpfs ro")
    return "\n".join(m) + "\n"


HOST_MOUNTS = "\n".join(
    ["23 1 254:0 / / rw,relatime - ext4 /dev/vda rw",
     "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755"] +
    [f"{32 + i} 31 0:{29 + i} / /sys/fs/cgroup/{c.replace('name=', '')} rw,relatime - cgroup "
     f"cgroup rw,{c}" for i, c in enumerate(CTLS)] +
    ["98 23 0:4 net:[%d] /run/docker/netns/40db24983240 rw - nsfs nsfs rw" % S_NS["net"],
     "99 23 0:4 net:[%d] /run/netns/leak rw - nsfs nsfs rw" % S_NS["net"]]) + "\n"

NET_DEV = ("Inter-|   Receive                            |  Transmit\n"
           " face |bytes    packets errs drop fifo frame compressed multicast|bytes\n"
           "    lo:       0       0    0    0    0     0          0         0        0\n")


class Tree:
    def __init__(self, name):
        self.root = os.path.join(OUT, name)
        keep = None
        if os.path.exists(os.path.join(self.root, "expected.json")):
            keep = open(os.path.join(self.root, "expected.json")).read()
        shutil.rmtree(self.root, ignore_errors=True)
        os.makedirs(self.root)
        self.links = []
        if keep is not None:
            self.write("expected.json", keep)

    def write(self, rel, text):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def link(self, rel, target):
        # kept as a list, made into links by the test in its copy of the tree: links that
        # point nowhere (or at / and /dev/null) are not files a checkout or a copy keeps well
        os.makedirs(os.path.dirname(os.path.join(self.root, rel)), exist_ok=True)
        self.links.append(f"{rel}\t{target}")

    def finish(self):
        self.write("links", "\n".join(sorted(self.links)) + "\n")

    def proc(self, pid, name, ppid=1, start=100, ns=HOST_NS, cg=None, tasks=None, mounts=None,
             uid_map="         0          0 4294967295\n", fds=None, root=None):
        p = f"proc/{pid}/"
        tasks = tasks or {pid: status(name)}
        self.write(p + "stat", stat(pid, name, ppid, start))
        self.write(p + "status", tasks[pid])
        for tid, st in tasks.items():
            self.write(p + f"task/{tid}/status", st)
        self.write(p + "comm", name + "\n")
        self.write(p + "cgroup", cgroup(cg or {"*": "/"}))
        for kind, ino in ns.items():
            self.link(p + f"ns/{kind}", f"{kind}:[{ino}]")
        self.write(p + "mountinfo", mounts or HOST_MOUNTS)
        self.write(p + "net/dev", NET_DEV)
        self.write(p + "uid_map", uid_map)
        self.write(p + "gid_map", uid_map)
        os.makedirs(os.path.join(self.root, p + "fd"), exist_ok=True)
        for fd, (target, mnt) in (fds or {}).items():
            self.link(p + f"fd/{fd}", target)
            self.write(p + f"fdinfo/{fd}", f"pos:\t0\nflags:\t02\nmnt_id:\t{mnt}\nino:\t5\n")
        os.makedirs(os.path.join(self.root, p + "root"), exist_ok=True)
        for rel in root or []:
            self.write(p + "root/" + rel, "")

    def cgroup_files(self, cid, pids_max="64\n", memory="268435456\n", devices=None):
        base = f"sys/fs/cgroup/%s/docker/{cid}/"
        self.write(base % "pids" + "pids.max", pids_max)
        self.write(base % "memory" + "memory.limit_in_bytes", memory)
        self.write(base % "cpu" + "cpu.shares", "1024\n")
        self.write(base % "devices" + "devices.list",
                   devices or "c 1:3 rwm\nc 1:5 rwm\nc 5:2 rwm\nc 136:* rwm\nc *:* m\nb *:* m\n")

    def common(self, others, session, case_text):
        self.write("proc/self/mountinfo", HOST_MOUNTS)
        self.write("docker.pid", "1\n")
        self.proc(1, "dockerd", ppid=0, start=10,
                  fds={3: ("socket:[555]", 7)})
        self.write("proc/1/net/unix",
                   "Num       RefCount Protocol Flags    Type St Inode Path\n"
                   "0000000000000000: 00000002 00000000 00010000 0001 01 555 /var/run/docker.sock\n"
                   "0000000000000000: 00000002 00000000 00010000 0001 01 556 /run/containerd/"
                   "containerd.sock\n")
        self.write("containers.json", json.dumps(others, indent=1) + "\n")
        self.write("session.json", json.dumps(session, indent=1) + "\n")
        self.write("CASE", case_text + "\n")


def pidns_case(name="pidns-neighbours", joined=False):
    t = Tree(name)
    sess = {"*": f"/docker/{S}"}
    if joined:
        t.common([{"Id": S, "Names": ["/s"]}, {"Id": C, "Names": ["/c"]}],
                 {"id": W, "pid": 200, "begin": 100000},
                 "the host of pidns-neighbours, seen from the container that joined the other's "
                 "pid namespace (--pid container:S): its processes are its cgroup's, and it shares "
                 "its pid namespace with that container")
    else:
        t.common([{"Id": W, "Names": ["/w"]}, {"Id": C, "Names": ["/c"]}],
             {"id": S, "pid": 100, "begin": 100000,
              "sandboxKey": "/run/docker/netns/40db24983240"},
             "a session in a pid namespace of its own, with a second thread keeping every "
             "capability, an exec'd root process in a user namespace of its own, a process moved "
             "out of its pids cgroup, another container's process in its pid namespace, one below "
             "it in the cgroup tree, a host process in its ipc namespace, its network namespace "
             "held open by a descriptor and a bind mount, and descriptors reaching a host folder, "
             "the engine's socket and the host's network namespace")
    t.cgroup_files(W if joined else S)
    root_files = ["proc/keys", "proc/irq/x", "proc/sys/kernel/core_pattern", "etc/hostname",
                  "dev/null"]
    # the init: a first thread that dropped everything, a second one that did not
    t.proc(100, "sleep", ppid=90, start=500, ns=S_NS, cg=sess, mounts=mountinfo_session(),
           tasks={100: status("sleep", (65532,) * 4, (65532,) * 4, (65532,), nnp=1,
                              nspid=(100, 1)),
                  101: status("sleep", (65532,) * 4, (65532, 65532, 0, 65532), (65532, 0),
                              caps=("0" * 16, ALL_CAPS, ALL_CAPS, ALL_CAPS, "0" * 16),
                              nnp=0, seccomp=0, nspid=(101, 2))},
           fds={0: ("/dev/null", 9999), 3: ("/", 9999), 4: ("socket:[555]", 9999),
                5: ("net:[%d]" % HOST_NS["net"], 9999), 6: ("pipe:[12]", 12),
                8: ("/etc/hostname", 96), 9: ("net:[%d]" % S_NS["net"], 9999)},
           root=root_files)
    # an exec'd process as root in a user namespace of its own (uid 0 inside is 100000 here)
    t.proc(150, "sh", ppid=140, start=600, ns=dict(S_NS, user=4026532999), cg=sess,
           mounts=mountinfo_session(),
           tasks={150: status("sh", (100000,) * 4, (100000,) * 4, (100000,),
                              caps=("0" * 16, ALL_CAPS, ALL_CAPS, ALL_CAPS, "0" * 16),
                              nspid=(150, 7))},
           uid_map="         0     100000      65536\n")
    # moved out of the session's pids cgroup by host root: still the session's, limit unknown
    t.proc(400, "sleep", ppid=100, start=700, ns=S_NS,
           cg={"*": f"/docker/{S}", "pids": "/boxcert-test"}, mounts=mountinfo_session(),
           tasks={400: status("sleep", (65532,) * 4, (65532,) * 4, (65532,), nnp=1,
                              nspid=(400, 9))})
    # another container that joined the session's pid namespace (--pid container:S)
    t.proc(200, "sleep", ppid=190, start=800, ns=dict(S_NS, mnt=4026532300, net=4026532301,
                                                         ipc=4026532302, uts=4026532303),
           cg={"*": f"/docker/{W}"}, mounts=mountinfo_session(),
           tasks={200: status("sleep", nspid=(200, 20))})
    # another container in a cgroup below the session's, in a pid namespace of its own
    t.proc(300, "sleep", ppid=290, start=800, ns=dict(S_NS, pid=4026532400, mnt=4026532401,
                                                         net=4026532402, ipc=4026532403,
                                                         uts=4026532404),
           cg={"*": f"/docker/{S}/{C}"}, mounts=mountinfo_session(),
           tasks={300: status("sleep", nspid=(300, 1))})
    # a host process in the session's ipc namespace, holding its network namespace open
    t.proc(500, "helper", ppid=1, start=50, ns=dict(HOST_NS, ipc=S_NS["ipc"]),
           fds={7: ("net:[%d]" % S_NS["net"], 4)})
    # started after the collection began: not the session's, whatever it is
    t.proc(600, "late", ppid=100, start=200000, ns=S_NS, cg=sess,
           tasks={600: status("late", nspid=(600, 30))})
    t.finish()


def cgroup_case():
    t = Tree("host-pid-cgroup")
    sess = {"*": f"/docker/{S}"}
    t.common([{"Id": W, "Names": ["/w"]}], {"id": S, "pid": 100, "begin": 100000,
                                            "sandboxKey": "/run/docker/netns/40db24983240"},
             "a session in the host's pid namespace (--pid host): its processes are those of "
             "its cgroup, not those of another container's cgroup below it, nor the host's")
    t.cgroup_files(S, pids_max="max\n")
    t.proc(100, "sleep", ppid=90, start=500, ns=dict(S_NS, pid=HOST_NS["pid"]), cg=sess,
           mounts=mountinfo_session(ro_sys=False, masks=False),
           tasks={100: status("sleep", nspid=(100,))},
           root=["proc/keys", "proc/kcore", "proc/sys/kernel/core_pattern"])
    t.proc(110, "sh", ppid=100, start=510, ns=dict(S_NS, pid=HOST_NS["pid"]),
           cg={"*": f"/docker/{S}/sub"}, mounts=mountinfo_session(ro_sys=False, masks=False),
           tasks={110: status("sh", (1000,) * 4, (1000,) * 4, (1000,), nspid=(110,))})
    t.proc(120, "sleep", ppid=1, start=520, ns=dict(S_NS, pid=HOST_NS["pid"], mnt=4026532500,
                                                       net=4026532501, ipc=4026532502,
                                                       uts=4026532503),
           cg={"*": f"/docker/{S}/{W}"}, mounts=mountinfo_session(),
           tasks={120: status("sleep", nspid=(120,))})
    t.proc(130, "bash", ppid=1, start=50, tasks={130: status("bash", nspid=(130,))})
    t.finish()


def main():
    if len(sys.argv) != 1:
        sys.exit(__doc__)
    pidns_case()
    pidns_case("pid-joined", joined=True)
    cgroup_case()
    print("fixtures/proctree rewritten (expected.json of each case is kept)")


main()
