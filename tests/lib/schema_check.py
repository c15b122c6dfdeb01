# SPDX-License-Identifier: Apache-2.0
"""Validate documents against boxcert's JSON Schemas with Debian's python3-jsonschema.

usage: /usr/bin/python3 schema_check.py BOXCERT NAME FILE...
  NAME is a schema name of `BOXCERT schema NAME`. For NAME=certificate, each envelope
  (a file, or each line of a .jsonl file) is checked, and so is its decoded payload
  against the `statement` schema when boxcert has one.
Prints one line per document; exits 1 when any document is invalid.
"""
import base64
import json
import subprocess
import sys

from jsonschema import Draft202012Validator


def schema(boxcert, name):
    out = subprocess.run([boxcert, "schema", name], capture_output=True, check=False)
    if out.returncode != 0:
        return None
    s = json.loads(out.stdout)
    Draft202012Validator.check_schema(s)
    return Draft202012Validator(s)


def documents(path):
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".jsonl"):
        for i, line in enumerate(data.splitlines(), 1):
            if line.strip():
                yield f"{path}:{i}", json.loads(line)
    else:
        yield path, json.loads(data)


def main():
    boxcert, name, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    main_v = schema(boxcert, name)
    if main_v is None:
        print(f"no schema named {name}")
        return 1
    stmt_v = schema(boxcert, "statement") if name == "certificate" else None
    bad = 0
    count = 0
    for path in files:
        for where, doc in documents(path):
            checks = [(main_v, doc, "")]
            if stmt_v is not None:
                # standard or URL-safe base64, as boxcert accepts it
                payload = doc["payload"].replace("-", "+").replace("_", "/")
                checks.append((stmt_v, json.loads(base64.b64decode(payload, validate=True)), " payload"))
            for v, d, what in checks:
                count += 1
                errs = sorted(v.iter_errors(d), key=lambda e: list(e.path))
                if errs:
                    bad += 1
                    e = errs[0]
                    ptr = "/" + "/".join(str(p) for p in e.path)
                    print(f"INVALID {where}{what}: {ptr}: {e.message[:300]}")
                else:
                    print(f"valid {where}{what}")
    if count == 0:
        print("no document checked")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
