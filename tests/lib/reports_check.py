# SPDX-License-Identifier: Apache-2.0
"""Every report format carries every result, parsed by a real consumer (tests/cli/reports.sh).

usage: /usr/bin/python3 reports_check.py BIN_DIR SOURCE_DIR BUILD_DIR WORK_DIR

A gate folder of certificates signed with the regression key (tests/tools/mkcert), with
hostile file names (bytes that are not UTF-8, backslashes, quotes, spaces, a forged field,
workflow commands, XML metacharacters, bidirectional controls, U+FFFE/U+FFFF) and hostile
session names and labels, a bundle, a file that is not a certificate's name, a subfolder and a
FIFO named as a certificate, verified with --recursive and --expect in every format. Each
report is read by a consumer that did not come from boxcert: python3-jsonschema against
`boxcert schema report`, the SARIF 2.1.0 schema (tests/lib/sarif/), python3-junitparser,
xml.etree and xmllint; the names are decoded with the documented encodings (docs/ci.md,
"Encodings") and compared with the bytes on disk. Prints TAP; exits 1 on any failure.
"""
import json
import os
import re
import subprocess
import sys
import urllib.parse
import xml.etree.ElementTree as ET

from jsonschema import Draft4Validator, Draft202012Validator
import junitparser

BIN, SRC, BUILD, WORK = sys.argv[1:5]
V = os.path.join(BIN, "boxcert-verify")
B = os.path.join(BIN, "boxcert")
MK = os.path.join(BUILD, "tests", "tools", "mkcert")
FIX = os.path.join(SRC, "fixtures", "certificate")
AT = "2026-06-01T00:00:00Z"
n = failed = 0

# what a human format must never show raw
HIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e"
                    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\ufdd0-\ufdef\ufffe\uffff]")


def check(cond, name, detail=""):
    global n, failed
    n += 1
    print(("ok" if cond else "not ok") + f" {n} - {name}")
    if not cond:
        failed += 1
        for line in str(detail).splitlines()[:12]:
            print("#   " + line)
    sys.stdout.flush()
    return cond


def unescape(s):
    """The bytes an escaped string stands for (bx_unescape): \\\\, \\", \\xNN, \\u{X}."""
    out, i = bytearray(), 0
    while i < len(s):
        c = s[i]
        if c != "\\":
            out += c.encode()
            i += 1
        elif s[i + 1] in "\\\"":
            out += s[i + 1].encode()
            i += 2
        elif s[i + 1] == "x":
            out.append(int(s[i + 2:i + 4], 16))
            i += 4
        elif s[i + 1] == "u" and s[i + 2] == "{":
            j = s.index("}", i)
            out += chr(int(s[i + 3:j], 16)).encode("utf-8", "surrogatepass")
            i = j + 1
        else:
            raise ValueError(f"not an escape: {s[i:i + 6]!r}")
    return bytes(out)


def run(*args, **kw):
    return subprocess.run(list(args), capture_output=True, timeout=60, **kw)


# ---- the gate folder ------------------------------------------------------------------
os.makedirs(WORK, exist_ok=True)
key = os.path.join(WORK, "k.key")
with open(os.path.join(FIX, "keys", "regress-ed25519.key"), "rb") as f:
    data = f.read()
fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
os.write(fd, data)
os.close(fd)
base = os.path.join(WORK, "base.json")
with open(base, "wb") as f:
    f.write(run(MK, "statement", "--inspect", os.path.join(SRC, "fixtures", "inspect", "hardened")).stdout)
stmt = json.load(open(base))
cid = stmt["predicate"]["session"]["containerId"]
started = stmt["predicate"]["session"]["startedAt"]

EVIL = "a\u202eb\u2066c\ufffe\uffff\u200b\u00ad</x>&'\"\x07\x1b[31m\r\n%0A::error ::x\\y"
SESSION_NAMES = ["x image=sha256:" + "0" * 64, "q\"uote", "bidi\u202egnp.exe", "nonchar\ufffe\uffff",
                 "tab\tand\nnewline", "back\\slash", "plain-name"]


