# SPDX-License-Identifier: Apache-2.0
"""The device programs (BPF_CGROUP_DEVICE) attached to one cgroup v2 folder, and taking some of
them off it: host root's tool in tests/engine/zoo_processes.sh (none of boxcert's code).

usage: /usr/bin/python3 zoo_devprog.py CGROUP_DIR list          one "ID NAME" line a program
       /usr/bin/python3 zoo_devprog.py CGROUP_DIR detach ID...  BPF_PROG_DETACH each
"""
import ctypes
import os
import sys

SYS_BPF = {"x86_64": 321, "aarch64": 280}[os.uname().machine]
PROG_GET_FD_BY_ID, OBJ_GET_INFO_BY_FD, PROG_QUERY, PROG_DETACH = 13, 15, 16, 9
CGROUP_DEVICE = 6  # enum bpf_attach_type
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def bpf(cmd, attr):
    buf = ctypes.create_string_buffer(bytes(attr).ljust(128, b"\0"), 128)
    r = libc.syscall(SYS_BPF, cmd, buf, 128)
    if r < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return r, buf.raw


def u32(*v):
    return b"".join(x.to_bytes(4, "little") for x in v)


def query(cg):
    ids = (ctypes.c_uint32 * 64)()
    # target_fd, attach_type, query_flags, attach_flags, prog_ids (u64), prog_cnt
    _, raw = bpf(PROG_QUERY, u32(cg, CGROUP_DEVICE, 0, 0) +
                 ctypes.addressof(ids).to_bytes(8, "little") + u32(64))
    n = int.from_bytes(raw[24:28], "little")
    return list(ids[:n])


def name(pid_):
    fd, _ = bpf(PROG_GET_FD_BY_ID, u32(pid_, 0, 0))
    info = ctypes.create_string_buffer(256)
    try:
        bpf(OBJ_GET_INFO_BY_FD, u32(fd, 256) + ctypes.addressof(info).to_bytes(8, "little"))
    finally:
        os.close(fd)
    return info.raw[64:80].split(b"\0")[0].decode() or "-"


def main():
    cg = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
    if sys.argv[2] == "list":
        for i in query(cg):
            print(i, name(i))
    elif sys.argv[2] == "detach":
        for i in sys.argv[3:]:
            fd, _ = bpf(PROG_GET_FD_BY_ID, u32(int(i), 0, 0))
            bpf(PROG_DETACH, u32(cg, fd, CGROUP_DEVICE, 0))
            os.close(fd)
    else:
        sys.exit(__doc__)


main()
