# SPDX-License-Identifier: Apache-2.0
"""The mounts zoo's checks of certificates and reports, a table at a time (one python start
for all of them). Each line of TABLE, fields separated by tabs:

    reached CERT NAME PATH            the certificate's hostObjects says PATH reachable: true
    judged REPORT NAME RULE STATUS    NAME's result in the verify report has RULE at STATUS
    verdict REPORT NAME VERDICT       NAME's verdict in the report is VERDICT

Prints PASS/FAIL lines (as zoo_expect.py): PASS<TAB>label or FAIL<TAB>label<TAB>what was found.
"""
import base64
import json
import os
import sys


def predicate(path):
    return json.loads(base64.b64decode(json.load(open(path))["payload"]))["predicate"]


def result(report, name, cache={}):
    if report not in cache:
        cache[report] = json.load(open(report))["results"]
    rows = [x for x in cache[report] if x["file"].endswith("/" + name + ".intoto.json")]
    if len(rows) != 1:
        raise LookupError(f"{len(rows)} results for {name} in {report}")
    return rows[0]


def check(f):
    kind = f[0]
    if kind == "reached":
        cert, name, path = f[1:]
        objs = [x for x in predicate(cert)["containment"]["hostObjects"]["objects"]
                if x["path"] == path]
        return (f"{name}: {path} reachable", bool(objs) and objs[0]["reachable"] is True, objs)
    if kind == "judged":
        report, name, rule, status = f[1:]
        r = result(report, name)
        tag = os.path.basename(report)[:-len(".json")]
        ok = any(x["rule"] == rule and x["status"] == status for x in r["findings"])
        return (f"{name}: {rule} is {status} ({tag})", ok,
                [(x["rule"], x["status"]) for x in r["findings"] if x["status"] != "pass"])
    if kind == "verdict":
        report, name, verdict = f[1:]
        r = result(report, name)
        tag = os.path.basename(report)[:-len(".json")]
        return (f"{name}: {verdict} ({tag})", r["verdict"] == verdict,
                (r["verdict"], [(x["rule"], x["status"], x.get("message"))
                                for x in r["findings"] if x["status"] != "pass"]))
    raise ValueError(f"unknown check {kind!r}")


def main():
    n = 0
    for line in open(sys.argv[1]):
        f = line.rstrip("\n").split("\t")
        if not f[0]:
            continue
        n += 1
        try:
            label, ok, got = check(f)
        except Exception as e:  # a missing file or member is a failed check, never a pass
            label, ok, got = " ".join(f[1:]) if len(f) > 1 else line.strip(), False, repr(e)
        if ok:
            print(f"PASS\t{label}")
        else:
            print(f"FAIL\t{label}\t{json.dumps(got, default=str)[:400]}")
    if n == 0:
        print(f"FAIL\tthe table {sys.argv[1]} holds checks\tnone")


main()
