# SPDX-License-Identifier: Apache-2.0
"""The crafted-input suite (tests/crafted/README.md): the gate's own inputs made by the party
being judged, class by class. The written cases are tests/crafted/cases.txt; the families below
generate the rest from lists (names, keys, formats), so a class grows by a line of a list.

usage: /usr/bin/python3 crafted.py BIN_DIR SOURCE_DIR BUILD_DIR WORK_DIR [--only REGEX]
Prints one line per case, then "N passed, N failed"; exits 1 when a case failed.
"""
import base64
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import urllib.parse

BIN, SRC, BUILD, WORK = sys.argv[1:5]
ONLY = re.compile(sys.argv[sys.argv.index("--only") + 1]) if "--only" in sys.argv else None
V = os.path.join(BIN, "boxcert-verify")
B = os.path.join(BIN, "boxcert")
MK = os.path.join(BUILD, "tests", "tools", "mkcert")
FIX = os.path.join(SRC, "fixtures", "certificate")
AT = "2026-06-01T00:00:00Z"
FORMATS = ("text", "json", "junit", "sarif", "github")
passed = failed = 0


def report(ok, cls, name, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
    print(f"{'ok' if ok else 'not ok'} {passed + failed} - {cls}: {name}")
    if not ok:
        for line in str(detail).splitlines()[:8]:
            print("#   " + line)
    sys.stdout.flush()


def run(args, cwd=None, timeout=20, shell=False):
    try:
        r = subprocess.run(args, capture_output=True, timeout=timeout, cwd=cwd or WORK, shell=shell,
                           executable="/bin/bash" if shell else None)
        return r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired:
        return "timeout", b"", b""


def case(cls, name, fn):
    if ONLY and not ONLY.search(f"{cls}: {name}"):
        return
    try:
        ok, detail = fn()
    except Exception as e:  # noqa: BLE001 - a case that cannot run has failed
        ok, detail = False, f"{type(e).__name__}: {e}"
    report(ok, cls, name, detail)


def unescape(s):
    out, i = bytearray(), 0
    while i < len(s):
        if s[i] != "\\":
            out += s[i].encode()
            i += 1
        elif s[i + 1] in "\\\"":
            out += s[i + 1].encode()
            i += 2
        elif s[i + 1] == "x":
            out.append(int(s[i + 2:i + 4], 16))
            i += 4
        else:
            j = s.index("}", i)
            out += chr(int(s[i + 3:j], 16)).encode()
            i = j + 1
    return bytes(out)


# ---- the run's certificates ----------------------------------------------------------------
os.makedirs(WORK, exist_ok=True)
KEY = os.path.join(WORK, "k.key")
fd = os.open(KEY, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
os.write(fd, open(os.path.join(FIX, "keys", "regress-ed25519.key"), "rb").read())
os.close(fd)
PUB = os.path.join(FIX, "keys", "regress-ed25519.pub")
POLICY = os.path.join(FIX, "policy.yaml")
BASE = os.path.join(WORK, "base.json")
rc, out, err = run([MK, "statement", "--inspect", os.path.join(SRC, "fixtures", "inspect", "hardened")])
if rc != 0:
    print("Bail out! mkcert statement: " + err.decode(errors="replace"))
    sys.exit(1)
open(BASE, "wb").write(out)
STARTED = json.loads(out)["predicate"]["session"]["startedAt"]


def mkcert(path, name, cid, labels=None):
    args = [MK, "envelope", "--statement", BASE, "--set", "/predicate/session/name", json.dumps(name),
            "--set", "/predicate/session/containerId", json.dumps(cid),
            "--set", "/predicate/session/labels", json.dumps(labels or {"run": "crafted"}),
            "--fix-inputs", "--key", KEY]
    rc_, out_, err_ = run(args)
    if rc_ != 0:
        raise RuntimeError("mkcert: " + err_.decode(errors="replace"))
    with open(path, "wb") as f:
        f.write(out_)
    return out_


GATE = os.path.join(WORK, "gate")
os.makedirs(GATE, exist_ok=True)
SESSIONS = [(f"crafted-{i:02d}", f"{i:02x}" * 32) for i in range(1, 11)]
for i, (name, cid) in enumerate(SESSIONS, 1):
    mkcert(os.path.join(GATE, f"s{i:02d}.intoto.json"), name, cid)
CERT = os.path.join(GATE, "s01.intoto.json")
EXPECT = os.path.join(WORK, "expect.json")
json.dump({"version": 1, "sessions": [{"id": c, "name": n} for n, c in SESSIONS]}, open(EXPECT, "w"))
json.dump({"version": 1, "sessions": [{"name": n} for n, _ in SESSIONS]},
          open(os.path.join(WORK, "names.json"), "w"))
json.dump({"version": 1, "sessions": [{"id": SESSIONS[0][1], "startedAt": "2020-01-01T00:00:00Z"}]},
          open(os.path.join(WORK, "pinned-other.json"), "w"))
json.dump({"version": 1, "sessions": [{"id": SESSIONS[0][1], "startedAt": STARTED}]},
          open(os.path.join(WORK, "pinned-same.json"), "w"))
VERIFY = [V, "verify", "--policy", POLICY, "--at", AT]

# ---- the written cases ------------------------------------------------------------------------
SUBST = {"@V@": V, "@B@": B, "@POLICY@": POLICY, "@PUB@": PUB, "@KEY@": KEY, "@GATE@": GATE,
         "@CERT@": CERT, "@EXPECT@": EXPECT, "@AT@": "--at " + AT, "@W@": WORK, "@MK@": MK,
         "@BASE@": BASE}
slots = 0
for lineno, line in enumerate(open(os.path.join(SRC, "tests", "crafted", "cases.txt")), 1):
    if not line.strip() or line.startswith("#"):
        continue
    fields = [f.strip() for f in re.split(r" ::(?: |$)", line.rstrip("\n"))]
    if len(fields) != 5:
        report(False, "cases.txt", f"line {lineno} has {len(fields)} fields, not 5", line)
        continue
    cls, name, want, cmd, pattern = fields
    if want == "SLOT":
        slots += 1
        continue
    for k, v in SUBST.items():
        cmd = cmd.replace(k, shlex.quote(v) if k != "@AT@" else v)

    def written(cmd=cmd, want=want, pattern=pattern):
        rc_, out_, err_ = run(cmd, shell=True)
        text = (out_ + err_).decode(errors="replace")
        ok = str(rc_) == want and (not pattern or re.search(pattern, text, re.M))
        return ok, f"exit {rc_}, want {want}; pattern {pattern!r}\n{text}"
    case(cls, name, written)

# ---- [5/14] done when: a gate folder with one certificate removed fails, naming the session ----
NAMED = {
    "text": lambda out, n: re.search(rf"^MISSING +{n}( [0-9a-f]{{12}})?$", out, re.M),
    "json": lambda out, n: any(r["name"] == n and r["verdict"] == "missing"
                               for r in json.loads(out)["sessions"]),
    "junit": lambda out, n: re.search(rf'classname="expected session {n}( [0-9a-f]{{12}})?"[^>]*>\s*<failure', out),
    "sarif": lambda out, n: any(x["ruleId"] == "certificate.missing" and n in x["message"]["text"]
                                for x in json.loads(out)["runs"][0]["results"]),
    "github": lambda out, n: re.search(rf"^::error title=certificate.missing::session {n} is missing",
                                       out, re.M),
}
for i, (name, cid) in enumerate(SESSIONS, 1):
    for fmt in FORMATS + ("text --jobs 3",):
        def removed(i=i, name=name, fmt=fmt):
            gate = os.path.join(WORK, f"removed-{i:02d}")
            if not os.path.isdir(gate):
                shutil.copytree(GATE, gate)
                os.unlink(os.path.join(gate, f"s{i:02d}.intoto.json"))
            rc_, out_, err_ = run(VERIFY + [gate, "--expect", EXPECT, "--format", *fmt.split()])
            out_ = out_.decode()
            return rc_ == 1 and NAMED[fmt.split()[0]](out_, name), f"exit {rc_}\n{out_[-600:]}"
        case("removed", f"s{i:02d} removed, {fmt}: fails naming {name}", removed)

# ---- [5/14] hostile file names: every format carries the result, decoded -------------------------
FILE_NAMES = [b"bad\x80.intoto.json", b"\xff\xfe.intoto.json", b"half\xe2\x80.intoto.json",
              b"back\\slash.intoto.json", b"\\x41.intoto.json", b'q"uote.intoto.json',
              b"sp ace.intoto.json", b"x image=sha256:0.intoto.json", b"nl\nx.intoto.json",
              b"cr\rx.intoto.json", b"%0A%25.intoto.json", b"::error ::x.intoto.json",
              b"a,b:c.intoto.json", b"<x>&amp;'.intoto.json", "bidi\u202egnp.intoto.json".encode(),
              "iso\u2066late.intoto.json".encode(), "non\ufffe\uffff.intoto.json".encode(),
              "zw\u200bsp\ufeff.intoto.json".encode(), b"tab\tx.intoto.json", b"esc\x1b[31m.intoto.json",
              b"c1\xc2\x9b.intoto.json", b"del\x7f.intoto.json"]


def carried(fmt, out, path):
    if fmt == "json":
        return any(unescape(r["file"]) == path for r in json.loads(out)["results"])
    if fmt == "sarif":
        return any(urllib.parse.unquote_to_bytes(x["uri"]) == path
                   for x in json.loads(out)["runs"][0]["properties"]["inputs"])
    if fmt == "junit":
        import xml.etree.ElementTree as ET
        return any(unescape(re.sub(r" [0-9a-f]{12}$", "", c.get("classname"))) == path
                   for c in ET.fromstring(out).iter("testcase"))
    if fmt == "github":
        return any(l.startswith("PASS ") and unescape(l[5:]) == path for l in out.splitlines())
    for l in out.splitlines():  # text
        m = re.match(r'^PASS ("(?:[^"\\]|\\.)*"|\S+) ', l)
        if m and (unescape(m.group(1)[1:-1]) if m.group(1).startswith('"') else m.group(1).encode()) == path:
            return True
    return False


HIDDEN = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff\ufffe\uffff]")
for k, fname in enumerate(FILE_NAMES):
    folder = os.path.join(WORK, f"names-{k:02d}").encode()
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, fname)
    shutil.copy(CERT, path)
    for fmt in FORMATS:
        def hostile_name(path=path, folder=folder, fmt=fmt):
            rc_, out_, err_ = run(VERIFY + [folder, "--format", fmt])
            out_ = out_.decode("utf-8")
            raw = fmt in ("text", "github", "junit") and HIDDEN.search(out_.replace("\n", ""))
            return rc_ == 0 and carried(fmt, out_, path) and not raw, f"exit {rc_}\n{out_[:800]}"
        case("file-name", f"{fname!r} in {fmt}", hostile_name)

