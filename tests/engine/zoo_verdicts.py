# SPDX-License-Identifier: Apache-2.0
"""The zoo's verdicts: each session's certificate verified under `strict` and under
`cis-docker`, compared with the table the test writes.

usage: zoo_verdicts.py STRICT_REPORT CIS_REPORT TABLE
TABLE lines: NAME STRICT(pass|fail) CIS-FAILED (comma-separated CIS ids, or -)
Prints one line per session: PASS|FAIL <tab> label <tab> what was seen.
"""
import json
import os
import sys


def verdicts(path):
    out = {}
    for r in json.load(open(path))["results"]:
        name = os.path.basename(r["file"]).split(".")[0]
        failed = sorted({f["cis"] for f in r["findings"] if f.get("cis") and f["status"] in ("fail", "unknown")},
                        key=lambda s: [int(x) for x in s.split(".")])
        out[name] = (r["verdict"], failed)
    return out


strict, cis = verdicts(sys.argv[1]), verdicts(sys.argv[2])
for line in open(sys.argv[3]):
    line = line.split("#", 1)[0].strip()
    if not line:
        continue
    name, want_strict, want_cis = line.split()
    want_cis = [] if want_cis == "-" else want_cis.split(",")
    got_strict = strict.get(name, ("absent", []))[0]
    got_cis = cis.get(name, ("absent", []))[1]
    ok = got_strict == want_strict
    print(f"{'PASS' if ok else 'FAIL'}\t{name}: strict {want_strict}\t{got_strict}")
    ok = got_cis == want_cis
    print(f"{'PASS' if ok else 'FAIL'}\t{name}: CIS failed {','.join(want_cis) or '-'}\t{','.join(got_cis) or '-'}")
