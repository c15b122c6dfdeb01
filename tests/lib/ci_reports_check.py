# SPDX-License-Identifier: Apache-2.0
"""What a CI shows of a verification, read as CI reads it (tests/cli/ci_reports.sh).

usage: /usr/bin/python3 ci_reports_check.py BIN_DIR SOURCE_DIR BUILD_DIR WORK_DIR

- every rule docs/policy.md and docs/certificate.md name has a description of its own in
  cli/rules.c (short, full, help, security-severity);
- one verification written in every format at once (--report F=FILE): SARIF valid against the
  SARIF 2.1.0 schema, each rule described, each result with partialFingerprints that stay the
  same across runs and differ across rules; JUnit and SARIF carry the policy's name and
  SHA-256, every format the tool's version and the time judged at;
- the Markdown step summary: a row for every failing result and expected session (each with
  its five cells, hostile names carried as text), none for a passing one, cut short of 1 MiB
  with the count of the rows left out;
- the audit's JUnit: an unreachable engine, and its sessions, are <error>, not <failure>.
Prints TAP; exits 1 on any failure.
"""
import hashlib
import html
import json
import os
import re
import subprocess
import sys
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


def run(*args, **kw):
    return subprocess.run(list(args), capture_output=True, timeout=120, **kw)


VERSION = run(V, "--version").stdout.decode().split("\n")[0].split()[1]

# ---- the rules' descriptions cover the documented rules ---------------------------------
rules_c = open(os.path.join(SRC, "cli", "rules.c")).read()
described = set(re.findall(r'^\s*\{"([a-z]+\.[a-z0-9_.]+)", "([0-9.]+)"', rules_c, re.M))
ids = {i for i, _ in described}
doc_rules = set()
policy_md = open(os.path.join(SRC, "docs", "policy.md")).read()
rules_table = policy_md[policy_md.index("| rule | checks |"):]
rules_table = rules_table[:rules_table.index("\n\n")]
doc_rules |= set(re.findall(r"^\| `([a-z_.]+)` \|", rules_table, re.M))
doc_rules |= {"cis." + c for c in re.findall(r"^\| ([45]\.[0-9]+) \|", policy_md, re.M)}
cert_md = open(os.path.join(SRC, "docs", "certificate.md")).read()
order = cert_md[cert_md.index("## 5. Verification order"):]
order = order[:order.index("\n## ", 5)]
doc_rules |= {r for r in re.findall(r"`((?:certificate|signature)\.[a-z_]+)`", order)}
audit_md = open(os.path.join(SRC, "docs", "audit.md")).read()
doc_rules |= set(re.findall(r"`(audit\.[a-z]+)`", audit_md))
check(len(doc_rules) > 80 and doc_rules <= ids, "every documented rule has a description",
      sorted(doc_rules - ids))
check(all(0 < float(sev) <= 10 for _, sev in described), "every security-severity is in 0..10")

# ---- a gate folder: failing and passing certificates with hostile names ----------------------
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


def cert(path, session_name, *sets):
    args = [MK, "envelope", "--statement", base, "--set", "/predicate/session/name",
            json.dumps(session_name)]
    for ptr, val in sets:
        args += ["--set", ptr, json.dumps(val)]
    r = run(*args, "--fix-inputs", "--key", key)
    if r.returncode:
        print("Bail out! mkcert: " + r.stderr.decode(errors="replace"))
        sys.exit(1)
    with open(path, "wb") as f:
        f.write(r.stdout)
    return r.stdout


gate = os.path.join(WORK, "gate")
os.makedirs(gate, exist_ok=True)
WEAK = [("/predicate/containment/rootfs/readOnly", False),
        ("/predicate/containment/noNewPrivileges", False)]
HOSTILE = ["pipe|cell|", "tag <img src=x onerror=alert(1)>", "*emph* _u_ [link](http://x) `code`",
           "back\\slash &amp; \u202eevil", "plain"]
failing = []
for i, name in enumerate(HOSTILE):
    fname = f"f{i}-{name[:4].replace('/', '_')}.intoto.json"
    cert(os.path.join(gate, fname), name, *WEAK)
    failing.append((fname, name))
cert(os.path.join(gate, "ok.intoto.json"), "passing-one")
policy = os.path.join(FIX, "policy.yaml")
expect_file = os.path.join(WORK, "expect.json")
json.dump({"version": 1, "sessions": [{"name": "never-seen"}]}, open(expect_file, "w"))