# ---- [5/14] hostile session names: one field in text, nothing raw in human formats -----------
SESSION_NAMES = ["x image=sha256:" + "0" * 64, "a session=b", '"quoted"', "bidi\u202eexe.txt",
                 "iso\u2067x\u2069", "nonchar\ufffe\uffff", "nl\nFAIL forged", "back\\slash",
                 "c1\u009bcsi", "lrm\u200eand\u2028ls"]
for k, sname in enumerate(SESSION_NAMES):
    path = os.path.join(WORK, f"sess-{k:02d}.intoto.json")
    mkcert(path, sname, f"{0xa0 + k:02x}" * 32)
    for fmt in ("text", "github", "junit", "json"):
        def hostile_session(path=path, sname=sname, fmt=fmt):
            rc_, out_, err_ = run(VERIFY + [path, "--format", fmt])
            out_ = out_.decode("utf-8")
            if fmt == "json":
                return rc_ == 0 and json.loads(out_)["results"][0]["session"]["name"] == sname, out_[:400]
            if HIDDEN.search(out_.replace("\n", "")):
                return False, "a hidden character raw: " + repr(out_[:300])
            if fmt != "text":
                return rc_ == 0, out_[:300]
            line = out_.splitlines()[0]
            m = re.fullmatch(r'PASS \S+ [0-9a-f]{12} session=("(?:[^"\\]|\\.)*"|\S+) image=(sha256:[0-9a-f]{64})(?: signers=[0-9a-f]{64}(?:,[0-9a-f]{64})*)?',
                             line)
            got = m and (unescape(m.group(1)[1:-1]) if m.group(1).startswith('"') else m.group(1).encode())
            lines_ = out_.splitlines()  # the result, the summary, the tool, policy and time
            return (rc_ == 0 and got == sname.encode() and len(lines_) == 3
                    and lines_[2].startswith("boxcert-verify ") and " verified at " in lines_[2]), out_
        case("session-name", f"{sname!r} in {fmt}", hostile_session)

