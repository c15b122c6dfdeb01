# SPDX-License-Identifier: Apache-2.0
"""Expectations written by hand (docs/architecture.md, "Expectations written by hand").

usage: /usr/bin/python3 by_hand.py check --inputs DIR --require SET LIST TARGET...
         Check LIST (a by-hand.txt) against the recorded inputs in DIR and against each
         TARGET, a JSON file, or FILE#POINTER for a part of one (a statement's
         #/predicate). SET names the fields LIST must cover: inspect or audit-page.
       /usr/bin/python3 by_hand.py page HTML
         The verdict-deciding facts an audit page shows, as JSON on stdout (the target of
         fixtures/audit/example/by-hand.txt).

check prints one line per problem on stderr and a summary on stdout; exit 0 when there is
none, 1 otherwise, 2 when LIST cannot be read.
"""
import json
import os
import re
import sys
from html.parser import HTMLParser

ABSENT = object()

# The members every list of that kind must give a value for (itself, or members below it;
# a list given element by element must be closed by an "absent" entry). "*" is any index
# the list uses. evidence.collection is not among them: it is the wall clock of the run that
# checks the list, not a fact of the recorded inputs.
REQUIRED = {
    "inspect": [
        "/session/containerId", "/session/startedAt", "/session/labels",
        "/session/restartPolicy", "/image/id", "/image/pin",
        "/containment/runtime/name", "/containment/runtime/path", "/containment/runtime/args",
        "/containment/network/mode", "/containment/network/internal",
        "/containment/network/interfaces", "/containment/network/ports",
        "/containment/rootfs/readOnly",
        "/containment/capabilities/add", "/containment/capabilities/drop",
        "/containment/capabilities/effective", "/containment/capabilities/permitted",
        "/containment/capabilities/inheritable", "/containment/capabilities/ambient",
        "/containment/capabilities/bounding",
        "/containment/noNewPrivileges", "/containment/privileged",
        "/containment/seccomp/mode", "/containment/seccomp/profile",
        "/containment/seccomp/profileSha256",
        "/containment/apparmor/profile", "/containment/apparmor/available",
        "/containment/selinux/label", "/containment/selinux/available",
        "/containment/user/spec", "/containment/user/uids", "/containment/user/gids",
        "/containment/user/groups", "/containment/user/everyUid", "/containment/user/everyGid",
        "/containment/user/everyGroup", "/containment/user/inNamespace",
        "/containment/namespaces/pid", "/containment/namespaces/ipc",
        "/containment/namespaces/uts", "/containment/namespaces/net",
        "/containment/namespaces/user", "/containment/namespaces/cgroup",
        "/containment/namespaces/mnt", "/containment/namespaces/time",
        "/containment/resources/memoryBytes", "/containment/resources/memorySwapBytes",
        "/containment/resources/pidsLimit", "/containment/resources/nanoCpus",
        "/containment/resources/cpuShares", "/containment/resources/cpuQuota",
        "/containment/resources/cpuPeriod", "/containment/resources/cgroupParent",
        "/containment/writeSurface", "/containment/mounts",
        "/containment/devices/devices", "/containment/devices/cgroupRules",
        "/containment/devices/allowAll", "/containment/devices/nodes",
        "/containment/maskedPaths", "/containment/readonlyPaths", "/containment/sysctls",
        "/containment/processes", "/containment/systemPaths", "/containment/descriptors",
        "/evidence/level", "/evidence/discrepancies",
    ],
    "audit-page": [
        "/title", "/outcome/text", "/outcome/class", "/certificateCounts",
        "/counts/violations", "/counts/compliant", "/counts/noncompliant",
        "/counts/unattested", "/counts/missing", "/counts/unreachable", "/counts/late",
        "/counts/leftover", "/counts/duplicate", "/counts/orphans",
        "/sessions", "/sessions/*/name", "/sessions/*/verdict", "/sessions/*/flags",
        "/sessions/*/failed",
        "/certificates", "/certificates/*/status", "/certificates/*/file",
        "/certificates/*/failed",
        "/orphans", "/orphans/*/id",
    ],
}

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
MARKS = {"=": "verbatim", "<": "from", "!": "absent", "*": "note"}
SOURCE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9_.-]*)#(/.*)?$")


class ListError(Exception):
    pass


def unescape(seg):
    return seg.replace("~1", "/").replace("~0", "~")