def cert(name, session_name, label=EVIL, cid_=None):
    args = [MK, "envelope", "--statement", base,
            "--set", "/predicate/session/name", json.dumps(session_name),
            "--set", "/predicate/session/labels", json.dumps({"note": label})]
    if cid_:
        args += ["--set", "/predicate/session/containerId", json.dumps(cid_)]
    args += ["--fix-inputs", "--key", key]
    r = run(*args)
    if r.returncode:
        print("Bail out! mkcert: " + r.stderr.decode(errors="replace"))
        sys.exit(1)
    with open(name, "wb") as f:
        f.write(r.stdout)
    return r.stdout


gate = os.path.join(WORK, "gate").encode()
os.makedirs(os.path.join(gate, b"sub"), exist_ok=True)
FILE_NAMES = [b"bad\x80\xff.intoto.json", b"back\\slash.intoto.json", b"q\"uote s.intoto.json",
              b"x image=sha256:0.intoto.json", "bidi\u202egnp.intoto.json".encode(),
              "nonchar\ufffe\uffff.intoto.json".encode(), b"nl\nand%0A::error ::x.intoto.json",
              b"<testcase><x a='&amp;'>.intoto.json", b"plain.intoto.json"]
expected = []  # (bytes, line) of every result
for i, fname in enumerate(FILE_NAMES):
    path = os.path.join(gate, fname)
    cert(path, SESSION_NAMES[i % len(SESSION_NAMES)],
         cid_=None if i else cid)  # the first is the listed session's
    expected.append((path, 0))
lines = [cert(os.path.join(WORK, "l1"), "bundle-one", cid_="ab" * 32),
         cert(os.path.join(WORK, "l2"), "bundle\u202etwo", cid_="cd" * 32)]
bundle = os.path.join(gate, "bundle \u2067.intoto.jsonl".encode())
with open(bundle, "wb") as f:
    f.write(b"".join(lines))
expected += [(bundle, 1), (bundle, 2)]
sub = os.path.join(gate, b"sub", "in\u202esub.intoto.json".encode())
cert(sub, "in-sub")
expected.append((sub, 0))
fifo = os.path.join(gate, b"fifo\x81.intoto.json")
os.mkfifo(fifo)
expected.append((fifo, 0))  # an error row: never read, never dropped
skipped = [os.path.join(gate, b"README\xfe"), os.path.join(gate, "notes\u202e.txt".encode())]
for s_ in skipped:
    open(s_, "w").write("not a certificate\n")
expect_file = os.path.join(WORK, "expect.json")
json.dump({"version": 1, "sessions": [{"id": cid}, {"name": "never-seen"},
                                       {"id": "ef" * 32, "startedAt": started}]},
          open(expect_file, "w"))
want_results = sorted(expected)
os.environ.pop("NO_COLOR", None)


def verify(fmt, out, *extra):
    return run(V, "verify", gate, "--recursive", "--policy", os.path.join(FIX, "policy.yaml"),
               "--at", AT, "--expect", expect_file, "--expect-label", "note=other",
               "--format", fmt, "--output", out, *extra, cwd=FIX)


reports = {}
for fmt in ("text", "json", "junit", "sarif", "github"):
    out = os.path.join(WORK, "report." + fmt)
    r = verify(fmt, out)
    check(r.returncode == 1, f"{fmt}: verify exits 1 (a binding and a missing session fail)",
          f"exit {r.returncode}: {r.stderr.decode(errors='replace')}")
    check(os.path.exists(out), f"{fmt}: the report is written")
    reports[fmt] = open(out, "rb").read() if os.path.exists(out) else b""
    err_lines = r.stderr.decode(errors="replace").splitlines()
    check(any("not a regular file" in l for l in err_lines) and
          all(l.startswith("boxcert-verify: ") for l in err_lines),
          f"{fmt}: the FIFO is one error line naming it", "\n".join(err_lines))