def verify(*extra, folder=gate):
    return run(V, "verify", folder, "--policy", policy, "--at", AT, *extra, cwd=WORK)


out = {f: os.path.join(WORK, "r." + f) for f in ("sarif", "junit", "json", "markdown", "github")}
r = verify("--expect", expect_file, "--format", "text",
           *[a for f in out for a in ("--report", f"{f}={out[f]}")])
check(r.returncode == 1, "one verification in every format: exit 1 (some fail)", r.stderr.decode())
check(all(os.path.exists(p) for p in out.values()), "... every --report file written")
text_last = r.stdout.decode().splitlines()[-1]
check(re.fullmatch(rf"boxcert-verify {re.escape(VERSION)}; policy \S+ sha256:[0-9a-f]{{64}}; "
                   rf"verified at {AT}", text_last), "text: the tool, the policy and the time", text_last)
gh_last = open(out["github"]).read().splitlines()[-1]
check(gh_last == text_last and not gh_last.startswith("::"), "github: the same, as a plain line", gh_last)

doc = json.load(open(out["json"]))
schema = json.loads(run(B, "schema", "report").stdout)
errs = list(Draft202012Validator(schema).iter_errors(doc))
check(not errs, "json: valid against boxcert schema report", [e.message[:200] for e in errs[:3]])
check(doc.get("tool") == {"name": "boxcert-verify", "version": VERSION} and doc.get("verifiedAt") == AT,
      "json: the tool and the time", {k: doc.get(k) for k in ("tool", "verifiedAt")})
policy_sha = doc["policy"]["sha256"]

# ---- sarif ---------------------------------------------------------------------------------
sarif_schema = json.load(open(os.path.join(SRC, "tests", "lib", "sarif", "sarif-2.1.0-rtm.5.json")))
sd = json.load(open(out["sarif"]))
errs = list(Draft4Validator(sarif_schema).iter_errors(sd))
check(not errs, "sarif: valid against the SARIF 2.1.0 schema", [e.message[:200] for e in errs[:3]])
run0 = sd["runs"][0]
rules = run0["tool"]["driver"]["rules"]
bad = [x["id"] for x in rules
       if not (x.get("shortDescription", {}).get("text") and x.get("fullDescription", {}).get("text")
               and x.get("help", {}).get("text") and x.get("help", {}).get("markdown")
               and re.fullmatch(r"[0-9]+\.[0-9]", x.get("properties", {}).get("security-severity", ""))
               and x["shortDescription"]["text"] != "A boxcert rule")]
check(rules and not bad, "sarif: every rule with its descriptions, help and security-severity", bad)
check({x["ruleId"] for x in run0["results"]} == {x["id"] for x in rules},
      "sarif: a rule for every result's ruleId")
sev = {x["id"]: x["properties"]["security-severity"] for x in rules}
want_sev = dict(described)
check(all(want_sev.get(k) == v for k, v in sev.items()), "sarif: the severities are the table's")
fps = [x.get("partialFingerprints", {}).get("boxcertFinding/v1", "") for x in run0["results"]]
check(fps and all(re.fullmatch(r"[0-9a-f]{32}", f) for f in fps), "sarif: partialFingerprints on every result")
check(len(set(fps)) == len(fps), "sarif: a fingerprint per finding (rule, file, session)")
check(run0["properties"].get("policySha256") == policy_sha and run0["properties"].get("verifiedAt") == AT
      and run0["properties"].get("tool") == f"boxcert-verify {VERSION}" and run0["properties"].get("policy"),
      "sarif: the policy's name and SHA-256, the tool and the time", run0["properties"])
# the same findings in a later run: new certificates (new ids), the same names
for fname, name in failing:
    cert(os.path.join(gate, fname), name, *WEAK, ("/predicate/nonce", "0123456789abcdef0123456789abcdef"))
r2 = verify("--expect", expect_file, "--format", "sarif", "--output", os.path.join(WORK, "r2.sarif"))
sd2 = json.load(open(os.path.join(WORK, "r2.sarif")))
ids1 = {x["properties"].get("certificateId") for x in run0["results"]} - {None}
ids2 = {x["properties"].get("certificateId") for x in sd2["runs"][0]["results"]} - {None}
fps2 = [x["partialFingerprints"]["boxcertFinding/v1"] for x in sd2["runs"][0]["results"]]
check(ids1 and ids1.isdisjoint(ids2) and sorted(fps2) == sorted(fps),
      "sarif: a later run's certificates, the same fingerprints (tracked across runs)")