def split(ptr):
    """An RFC 6901 pointer as its reference tokens ("" is the whole document)."""
    if ptr == "":
        return []
    if not ptr.startswith("/"):
        raise ValueError("not a JSON pointer: %r" % ptr)
    if re.search(r"~[^01]|~$", ptr):
        raise ValueError("bad ~ escape in %r" % ptr)
    return [unescape(s) for s in ptr[1:].split("/")]


def resolve(doc, ptr):
    """The value at ptr, or ABSENT."""
    v = doc
    for seg in split(ptr):
        if isinstance(v, dict):
            if seg not in v:
                return ABSENT
            v = v[seg]
        elif isinstance(v, list):
            if not re.fullmatch(r"0|[1-9][0-9]*", seg) or int(seg) >= len(v):
                return ABSENT
            v = v[int(seg)]
        else:
            return ABSENT
    return v


def same(a, b):
    """JSON equality: true is not 1, 1.0 is not 1, key order does not count."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def show(v):
    return "(absent)" if v is ABSENT else json.dumps(v, sort_keys=True)


def load_json(path):
    def no_dups(pairs):
        d = {}
        for k, v in pairs:
            if k in d:
                raise ValueError("duplicate key %r" % k)
            d[k] = v
        return d

    with open(path, encoding="utf-8") as f:
        return json.load(f, object_pairs_hook=no_dups)


def parse_list(path):
    """[{field, value, line, sources: [(mark, file, ptr or text, line)]}] from a by-hand list."""
    entries, cur, pending = [], None, None
    dec = json.JSONDecoder()
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for no, raw in enumerate(lines, 1):
        line = raw.rstrip()
        s = line.strip()
        if pending is not None:  # a JSON value continued on the next lines
            if s == "" or s[0] in "#" + "".join(MARKS) or not raw[:1].isspace():
                raise ListError("%s:%d: the value of %s is not valid JSON" % (path, pending["line"], pending["field"]))
            pending["text"] += " " + s
            try:
                pending["value"] = json.loads(pending["text"])
                pending = None
            except ValueError:
                pass
            continue
        if s == "" or s.startswith("#"):
            continue
        if line.startswith("/"):
            m = re.match(r"^(\S+)\s+(.*)$", line)
            if not m:
                raise ListError("%s:%d: a field needs a value" % (path, no))
            field, text = m.group(1), m.group(2).strip()
            try:
                split(field)
            except ValueError as e:
                raise ListError("%s:%d: %s" % (path, no, e))
            cur = {"field": field, "line": no, "sources": [], "text": text}
            entries.append(cur)
            if text == "absent":
                cur["value"] = ABSENT
                continue
            try:
                value, end = dec.raw_decode(text)
                if text[end:].strip():
                    raise ListError("%s:%d: text after the value: %r" % (path, no, text[end:].strip()))
                cur["value"] = value
            except ValueError:
                pending = cur  # maybe a value over several lines
            continue
        if cur is None or not raw[:1].isspace():
            raise ListError("%s:%d: not a field, a source or a comment: %r" % (path, no, s))
        mark, rest = s[0], s[1:].strip()
        if mark not in MARKS or not rest:
            raise ListError("%s:%d: a source is '= FILE#POINTER', '< FILE#POINTER', '! FILE#POINTER' or '* words'" % (path, no))
        if mark == "*":
            cur["sources"].append(("*", None, rest, no))
            continue
        m = SOURCE.match(rest)
        if not m:
            raise ListError("%s:%d: not FILE#POINTER: %r" % (path, no, rest))
        try:
            split(m.group(2) or "")
        except ValueError as e:
            raise ListError("%s:%d: %s" % (path, no, e))
        cur["sources"].append((mark, m.group(1), m.group(2) or "", no))
    if pending is not None:
        raise ListError("%s:%d: the value of %s is not valid JSON" % (path, pending["line"], pending["field"]))
    return entries


def check(inputs_dir, require, list_path, targets):
    problems = []
    try:
        entries = parse_list(list_path)
    except (OSError, ListError) as e:
        print("by_hand: %s" % e, file=sys.stderr)
        return 2
    where = lambda n: "%s:%d" % (os.path.basename(list_path), n)

    # The list itself.
    seen = {}
    for e in entries:
        if e["field"] in seen:
            problems.append("%s: %s listed twice (first at line %d)" % (where(e["line"]), e["field"], seen[e["field"]]))
        seen[e["field"]] = e["line"]
        if not e["sources"]:
            problems.append("%s: %s has no source" % (where(e["line"]), e["field"]))
        if e["value"] is ABSENT and any(m == "=" for m, *_ in e["sources"]):
            problems.append("%s: %s is absent: nothing to copy verbatim" % (where(e["line"]), e["field"]))
    fields = [e["field"] for e in entries]
    for req in REQUIRED[require]:
        expanded = [req]
        if "*" in req:
            head = req.split("/*")[0]
            idx = sorted({int(f[len(head) + 1:].split("/")[0]) for f in fields
                          if f.startswith(head + "/") and f[len(head) + 1:].split("/")[0].isdigit()})
            idx = [i for i in idx if not any(e["field"] == "%s/%d" % (head, i) and e["value"] is ABSENT for e in entries)]
            expanded = [req.replace("*", str(i), 1) for i in idx]
        for r in expanded:
            if r in seen:
                continue
            below = [e for e in entries if e["field"].startswith(r + "/")]
            if not below:
                problems.append("%s: no expectation for %s" % (os.path.basename(list_path), r))
                continue
            idx = {e["field"][len(r) + 1:].split("/")[0] for e in below}
            if all(re.fullmatch(r"0|[1-9][0-9]*", i) for i in idx):  # a list, element by element
                n = max(int(i) for i in idx)
                closed = any(e["field"] == "%s/%d" % (r, n) and e["value"] is ABSENT for e in below)
                if not closed or sorted(int(i) for i in idx) != list(range(n + 1)):
                    problems.append("%s: %s is given element by element: elements 0 to N-1 and an 'absent' N are needed"
                                    % (os.path.basename(list_path), r))

    # The sources: recorded inputs only, never the expectations made by the code under test.
    docs = {}
    n_ptr = 0
    for e in entries:
        for mark, name, ptr, no in e["sources"]:
            if mark == "*":
                continue
            if name == "expected.json" or name.startswith("by-hand"):
                problems.append("%s: %s is not a recorded input" % (where(no), name))
                continue
            if name not in docs:
                try:
                    docs[name] = load_json(os.path.join(inputs_dir, name))
                except (OSError, ValueError) as ex:
                    problems.append("%s: %s: %s" % (where(no), name, ex))
                    docs[name] = None
            if docs[name] is None:
                continue
            n_ptr += 1
            got = resolve(docs[name], ptr)
            if mark == "!":
                if got is not ABSENT:
                    problems.append("%s: %s#%s resolves (to %s), the list says it is absent" % (where(no), name, ptr, show(got)))
            elif got is ABSENT:
                problems.append("%s: %s#%s does not resolve" % (where(no), name, ptr))
            elif mark == "=" and not same(got, e["value"]):
                problems.append("%s: %s is %s, but %s#%s, said to be copied verbatim, is %s"
                                % (where(no), e["field"], show(e["value"]), name, ptr, show(got)))

    # The targets: the product's output.
    for t in targets:
        path, _, ptr = t.partition("#")
        try:
            doc = resolve(load_json(path), ptr)
        except (OSError, ValueError) as ex:
            problems.append("%s: %s" % (t, ex))
            continue
        if doc is ABSENT:
            problems.append("%s: does not resolve" % t)
            continue
        for e in entries:
            got = resolve(doc, e["field"])
            if e["value"] is ABSENT:
                if got is not ABSENT:
                    problems.append("%s: %s: %s should be absent, is %s" % (where(e["line"]), os.path.basename(path), e["field"], show(got)))
            elif got is ABSENT:
                problems.append("%s: %s: %s is missing, by hand %s" % (where(e["line"]), os.path.basename(path), e["field"], show(e["value"])))
            elif not same(got, e["value"]):
                problems.append("%s: %s: %s is %s, by hand %s" % (where(e["line"]), os.path.basename(path), e["field"], show(got), show(e["value"])))

    for p in problems:
        print(p, file=sys.stderr)
    print("%d fields, %d reply pointers, %d targets: %d problems" % (len(entries), n_ptr, len(targets), len(problems)))
    return 1 if problems else 0


class Page(HTMLParser):
    """The facts of an audit page that decide what a reader concludes."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.facts = {"title": "", "outcome": None, "counts": {}, "certificateCounts": None,
                      "sessions": [], "certificates": [], "orphans": []}
        self.stack = []  # (tag, attrs, text parts) of the open elements
        self.row = None  # the open <tr> of interest: {kind, tds, ...}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "tr" and set(cls) & {"session", "certificate", "orphan"}:
            self.row = {"kind": cls, "attrs": a, "cells": [], "badges": [], "flags": [], "rules": []}
        if tag == "td" and self.row is not None:
            self.row["cells"].append({"text": [], "codes": []})
        if tag in VOID:
            if tag == "br" and self.row is not None and self.row["cells"]:
                self.row["cells"][-1]["text"].append("\n")
            return
        self.stack.append((tag, a, cls, []))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

    def handle_data(self, d):
        for el in self.stack:
            el[3].append(d)
        if self.row is not None and self.row["cells"]:
            self.row["cells"][-1]["text"].append(d)

    def handle_endtag(self, tag):
        if tag in VOID or not any(el[0] == tag for el in self.stack):
            return
        while self.stack:
            t, a, cls, parts = self.stack.pop()
            self.element(t, a, cls, "".join(parts))
            if t == tag:
                break

    def element(self, tag, a, cls, text):
        f = self.facts
        if tag == "title":
            f["title"] = text
        if a.get("id") == "outcome":
            f["outcome"] = {"text": text, "class": " ".join(c for c in cls if c != "outcome")}
        if a.get("id", "").startswith("count-"):
            f["counts"][a["id"][6:]] = int(text) if text.isdigit() else text
        if a.get("id") == "certificate-counts":
            f["certificateCounts"] = text
        r = self.row
        if r is None:
            return
        if tag == "span" and "badge" in cls:
            r["badges"].append(text)
        if tag == "span" and "flag" in cls:
            r["flags"].append(text)
        if tag == "span" and "rule" in cls:
            r["rules"].append(text)
        if tag == "code" and r["cells"]:
            r["cells"][-1]["codes"].append(text)
        if tag == "tr":
            self.finish(r)
            self.row = None

    def finish(self, r):
        kind, a, cells = r["kind"], r["attrs"], r["cells"]
        if "session" in kind:
            classes = [c[2:] for c in kind if c.startswith("v-")]
            badge = r["badges"][0] if r["badges"] else None
            verdict = a.get("data-verdict")
            if classes != [verdict] or badge != verdict:  # three places say it: they must agree
                verdict = "inconsistent: data-verdict %s, class %s, badge %s" % (verdict, classes, badge)
            flags = (a.get("data-flags") or "").split()
            if flags != r["flags"]:
                flags = "inconsistent: data-flags %s, flag badges %s" % (flags, r["flags"])
            name = "".join(cells[1]["text"]).split("\n")[0].strip() if len(cells) > 1 else None
            self.facts["sessions"].append({"name": name, "verdict": verdict, "flags": flags, "failed": r["rules"],
                                           "index": a.get("data-index")})
        elif "certificate" in kind:
            self.facts["certificates"].append({
                "status": r["badges"][0] if r["badges"] else None,
                "file": cells[1]["codes"][0] if len(cells) > 1 and cells[1]["codes"] else None,
                "failed": r["rules"]})
        elif "orphan" in kind:
            self.facts["orphans"].append({"id": cells[1]["codes"][0] if len(cells) > 1 and cells[1]["codes"] else None})


def page(path):
    p = Page()
    with open(path, encoding="utf-8") as f:
        p.feed(f.read())
    # the page shows the rows by severity; each says its place in the report (data-index):
    # the facts are in the report's order, so the list's pointers name the same rows
    rows = p.facts["sessions"]
    if all(r["index"] is not None and r["index"].isdigit() for r in rows):
        rows.sort(key=lambda r: int(r["index"]))
    for r in rows:
        del r["index"]
    p.close()
    json.dump(p.facts, sys.stdout, indent=1, sort_keys=True)
    print()
    return 0


def main(argv):
    if len(argv) >= 2 and argv[0] == "page":
        return page(argv[1])
    if len(argv) >= 7 and argv[0] == "check" and argv[1] == "--inputs" and argv[3] == "--require" \
            and argv[4] in REQUIRED:
        return check(argv[2], argv[4], argv[5], argv[6:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