# ---- [5/14] a folder's other entries: listed as skipped, never failing ------------------------
SKIPPED = ["README", "x.json", "x.intoto.json.bak", "X.INTOTO.JSON", "x.intoto", "x.jsonl",
           "x.intoto.jsonl~", "x.intoto.json ", "intoto.json", "x.intoto.JSON", ".hidden", "x.pem"]
for k, sk in enumerate(SKIPPED):
    folder = os.path.join(WORK, f"skip-{k:02d}")
    os.makedirs(folder, exist_ok=True)
    shutil.copy(CERT, os.path.join(folder, "a.intoto.json"))
    open(os.path.join(folder, sk), "w").write("not a certificate\n")
    for fmt in ("text", "json"):
        def skipped(folder=folder, sk=sk, fmt=fmt):
            rc_, out_, err_ = run(VERIFY + [folder, "--format", fmt])
            out_ = out_.decode()
            if fmt == "json":
                d = json.loads(out_)
                ok = [unescape(x["file"]) for x in d.get("skipped", [])] == [os.path.join(folder, sk).encode()]
                return rc_ == 0 and ok and d["summary"]["total"] == 1, out_[:400]
            return rc_ == 0 and out_.count("\nSKIP ") + out_.startswith("SKIP ") == 1, out_
        case("skipped", f"{sk!r} beside a certificate, {fmt}", skipped)

