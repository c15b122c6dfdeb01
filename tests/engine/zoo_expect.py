# SPDX-License-Identifier: Apache-2.0
"""Check collected certificates against a table of expectations.

usage: /usr/bin/python3 zoo_expect.py TABLE DIR
  TABLE lines: SESSION  PATH  OP  VALUE   (white space separated; VALUE is JSON, the rest
  of the line; '#' starts a comment line). The certificate is DIR/SESSION.intoto.json;
  PATH is a dotted path into the statement's predicate (numbers index arrays; a segment
  [key=value] picks the first array item whose key equals value).
  OP: =      equal (JSON)
      has    the array (or object) contains VALUE (an item, or a key)
      lacks  it does not
      len    the array has VALUE items
      ~      the string matches the regular expression VALUE
      !=     not equal
Prints one line per expectation, "PASS<TAB>label" or "FAIL<TAB>label<TAB>what was found",
for the shell harness to count (zoo_check in tests/engine/zoo_lib.sh).
"""
import base64
import json
import re
import sys


def predicate(path):
    with open(path) as f:
        env = json.load(f)
    return json.loads(base64.b64decode(env["payload"]))["predicate"]


def walk(v, path):
    for seg in re.findall(r"\[[^\]]*\]|[^.]+", path):
        m = re.fullmatch(r"\[(\w+)=(.*)\]", seg)
        if m:
            k, want = m.group(1), m.group(2)
            hit = [x for x in v if isinstance(x, dict) and str(x.get(k)) == want]
            if not hit:
                raise KeyError(seg)
            v = hit[0]
        elif isinstance(v, list):
            v = v[int(seg)]
        else:
            v = v[seg]
    return v


def check(v, op, want):
    if op == "=":
        return v == want
    if op == "!=":
        return v != want
    if op == "has":
        return want in v
    if op == "lacks":
        return want not in v
    if op == "len":
        return len(v) == want
    if op == "~":
        return isinstance(v, str) and re.search(want, v) is not None
    raise ValueError(op)


def main():
    table, folder = sys.argv[1], sys.argv[2]
    cache = {}
    n = bad = 0
    for line in open(table):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        session, path, op, raw = line.split(None, 3)
        n += 1
        label = f"{session} {path} {op} {raw}"
        try:
            if session not in cache:
                cache[session] = predicate(f"{folder}/{session}.intoto.json")
            got = walk(cache[session], path)
            good = check(got, op, json.loads(raw))
        except Exception as e:  # a missing certificate or path fails the line
            got, good = f"<{type(e).__name__}: {e}>", False
        if good:
            print(f"PASS\t{label}")
        else:
            bad += 1
            print(f"FAIL\t{label}\t{json.dumps(got)[:400]}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