# ---- junit ---------------------------------------------------------------------------------
suite = ET.parse(out["junit"]).getroot().find("testsuite")
props = {p.get("name"): p.get("value") for p in suite.find("properties")}
check(props == {"tool": f"boxcert-verify {VERSION}", "verifiedAt": AT, "policy": doc["policy"]["name"],
                "policySha256": policy_sha}, "junit: the tool, the time, the policy's name and SHA-256", props)
check(suite.get("timestamp") == AT[:19], "junit: the testsuite's timestamp", suite.get("timestamp"))
try:
    jx = junitparser.JUnitXml.fromfile(out["junit"])
    jprops = {p.name: p.value for s_ in jx for p in s_.properties()}
    check(jprops == props, "junit: junitparser reads the properties")
except Exception as e:  # noqa: BLE001 - a parse error is the failure
    check(False, "junit: junitparser reads the properties", e)

# ---- markdown: the step summary --------------------------------------------------------------
md = open(out["markdown"], encoding="utf-8").read()
check(md.startswith("### boxcert verify: FAIL\n"), "markdown: the verdict first", md[:80])
rows = [l for l in md.splitlines() if l.startswith("| **")]


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


check(all(len(cells(l)) == 5 for l in rows), "markdown: five cells in every row (no name ends one)",
      [l for l in rows if len(cells(l)) != 5][:2])
def human(name):  # the human escaping of these names (docs/ci.md, "Encodings")
    return name.replace("\\", "\\\\").replace("\u202e", "\\u{202E}")


fail_rows = {html.unescape(cells(l)[2]): l for l in rows if cells(l)[0] == "**FAIL**"}
check(sorted(fail_rows) == sorted(human(n_) for _, n_ in failing),
      "markdown: a row for every failing certificate, its session name read back as written",
      sorted(fail_rows))
check("passing-one" not in md, "markdown: ... and none for a passing one")
check(any(cells(l)[0] == "**MISSING**" and html.unescape(cells(l)[2]) == "never-seen" for l in rows),
      "markdown: the expected session without a certificate", rows[-1:])
raw_tags = re.findall(r"<(?!/?code>|br>)[^>]*>", md)
check(not raw_tags and "\u202e" not in md, "markdown: no tag but <code> and <br>, no raw bidi control", raw_tags[:3])
files = {html.unescape(cells(l)[1]) for l in fail_rows.values()}
check(files == {os.path.join(gate, f) for f, _ in failing}, "markdown: each row's file", files)
check("<code>containment.rootfs</code>" in md.replace("&#95;", "_").replace("&#46;", "."),
      "markdown: each failed rule named in the row")
check(re.search(rf"boxcert-verify {re.escape(VERSION)} · policy <code>.+</code> sha256 <code>{policy_sha}</code>"
                rf" · verified at {AT}", md), "markdown: the tool, the policy and the time")

# cut short of GitHub's 1 MiB, saying how many rows it left out
big = os.path.join(WORK, "big")
os.makedirs(big, exist_ok=True)
line = open(os.path.join(gate, failing[-1][0]), "rb").read().strip()
N = 4000
with open(os.path.join(big, "many.intoto.jsonl"), "wb") as f:
    f.write(b"\n".join([line] * N) + b"\n")
r = verify("--format", "markdown", "--output", os.path.join(WORK, "big.md"), folder=big)
bigmd = open(os.path.join(WORK, "big.md"), "rb").read()
shown = sum(1 for l in bigmd.decode().splitlines() if l.startswith("| **FAIL**"))
m = re.search(r"\*\*([0-9]+) more failing rows not shown\*\*", bigmd.decode())
check(r.returncode == 1 and len(bigmd) < 1024 * 1024, "markdown: under 1 MiB for a step summary",
      f"{len(bigmd)} bytes, exit {r.returncode}")
check(m and shown + int(m.group(1)) == N and shown > 100, "markdown: says how many rows it left out",
      f"shown {shown}, said {m and m.group(1)}")

# ---- --report: one verification, bad arguments ------------------------------------------------
seen = os.path.join(WORK, "seen.jsonl")
ok_folder = os.path.join(WORK, "okgate")
os.makedirs(ok_folder, exist_ok=True)
cert(os.path.join(ok_folder, "a.intoto.json"), "passing-one")
r = verify("--seen", seen, "--seen-run", "77", "--report", f"json={WORK}/s.json",
           "--report", f"sarif={WORK}/s.sarif", folder=ok_folder)