# ---- [5/14] subfolders, links, depth ------------------------------------------------------------
TREE = os.path.join(WORK, "tree")
os.makedirs(os.path.join(TREE, "sub", "deeper"), exist_ok=True)
shutil.copy(CERT, os.path.join(TREE, "top.intoto.json"))
shutil.copy(os.path.join(GATE, "s02.intoto.json"), os.path.join(TREE, "sub", "a.intoto.json"))
shutil.copy(os.path.join(GATE, "s03.intoto.json"), os.path.join(TREE, "sub", "deeper", "b.intoto.json"))
os.symlink(os.path.join(GATE), os.path.join(TREE, "link-to-gate"))


def tree(args, want_total, want_skipped, want_rc=0):
    def fn():
        rc_, out_, err_ = run(VERIFY + args + ["--format", "json"])
        d = json.loads(out_)
        return (rc_ == want_rc and d["summary"]["total"] == want_total and
                d["summary"].get("skipped", 0) == want_skipped), out_.decode()[:600]
    return fn


case("folders", "without --recursive: the subfolder and the link are skipped", tree([TREE], 1, 2))
case("folders", "with --recursive: every level read, the link still skipped",
     tree([TREE, "--recursive"], 3, 1))
case("folders", "--recursive with --expect: the sessions below are found",
     tree([TREE, "--recursive", "--expect", os.path.join(WORK, "pinned-same.json")], 3, 1))
deep = os.path.join(WORK, "deep")
p = deep
for d_ in range(34):
    p = os.path.join(p, "d")
os.makedirs(p, exist_ok=True)
shutil.copy(CERT, os.path.join(p, "x.intoto.json"))
case("folders", "folders nested past the cap: an error row, not a silence",
     tree([deep, "--recursive"], 1, 0, 1))
case("folders", "a symlink to a certificate file is read", lambda: (
    os.path.lexists(os.path.join(WORK, "ln.intoto.json")) or os.symlink(CERT, os.path.join(WORK, "ln.intoto.json")),
    run(VERIFY + [os.path.join(WORK, "ln.intoto.json")])[0] == 0)[1:] + ("",))

