#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Run one command and report it as one JSON line: wall seconds (time.perf_counter around
the child), peak RSS in KiB, user and system seconds -- the last three from
resource.getrusage(RUSAGE_CHILDREN), exact here because this process has that one child.

usage: runone.py STDIN|- STDOUT|- CMD [ARG...]    (- : /dev/null)
"""
import json
import resource
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: runone.py STDIN|- STDOUT|- CMD [ARG...]")
    fin = subprocess.DEVNULL if sys.argv[1] == "-" else open(sys.argv[1], "rb")
    fout = subprocess.DEVNULL if sys.argv[2] == "-" else open(sys.argv[2], "wb")
    t0 = time.perf_counter()
    p = subprocess.run(sys.argv[3:], stdin=fin, stdout=fout, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({"wall": wall, "maxrss_kib": ru.ru_maxrss, "user": ru.ru_utime,
                      "sys": ru.ru_stime, "rc": p.returncode,
                      "stderr": p.stderr.decode("utf-8", "replace")[-2000:]}))


if __name__ == "__main__":
    main()