check(r.returncode == 0 and sum(1 for l in open(seen) if "certificateId" in l) == 1,
      "--report with --seen: one verification, recorded once", r.stdout.decode() + r.stderr.decode())
r = verify("--seen", seen, "--seen-run", "77", "--report", f"json={WORK}/s2.json", folder=ok_folder)
check(r.returncode == 0 and json.load(open(f"{WORK}/s2.json"))["summary"]["passed"] == 1,
      "... and a re-run of the same run passes in every report")
for arg, msg in (("sarif", "is not FORMAT=FILE"), ("=x", "is not FORMAT=FILE"), ("xml=x", "unknown format 'xml'"),
                 ("json=-", "goes to a file"), (f"json={WORK}/nodir/x.json", "nodir")):
    r = verify("--report", arg, folder=ok_folder)
    err = r.stderr.decode().splitlines()
    check(r.returncode in (2, 3) and len(err) == 1 and msg in err[0] and err[0].startswith("boxcert-verify: "),
          f"--report {arg}: one line, exit 2 or 3", err)
check(not os.path.exists(f"{WORK}/nodir"), "... and nothing made")

# ---- the audit's junit: an unreachable engine is an <error> ---------------------------------
adoc = json.load(open(os.path.join(SRC, "fixtures", "audit", "example", "report.json")))
down = dict(adoc["engines"][0], endpoint="tcp://engine-b.invalid:2376", id=None, reachable=False,
            error="connection refused")
adoc["engines"].append(down)
row = next(s for s in adoc["sessions"] if s["verdict"] == "missing")
apath = os.path.join(WORK, "audit.json")
json.dump(adoc, open(apath, "w"))
r = run(B, "audit", "--from-json", apath, "--format", "junit")
root = ET.fromstring(r.stdout)
asuite = root.find("testsuite")
errs_ = [c for c in asuite.iter("testcase") if c.find("error") is not None]
check(any(c.get("classname") == "engines" and "tcp://engine-b.invalid:2376" == c.get("name")
          and "connection refused" in c.find("error").get("message") for c in errs_),
      "audit junit: the unreachable engine is an <error> test case", [c.get("name") for c in errs_])
check(int(asuite.get("errors")) == len(errs_) and int(root.get("errors")) == len(errs_) and len(errs_) >= 1,
      "audit junit: errors counts them", (asuite.get("errors"), len(errs_)))
check(all(c.find("failure") is None for c in errs_), "audit junit: an error is not also a failure")
aprops = {p.get("name"): p.get("value") for p in asuite.find("properties")}
check(aprops.get("policySha256") == adoc["policy"]["sha256"] and aprops.get("auditedAt") == adoc["auditedAt"]
      and aprops.get("tool", "").startswith("boxcert "), "audit junit: the policy, the tool and the time", aprops)
# a session whose engine could not be read: its cases are errors too
urow = json.loads(json.dumps(row))
urow.update(verdict="unreachable", name="on-engine-b")
urow["findings"] = [{"rule": "audit.engine", "status": "fail", "expected": "reachable", "observed": None,
                     "message": "its engine could not be reached"}]
adoc["sessions"].append(urow)
adoc["summary"]["sessions"] += 1
adoc["summary"]["unreachable"] += 1
json.dump(adoc, open(apath, "w"))
r = run(B, "audit", "--from-json", apath, "--format", "junit")
if check(r.stdout.startswith(b"<?xml"), "audit junit: a report with an unreachable session renders",
         r.stderr.decode()):
    cases = [c for c in ET.fromstring(r.stdout).iter("testcase") if c.get("classname").startswith("on-engine-b")]
    check(cases and all(c.find("error") is not None and c.find("failure") is None for c in cases),
          "audit junit: the unreachable session's cases are <error>", [ET.tostring(c)[:120] for c in cases])
asd = json.loads(run(B, "audit", "--from-json", apath, "--format", "sarif").stdout)
errs = list(Draft4Validator(sarif_schema).iter_errors(asd))
arules = asd["runs"][0]["tool"]["driver"]["rules"]
check(not errs and all(x["shortDescription"]["text"] != "A boxcert rule" for x in arules)
      and all("partialFingerprints" in x for x in asd["runs"][0]["results"] if x["ruleId"] != "audit.orphan"
              and x["ruleId"] not in ("audit.rejected", "audit.unmatched")),
      "audit sarif: valid, every rule described, session results fingerprinted",
      [e.message[:200] for e in errs[:2]])

print(f"1..{n}")
sys.exit(1 if failed else 0)
