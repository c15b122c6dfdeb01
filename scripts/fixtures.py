#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Fixtures written by difference (docs/architecture.md, "Fixtures by difference").

  fixtures.py normalize CERT OUT   the statement of a certificate from a real collection, its
                                   identities, times and hashes set to the fixed values every
                                   case relies on, as fixtures/base/statement.json
  fixtures.py diff BASE CASE       the RFC 7396 merge patch that turns BASE into CASE (null
                                   there means null: the fixture tools put nulls back)

The cases themselves (fixtures/policy-eval/<case>/patch.json, fuzz/seeds/<target>/*.json) are
merge patches over the base; bx-fixture-expand (tools/fixture_expand.c) writes the full
documents at build time.
"""
import base64
import hashlib
import json
import sys

FIXED = {
    ("issuedAt",): "2026-05-28T20:00:05Z",
    ("expiresAt",): "2026-05-29T20:00:05Z",
    ("nonce",): "5d1c0e3a9b7f4e2d8c6a1b0f3e5d7c9a",
    ("session", "containerId"): "c34ab363b7aba303cd2db5c6ed3a1d6f19eb501255c3523ed3fe359d06512e2c",
    ("session", "name"): "build-1234",
    ("session", "pid"): 5895,
    ("session", "startedAt"): "2026-05-28T20:00:00Z",
    ("session", "labels"): {"ci.job": "1234"},
    ("host", "bootId"): "2f9c6d1e-4b3a-4c7d-9e8f-1a2b3c4d5e6f",
    ("host", "hostname"): "ci-runner-7",
    ("engine", "id"): "Z4FO:YZOE:HXBL:NB26:NFFX:WLEF:37JM:QI3Y:EYTQ:TZLY:6ZCM:2SWQ",
    ("engine", "endpoint"): "unix:///var/run/docker.sock",
    ("image", "id"): "sha256:a718e8935c8e400ef5418beccf861e21824480777b4f805eb2da65c283b74e7c",
    ("image", "pin"): "sha256:a718e8935c8e400ef5418beccf861e21824480777b4f805eb2da65c283b74e7c",
    ("image", "ref"): "boxcert-session:1",
    ("evidence", "engineInspectSha256"): "6402601c7d135a43f5038d86b21ce418fafb5c4e9c1d7ad4cb3b883ca7d4944f",
    ("evidence", "kernelSha256"): "05352eaf4bc8b02e641bc9ff04684379933c40474de0669578f787a48842b335",
    ("evidence", "ociSpecSha256"): "8978d85f7568a2f6ec3f3ddf43764fc171a3290e7e1146270acb66c12ac7a4f1",
    ("containment", "seccomp", "profileSha256"): "9c1e5b7a2f4d6c8e0a1b3d5f7e9c2a4b6d8f0e1c3a5b7d9f2e4c6a8b0d1f3e5a",
    ("containment", "seccompPrograms", "profile", "sha256"): "9c1e5b7a2f4d6c8e0a1b3d5f7e9c2a4b6d8f0e1c3a5b7d9f2e4c6a8b0d1f3e5a",
    ("source",): {"dirty": False, "ignored": []},
    # the host fact most hosts have and this one lacks: AppArmor, with Docker's profile
    ("containment", "apparmor"): {"available": True, "profile": "docker-default"},
    ("evidence", "collection"): {"startedAt": "2026-05-28T20:00:05.1Z",
                                 "endedAt": "2026-05-28T20:00:05.25Z"},
    # and a /proc/kcore, which the engine masks
    ("containment", "systemPaths", "masks", "/proc/kcore"): "masked",
}
SOURCE_COMMIT = "4f75a67c1d2e3f405162738495a6b7c8d9e0f1a2"


def jcs(v):
    # RFC 8785 for this data: integers and strings only (keys sort by UTF-16 units, the
    # same as code points for the BMP, which is all a statement's keys hold)
    return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def normalize(cert, out):
    env = json.load(open(cert))
    st = json.loads(base64.b64decode(env["payload"].replace("-", "+").replace("_", "/")))
    pred = st["predicate"]
    for path, value in FIXED.items():
        o = pred
        for k in path[:-1]:
            o = o[k]
        o[path[-1]] = value
    pred["requested"] = None
    ins = {k: pred.get(k) for k in ("containment", "image", "requested", "session")}
    pred["inputsSha256"] = hashlib.sha256(jcs(ins)).hexdigest()
    st["subject"] = [{"digest": {"sha256": pred["image"]["id"][7:]}, "name": "image"},
                     {"digest": {"gitCommit": SOURCE_COMMIT}, "name": "source"}]
    with open(out, "w") as f:
        json.dump(st, f, indent=1, sort_keys=True)
        f.write("\n")


def diff(a, b):
    if not isinstance(a, dict) or not isinstance(b, dict):
        return b
    p = {}
    for k in sorted(set(a) | set(b)):
        if k not in b:
            raise SystemExit(f"{k}: a member removed: write it as an edit (delete), not a patch")
        if k not in a or a[k] != b[k]:
            p[k] = diff(a.get(k), b[k]) if isinstance(a.get(k), dict) and isinstance(b[k], dict) else b[k]
    return p


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "normalize":
        normalize(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "diff":
        json.dump(diff(json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))), sys.stdout,
                  indent=1, sort_keys=True)
        sys.stdout.write("\n")
    else:
        sys.exit(__doc__)


main()