# ---- [2/14] non-regular entries named as certificates: an error row each -----------------------
NONREG = os.path.join(WORK, "nonreg")
os.makedirs(NONREG, exist_ok=True)
kinds = {}
os.mkfifo(os.path.join(NONREG, "fifo.intoto.json"))
kinds["FIFO"] = "fifo.intoto.json"
s_ = socket.socket(socket.AF_UNIX)
s_.bind(os.path.join(NONREG, "sock.intoto.json"))
kinds["socket"] = "sock.intoto.json"
os.symlink("/dev/null", os.path.join(NONREG, "dev.intoto.json"))
kinds["link to a device"] = "dev.intoto.json"
os.mkfifo(os.path.join(NONREG, "fifo.intoto.jsonl"))
kinds["FIFO bundle"] = "fifo.intoto.jsonl"
for what, fname in kinds.items():
    for where in ("in a folder", "as an argument"):
        for fmt in ("text", "json"):
            def nonreg(fname=fname, where=where, fmt=fmt):
                folder = os.path.join(WORK, "nr-" + fname)
                if not os.path.isdir(folder):
                    os.makedirs(folder)
                    shutil.copy(CERT, os.path.join(folder, "a.intoto.json"))
                    os.rename(os.path.join(NONREG, fname), os.path.join(folder, fname))
                target = [folder] if where == "in a folder" else [os.path.join(folder, fname)]
                rc_, out_, err_ = run(VERIFY + target + ["--format", fmt], timeout=10)
                out_ = out_.decode()
                named = fname in out_ and "not a regular file" in err_.decode()
                if fmt == "json":
                    named = named and any(r["verdict"] == "fail" and r["file"].endswith(fname)
                                          for r in json.loads(out_)["results"])
                return rc_ == 1 and named, f"exit {rc_}\n{out_[:400]}{err_.decode()[:300]}"
            case("nonregular", f"{what} {where}, {fmt}", nonreg)

# ---- [2/14] bundle lines over the cap --------------------------------------------------------
LINE = open(CERT, "rb").read().rstrip(b"\n")
for k in range(1, 7):
    def cap(k=k):
        path = os.path.join(WORK, f"cap-{k}.intoto.jsonl")
        lines = [LINE] * 6
        lines[k - 1] = LINE + b" " * 10  # 10 bytes over
        open(path, "wb").write(b"\n".join(lines) + b"\n")
        rc_, out_, _ = run(VERIFY + [path, "--max-size", str(len(LINE)), "--format", "json"])
        d = json.loads(out_)
        last = d["results"][-1]
        return (rc_ == 1 and d["summary"]["total"] == k and last["file"].endswith(f":{k}") and
                any(f["rule"] == "certificate.too_large" for f in last["findings"])), out_.decode()[:400]
    case("line-cap", f"line {k} of 6 over --max-size: {k} rows, the rest not read", cap)
for delta, want in ((0, 0), (1, 0), (-1, 1)):
    def exact(delta=delta, want=want):
        rc_, out_, _ = run(VERIFY + [CERT, "--max-size", str(len(LINE) + delta)])
        return rc_ == want, out_.decode()[:300]
    case("line-cap", f"a file at the cap {delta:+d}: exit {want}", exact)
for ending in (b"\r\n", b"\n\n\n", b""):
    def endings(ending=ending):
        path = os.path.join(WORK, f"end-{len(ending)}.intoto.jsonl")
        open(path, "wb").write(LINE + ending + LINE + ending)
        rc_, out_, _ = run(VERIFY + [path, "--max-size", str(len(LINE)), "--format", "json"])
        d = json.loads(out_)
        want_total = 2 if ending else 1
        return d["summary"]["total"] == want_total, out_.decode()[:300]
    case("line-cap", f"lines ended by {ending!r} at the cap", endings)