# ---- json: the report's JSON Schema, every result, skipped, rows -------------------------
schema = json.loads(run(B, "schema", "report").stdout)
Draft202012Validator.check_schema(schema)
doc = json.loads(reports["json"])
errs = list(Draft202012Validator(schema).iter_errors(doc))
check(not errs, "json: valid against boxcert schema report", "\n".join(e.message[:200] for e in errs[:3]))


def split_line(file):
    m = re.fullmatch(r"(.*):([0-9]+)", file)
    return (m.group(1), int(m.group(2))) if m and m.group(1).endswith(".jsonl") else (file, 0)


got = sorted((unescape(split_line(x["file"])[0]), split_line(x["file"])[1]) for x in doc["results"])
check(got == want_results, "json: every result, its name decoded to the bytes on disk",
      f"got {got}\nwant {want_results}")
check(sorted(unescape(x["file"]) for x in doc.get("skipped", [])) == sorted(skipped),
      "json: the skipped entries, decoded", doc.get("skipped"))
check(doc["summary"]["total"] == len(want_results) and doc["summary"]["skipped"] == len(skipped),
      "json: the summary counts them", doc["summary"])
rows = {(r_["containerId"], r_["name"]): r_["verdict"] for r_ in doc.get("sessions", [])}
check(len(doc.get("sessions", [])) == 3 and rows.get((None, "never-seen")) == "missing"
      and rows.get(("ef" * 32, None)) == "missing",
      "json: a row per expected session, the unseen ones missing", doc.get("sessions"))
labels = [f["observed"] for x in doc["results"] for f in x["findings"]
          if f["rule"] == "certificate.binding" and isinstance(f["observed"], dict)]
check(labels and all(l.get("note") == EVIL for l in labels), "json: the hostile label carried intact")
names = {x["session"]["name"] for x in doc["results"] if x["session"]}
check(set(SESSION_NAMES) <= names, "json: every hostile session name carried intact", names)

# ---- sarif: the SARIF 2.1.0 schema, URIs, every failing finding and every input --------------
sarif_schema = json.load(open(os.path.join(SRC, "tests", "lib", "sarif", "sarif-2.1.0-rtm.5.json")))
Draft4Validator.check_schema(sarif_schema)
sdoc = json.loads(reports["sarif"])
errs = list(Draft4Validator(sarif_schema).iter_errors(sdoc))
check(not errs, "sarif: valid against the SARIF 2.1.0 schema", "\n".join(e.message[:200] for e in errs[:3]))
URI = re.compile(r"^[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*$")
run0 = sdoc["runs"][0]
uris = [loc["physicalLocation"]["artifactLocation"]["uri"] for x in run0["results"]
        for loc in x["locations"] if "physicalLocation" in loc]
uris += [i_["uri"] for i_ in run0["properties"]["inputs"]]
check(uris and all(URI.match(u) and not re.search(r"%(?![0-9A-F]{2})", u) for u in uris),
      "sarif: every uri is an RFC 3986 path", [u for u in uris if not URI.match(u)][:3])
got = sorted((urllib.parse.unquote_to_bytes(i_["uri"]), i_["line"]) for i_ in run0["properties"]["inputs"])
check(got == want_results, "sarif: every result among the inputs, its uri decoded to the bytes", got)
failing = {urllib.parse.unquote_to_bytes(loc["physicalLocation"]["artifactLocation"]["uri"])
           for x in run0["results"] for loc in x["locations"] if "physicalLocation" in loc}
check({p for p, _ in want_results} <= failing, "sarif: every failing certificate has a result")
notes = run0.get("invocations", [{}])[0].get("toolExecutionNotifications", [])
check(sorted(urllib.parse.unquote_to_bytes(x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
             for x in notes) == sorted(skipped), "sarif: the skipped entries as notifications")
check(sum(1 for x in run0["results"] if x["ruleId"] == "certificate.missing") == 3,
      "sarif: the two missing sessions and the failing one are results")

# ---- junit: junitparser, xml.etree, xmllint ------------------------------------------------
jpath = os.path.join(WORK, "report.junit")
try:
    suites = junitparser.JUnitXml.fromfile(jpath)
    cases = [c for s_ in suites for c in s_]
    ok_ = True
except Exception as e:  # noqa: BLE001 - any parse error is the failure
    cases, ok_ = [], e
check(ok_ is True, "junit: junitparser reads it", ok_)
check(run("xmllint", "--noout", jpath).returncode == 0, "junit: xmllint finds it well-formed",
      run("xmllint", "--noout", jpath).stderr.decode(errors="replace"))
root = ET.parse(jpath).getroot()
classes = {c.get("classname") for c in root.iter("testcase")}


def junit_name(classname):
    m = re.fullmatch(r"(.*) [0-9a-f]{12}", classname)
    return m.group(1) if m else classname


got = sorted({split_line(unescape(junit_name(c)).decode("utf-8", "surrogateescape"))
              for c in classes if not c.startswith("expected session ")},
             key=lambda t: (t[0], t[1]))
want = sorted({(p.decode("utf-8", "surrogateescape"), l) for p, l in want_results} |
              {(p.decode("utf-8", "surrogateescape"), 0) for p in skipped})
check(got == want, "junit: a test case for every result and skipped entry, names decoded", got)
check(sum(1 for c in cases if c.is_skipped) == len(skipped), "junit: the skipped entries are skipped cases")
check(sum(1 for c in root.iter("testcase") if c.get("classname").startswith("expected session")) == 3,
      "junit: a test case per expected session")
text_all = "".join(root.itertext()) + "".join(v for e in root.iter() for v in e.attrib.values())
check(not HIDDEN.search(text_all), "junit: no control, noncharacter or invisible character raw",
      [hex(ord(c)) for c in HIDDEN.findall(text_all)][:5])

# ---- text: one line per result, each field where it belongs --------------------------------
text = reports["text"].decode("utf-8")
check(not HIDDEN.search(text.replace("\n", "")), "text: no control, bidi or invisible character raw",
      [hex(ord(c)) for c in HIDDEN.findall(text.replace("\n", ""))][:5])
FIELD = r'(?:"(?:[^"\\]|\\.)*"|[A-Za-z0-9._:/@+,~%-]+)'
LINE = re.compile(rf"^(PASS|FAIL) ({FIELD})(?: [0-9a-f]{{12}})?(?: session=({FIELD}) image=({FIELD}))?(?: signers=[0-9a-f]{{64}}(?:,[0-9a-f]{{64}})*)?$")
res_lines = [l for l in text.splitlines() if l.startswith(("PASS ", "FAIL "))]
parsed = [LINE.match(l) for l in res_lines]
check(all(parsed) and len(parsed) == len(want_results), "text: every result line parses as its fields",
      [l for l, m in zip(res_lines, parsed) if not m][:3])


def field(s):
    return unescape(s[1:-1]) if s.startswith('"') else s.encode()


got = sorted(split_line(field(m.group(2)).decode("utf-8", "surrogateescape")) for m in parsed if m)
want = sorted((p.decode("utf-8", "surrogateescape"), l) for p, l in want_results)
check(got == want, "text: every file name decoded", got)
sess = [field(m.group(3)).decode() for m in parsed if m and m.group(3)]
check(set(SESSION_NAMES) <= set(sess) and all(l.count(" session=") <= 1 or '"' in l for l in res_lines),
      "text: every session name decoded from its one field (none adds a field)", sess)
skip_lines = [l for l in text.splitlines() if l.startswith("SKIP ")]
check(len(skip_lines) == len(skipped), "text: a SKIP line per skipped entry", skip_lines)
check(sum(1 for l in text.splitlines() if l.startswith("MISSING ")) == 2, "text: the missing sessions")

# ---- github: annotations GitHub reads back ---------------------------------------------------
gh = reports["github"].decode("utf-8")
check(not HIDDEN.search(gh.replace("\n", "")), "github: no control, bidi or invisible character raw")
check(not re.search(r"^::(?!error |notice |warning )", gh, re.M), "github: no command but boxcert's own")


def gh_decode(s):
    return s.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")


files = set()
for l in gh.splitlines():
    m = re.match(r"^::(?:error|notice) file=([^,:]*)(?:,line=([0-9]+))?,title=", l)
    if m:
        files.add((unescape(gh_decode(m.group(1))), int(m.group(2) or 0)))
    elif l.startswith("PASS "):
        files.add(split_line(unescape(l[5:])))
check({p for p, _ in want_results} <= {p for p, _ in files}, "github: every result's file decoded",
      sorted(files))
check(sum(1 for l in gh.splitlines() if l.startswith("::error title=certificate.missing::")) == 3,
      "github: an error per session without a passing certificate")

# ---- the audit's formats: html and every other from one hostile report -----------------------
adoc = json.load(open(os.path.join(SRC, "fixtures", "audit", "example", "report.json")))
adoc["sessions"][0]["name"] = "row\u202eevil\ufffe"
adoc["certificates"][0]["file"] = "certs/bad\\x80\u2066.intoto.json"
apath = os.path.join(WORK, "audit.json")
json.dump(adoc, open(apath, "w"))
for fmt in ("html", "text", "github", "junit", "sarif"):
    r = run(B, "audit", "--from-json", apath, "--format", fmt)
    out = r.stdout.decode("utf-8")
    if fmt == "sarif":  # JSON: carries every character as it is, read by a JSON parser
        sd = json.loads(out)
        errs = list(Draft4Validator(sarif_schema).iter_errors(sd))
        check(not errs, "audit sarif: valid against the SARIF 2.1.0 schema", [e.message[:200] for e in errs[:2]])
        cres = sorted((x["ruleId"], x["level"], x["properties"]["certificateId"])
                      for x in sd["runs"][0]["results"] if x["ruleId"] in ("audit.rejected", "audit.unmatched"))
        want = sorted(("audit." + c["status"], "warning" if c["status"] == "rejected" else "note",
                       c["certificateId"]) for c in adoc["certificates"])
        check(cres == want and len(want) == 2, "audit sarif: a result for every certificate of no row", cres)
        continue
    if fmt in ("junit", "github"):  # every certificate of no row, by its id or its file
        for c in adoc["certificates"]:
            base = c["file"].rsplit("/", 1)[-1].split("\\")[0]
            kind = "rejected" if c["status"] == "rejected" else "unmatched"
            hit = [l for l in out.splitlines() if base in l]
            if fmt == "github":
                hit = [l for l in hit if l.startswith(("::warning " if kind == "rejected" else "::notice "))
                       and f"title=audit.{kind}::" in l]
            check(len(hit) == 1, f"audit {fmt}: the {kind} certificate listed once", hit)
    check(r.returncode == 1 and not HIDDEN.search(out.replace("\n", "")),
          f"audit {fmt}: no bidi, noncharacter or control raw", [hex(ord(c)) for c in HIDDEN.findall(out)][:5])
    check("\\u{202E}" in out and ("\\x80" in out or fmt not in ("html", "text")),
          f"audit {fmt}: shown as escapes")
    if fmt == "junit":
        check(run("xmllint", "--noout", "-", input=r.stdout).returncode == 0, "audit junit: well-formed")
        import xml.etree.ElementTree as ET
        suite = ET.fromstring(r.stdout).find("testsuite")
        tcs = suite.findall("testcase")
        counts = (int(suite.get("tests")), int(suite.get("skipped") or 0))
        check(counts == (len(tcs), sum(1 for t in tcs if t.find("skipped") is not None)) and counts[1] == 2,
              "audit junit: tests and skipped count its cases", counts)

print(f"1..{n}")
sys.exit(1 if failed else 0)