# ---- [4/14] Ed25519 public keys that verify anything: refused by both readers ---------------
P = (1 << 255) - 19
SMALL = [0, 1, P - 1,
         int.from_bytes(bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"), "little"),
         int.from_bytes(bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"), "little")]
NONCANON = [P, P + 1, P + 2, (1 << 255) - 1]
for label, ys in (("small order", SMALL), ("y >= p", NONCANON)):
    for y in ys:
        for sign in (0, 1):
            raw = bytearray(y.to_bytes(32, "little"))
            raw[31] |= sign << 7
            der = bytes.fromhex("302a300506032b6570032100") + bytes(raw)
            pem = "-----BEGIN PUBLIC KEY-----\n" + base64.b64encode(der).decode() + "\n-----END PUBLIC KEY-----\n"
            kpath = os.path.join(WORK, f"ed-{raw.hex()[:8]}-{sign}.pub")
            open(kpath, "w").write(pem)
            ppath = kpath + ".yaml"
            open(ppath, "w").write(f"version: 1\ntrust:\n  keys:\n    - file: {kpath}\n")
            for reader, args in (("--key", ["--policy", POLICY, "--key", kpath]), ("trust.keys", ["--policy", ppath])):
                def refused(args=args, kpath=kpath):
                    rc_, out_, err_ = run([V, "verify", CERT, "--at", AT] + args)
                    return rc_ == 2 and os.path.basename(kpath) in err_.decode(), f"exit {rc_}: {err_.decode()}"
                case("ed25519", f"{label} y={raw.hex()[:12]}... sign {sign}, {reader}: exit 2", refused)

# ---- [4/14] bindings mean one thing: sessions named with hex digits ----------------------------
# (name, containerId, --expect-container value, option, exit): a full Id is an Id only; 12 to
# 63 hex digits an Id prefix, ambiguous (exit 2) when the session has that name and another
# Id; -id and -name say which.
REAL = "c34ab363b7aba303cd2db5c6ed3a1d6f19eb501255c3523ed3fe359d06512e2c"
OTHER = "0123456789ab0123456789ab0123456789ab0123456789ab0123456789abcdef"
BDIR = os.path.join(WORK, "bindings")
os.makedirs(BDIR, exist_ok=True)
BINDING = []
for n in (12, 13, 20, 32, 63):
    p_ = OTHER[:n]
    BINDING += [(p_, REAL, p_, "--expect-container", 2, f"named with another's {n}-digit prefix: ambiguous"),
                (p_, REAL, p_, "--expect-container-name", 0, f"{n}-digit name, -name: the name"),
                (p_, REAL, p_, "--expect-container-id", 1, f"{n}-digit name, -id: not its Id"),
                (p_, OTHER, p_, "--expect-container", 0, f"named with its own {n}-digit prefix")]
BINDING += [(OTHER, REAL, OTHER, "--expect-container", 1, "named with another's full Id: an Id only"),
            (OTHER, REAL, OTHER, "--expect-container-name", 0, "the full-Id name, -name"),
            (REAL, REAL, REAL, "--expect-container", 0, "its own full Id"),
            (OTHER[:11], REAL, OTHER[:11], "--expect-container", 0, "11 hex digits are a name"),
            (OTHER[:11], REAL, OTHER[:11], "--expect-container-id", 2, "-id of 11 digits: usage"),
            ("web", REAL, REAL[:12], "--expect-container", 0, "a 12-digit prefix of its Id"),
            ("web", REAL, REAL[:11], "--expect-container", 1, "an 11-digit prefix is a name"),
            ("web", REAL, "web", "--expect-container-id", 2, "-id that is not hex: usage"),
            ("web", REAL, REAL.upper()[:12], "--expect-container", 1, "upper-case hex is a name"),
            ("web", REAL, "", "--expect-container", 2, "an empty value: usage")]
for k, (name, cid, val, opt, want, what) in enumerate(BINDING):
    def binding(k=k, name=name, cid=cid, val=val, opt=opt, want=want):
        path = os.path.join(BDIR, f"b{k:02d}.intoto.json")
        if not os.path.exists(path):
            mkcert(path, name, cid)
        rc_, out_, err_ = run(VERIFY + [path, opt, val])
        return rc_ == want, f"exit {rc_}, want {want}\n{(out_ + err_).decode()[-400:]}"
    case("binding", f"{what} ({opt}): exit {want}", binding)
# two options at once is a usage error
for a_, b_ in (("--expect-container", "--expect-container-id"),
               ("--expect-container-id", "--expect-container-name"),
               ("--expect-container", "--expect-container-name")):
    def two(a_=a_, b_=b_):
        rc_, out_, err_ = run(VERIFY + [CERT, a_, REAL[:12], b_, REAL[:12]])
        return rc_ == 2, f"exit {rc_}"
    case("binding", f"{a_} with {b_}: usage (exit 2)", two)

# ---- [4/14] policy keywords vs names: a network keyword means only the keyword -----------------
# a certificate whose session is on a network named after a keyword, under a policy allowing the
# keyword (fail) or the name under names: (pass)
NDIR = os.path.join(WORK, "networks")
os.makedirs(NDIR, exist_ok=True)
NETS = [("internal", False), ("container", None), ("internal", None), ("none", None)]
for k, (net, internal) in enumerate(NETS):
    path = os.path.join(NDIR, f"n{k}.intoto.json")
    for form in (f"[{net}]", f"{{modes: [{net}]}}", f"{{names: [{net}]}}"):
        # the keyword admits a network of its name only for none (the engine's own); internal
        # not observed leaves the keyword unknown; names: admits the network of that name,
        # except the engine's own none, which names: refuses (exit 2)
        if "names" in form:
            want = "refused" if net == "none" else "pass"
        elif net == "none":
            want = "pass"
        elif net == "internal" and internal is None:
            want = "unknown"
        else:
            want = "fail"

        def words(k=k, net=net, internal=internal, form=form, want=want, path=path):
            if not os.path.exists(path):
                args = [MK, "envelope", "--statement", BASE, "--set",
                        "/predicate/containment/network/mode", json.dumps(net)]
                args += ["--set", "/predicate/containment/network/internal", json.dumps(internal)]
                rc0, out0, err0 = run(args + ["--fix-inputs", "--key", KEY])
                if rc0 != 0:
                    return False, err0.decode()
                open(path, "wb").write(out0)
            pol = os.path.join(NDIR, f"p{k}-{form.count('names')}{form.count('modes')}.yaml")
            text = re.sub(r"(?m)^  network: .*$", f"  network: {form}", open(POLICY).read(), count=1)
            text = text.replace("file: keys/", f"file: {FIX}/keys/")
            open(pol, "w").write(text)
            rc_, out_, err_ = run([V, "verify", path, "--policy", pol, "--key", PUB, "--at", AT,
                                   "--format", "json"])
            if want == "refused":
                return rc_ == 2, f"exit {rc_}: {err_.decode()}"
            try:
                st = {f_["rule"]: f_["status"] for f_ in json.loads(out_)["results"][0]["findings"]}
            except Exception:  # noqa: BLE001
                return False, f"exit {rc_}\n{(out_ + err_).decode()[-400:]}"
            got = st.get("containment.network")
            return got == want, f"containment.network {got}, want {want}"
        case("policy-keyword", f"a network named {net} (internal {internal}) under network: {form}: {want}",
             words)

# ---- [4/14] a profile name is never a file ------------------------------------------------------
PROFILES = ["strict", "strict@1", "strict@2", "gvisor", "gvisor@1", "gvisor@2", "cis-docker",
            "cis-docker@1", "cis-docker@2"]
PDIR = os.path.join(WORK, "profiles")
os.makedirs(PDIR, exist_ok=True)
for pname in PROFILES:
    open(os.path.join(PDIR, pname), "w").write("version: 1\ncontainment: {privileged: true}\n")
    for what, args in (("verify --policy", [V, "verify", CERT, "--key", PUB, "--at", AT, "--policy", pname]),
                       ("policy check", [B, "policy", "check", pname])):
        def profile(args=args, pname=pname):
            rc_, out_, err_ = run(args, cwd=PDIR)
            return rc_ == 2 and f"./{pname}" in err_.decode(), f"exit {rc_}: {err_.decode()}"
        case("profile-name", f"{what} {pname} with a file of that name here: exit 2 naming ./{pname}", profile)

    def shown(pname=pname):  # policy show reads profiles only: the built-in one, never the file
        rc_, out_, err_ = run([V, "policy", "show", pname], cwd=PDIR)
        return rc_ == 0 and b"{privileged: true}" not in out_ and b"version:" in out_, out_[:200]
    case("profile-name", f"policy show {pname} with a file of that name here: the profile", shown)

print(f"# {slots} slots for classes whose checks have not landed (tests/crafted/cases.txt)")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed or passed == 0 else 0)
