# SPDX-License-Identifier: Apache-2.0
"""The GitHub Action (action.yml) and the GitLab CI template (ci/boxcert-verify.gitlab-ci.yml)
run as a runner runs them (tests/cli/ci_recipes.sh).

usage: /usr/bin/python3 ci_recipes.py SOURCE_DIR BUILD_DIR WORK_DIR DEB

The shell lines are read from the files themselves, never copied: each step's `run:` (its
`env:` with the `${{ inputs.* }}` and `${{ github.run_id }}` a runner gives, under
`bash --noprofile --norc -eo pipefail`, with GITHUB_PATH, GITHUB_OUTPUT and
GITHUB_STEP_SUMMARY files) and the template job's `script:` (its variables, in one bash, as
GitLab's shell executor joins them). Each runs in a clean workspace with no reports folder,
with PATH holding only the system's folders, so the boxcert-verify used is the one the
install step extracted from DEB (a path, then a file:// URL with its SHA-256). Then: a seen
file in a folder that does not exist yet; a re-run of the same run on the same runner (the
same seen file) passes, another run presenting the certificates fails certificate.replay;
a hostile input is data, never code. Prints TAP; exits 1 on any failure.
"""
import html
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import yaml
import junitparser
from jsonschema import Draft4Validator

SRC, BUILD, WORK, DEB = sys.argv[1:5]
MK = os.path.join(BUILD, "tests", "tools", "mkcert")
FIX = os.path.join(SRC, "fixtures", "certificate")
SYSTEM_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"
n = failed = 0


def check(cond, name, detail=""):
    global n, failed
    n += 1
    print(("ok" if cond else "not ok") + f" {n} - {name}")
    if not cond:
        failed += 1
        for line in str(detail).splitlines()[-14:]:
            print("#   " + line)
    sys.stdout.flush()
    return cond


action = yaml.safe_load(open(os.path.join(SRC, "action.yml")))
gitlab = yaml.safe_load(open(os.path.join(SRC, "ci", "boxcert-verify.gitlab-ci.yml")))
job = gitlab[".boxcert-verify"]

# ---- what the files say ---------------------------------------------------------------------
steps = action["runs"]["steps"]
check(action["runs"]["using"] == "composite", "action.yml: a composite action")
check(set(action["inputs"]) >= {"deb", "policy", "certificates", "expect", "seen"},
      "action.yml: inputs deb, policy, certificates, expect, seen", sorted(action["inputs"]))
check(all("${{" not in s.get("run", "") for s in steps),
      "action.yml: no expression spliced into a script (inputs come through env)")
upload = [s for s in steps if "uses" in s]
check(len(upload) == 1 and upload[0]["uses"].startswith("github/codeql-action/upload-sarif@")
      and upload[0]["with"]["sarif_file"] == "${{ steps.verify.outputs.sarif }}"
      and "always()" in upload[0]["if"], "action.yml: uploads the SARIF report, also when the gate fails",
      upload)
check(job["artifacts"]["when"] == "always" and job["artifacts"]["reports"]["junit"] == "boxcert-reports/boxcert.xml",
      "gitlab: the JUnit report as a report artifact, always", job["artifacts"])
check(not re.search(r"\|\|\s*true", json.dumps(action) + json.dumps(job)), "no '|| true' hides a failure")

# ---- certificates ---------------------------------------------------------------------------
os.makedirs(WORK, exist_ok=True)
key = os.path.join(WORK, "k.key")
with open(os.path.join(FIX, "keys", "regress-ed25519.key"), "rb") as f:
    data = f.read()
fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
os.write(fd, data)
os.close(fd)
base = os.path.join(WORK, "base.json")
with open(base, "wb") as f:
    f.write(subprocess.run([MK, "statement", "--inspect", os.path.join(SRC, "fixtures", "inspect", "hardened")],
                           capture_output=True, check=True).stdout)


def cert(path, name, *sets):
    args = [MK, "envelope", "--statement", base, "--set", "/predicate/session/name", json.dumps(name)]
    for ptr, val in sets:
        args += ["--set", ptr, json.dumps(val)]
    out = subprocess.run(args + ["--fix-inputs", "--key", key], capture_output=True, check=True).stdout
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "wb").write(out)


INPUTS = os.path.join(WORK, "inputs")  # what a repository holds: certificates, policy, keys
cert(os.path.join(INPUTS, "good", "a.intoto.json"), "build-a")
cert(os.path.join(INPUTS, "good", "b.intoto.json"), "build-b", ("/predicate/nonce", "ab" * 16))
cert(os.path.join(INPUTS, "bad", "a.intoto.json"), "build-a")
cert(os.path.join(INPUTS, "bad", "weak.intoto.json"), "build-weak",
     ("/predicate/containment/rootfs/readOnly", False), ("/predicate/nonce", "cd" * 16))
shutil.copy(os.path.join(FIX, "policy.yaml"), os.path.join(INPUTS, "policy.yaml"))
os.makedirs(os.path.join(INPUTS, "keys"), exist_ok=True)
for k in ("regress-ed25519.pub", "regress-p256.pub"):
    shutil.copy(os.path.join(FIX, "keys", k), os.path.join(INPUTS, "keys", k))
json.dump({"version": 1, "sessions": [{"name": "build-a"}, {"name": "build-weak"}, {"name": "build-never"}]},
          open(os.path.join(INPUTS, "bad", "sessions.json"), "w"))


def workspace(name):
    """A clean checkout: the repository's files, no reports folder."""
    ws = os.path.join(WORK, name)
    shutil.rmtree(ws, ignore_errors=True)
    shutil.copytree(INPUTS, ws)
    return ws


def runner_env(ws, temp):
    os.makedirs(temp, exist_ok=True)
    return {"PATH": SYSTEM_PATH, "HOME": temp, "LANG": "C.UTF-8", "CI": "true"}


# ---- GitHub: the composite action's steps ------------------------------------------------------
def expr(s, inputs, run_id):
    def one(m):
        e = m.group(1).strip()
        if e.startswith("inputs."):
            return inputs[e[7:]]
        if e == "github.run_id":
            return run_id
        raise ValueError(f"an expression the test does not give: {e}")
    return re.sub(r"\$\{\{(.*?)\}\}", one, str(s))


def github(ws, temp, run_id, **given):
    inputs = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
    inputs.update(given)
    env = runner_env(ws, temp)
    files = {k: os.path.join(temp, k.lower()) for k in ("GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY")}
    for f in files.values():
        open(f, "w").close()
    log, rc, outputs = "", 0, {}
    for step in steps:
        if "run" not in step:
            continue
        e = dict(env, RUNNER_TEMP=temp, GITHUB_WORKSPACE=ws, GITHUB_RUN_ID=run_id, GITHUB_ACTIONS="true",
                 **files)
        extra = [l for l in open(files["GITHUB_PATH"]).read().splitlines() if l]
        e["PATH"] = ":".join(reversed(extra)) + (":" if extra else "") + env["PATH"]
        e.update({k: expr(v, inputs, run_id) for k, v in step.get("env", {}).items()})
        script = os.path.join(temp, f"step-{step.get('id', len(log))}.sh")
        open(script, "w").write(step["run"])
        p = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", script], cwd=ws, env=e,
                           capture_output=True, timeout=120)
        log += f"--- {step['name']} (exit {p.returncode})\n" + p.stdout.decode(errors="replace") + \
            p.stderr.decode(errors="replace")
        if p.returncode:
            rc = p.returncode
            break
    for line in open(files["GITHUB_OUTPUT"]).read().splitlines():
        k, _, v = line.partition("=")
        outputs[k] = v
    return rc, log, outputs, open(files["GITHUB_STEP_SUMMARY"]).read()


# ---- GitLab: the template job's script --------------------------------------------------------
def gitlab_job(ws, temp, pipeline, **given):
    env = runner_env(ws, temp)
    env.update({k: str(v) for k, v in job["variables"].items()})
    env.update(given)
    env.update(CI_JOB_ID=str(abs(hash(ws)) % 100000), CI_PIPELINE_ID=pipeline, TMPDIR=temp,
               CI_PROJECT_DIR=ws, GITLAB_CI="true")
    script = os.path.join(temp, "job.sh")
    open(script, "w").write("\n".join(job["script"]) + "\n")
    p = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", script], cwd=ws, env=env,
                       capture_output=True, timeout=120)
    return p.returncode, p.stdout.decode(errors="replace") + p.stderr.decode(errors="replace")


sarif_schema = json.load(open(os.path.join(SRC, "tests", "lib", "sarif", "sarif-2.1.0-rtm.5.json")))


def reports_whole(ws, what):
    r = os.path.join(ws, "boxcert-reports")
    names = ["boxcert.sarif", "boxcert.xml", "boxcert.json", "summary.md"]
    if not check(all(os.path.isfile(os.path.join(r, x)) for x in names),
                 f"{what}: the reports folder was made, with every report",
                 os.listdir(r) if os.path.isdir(r) else "no folder"):
        return None
    sd = json.load(open(os.path.join(r, "boxcert.sarif")))
    errs = list(Draft4Validator(sarif_schema).iter_errors(sd))
    check(not errs, f"{what}: the SARIF report is valid SARIF 2.1.0", [e.message[:160] for e in errs[:2]])
    try:
        cases = [c for s in junitparser.JUnitXml.fromfile(os.path.join(r, "boxcert.xml")) for c in s]
    except Exception as e:  # noqa: BLE001 - a parse error is the failure
        cases = e
    check(isinstance(cases, list) and cases, f"{what}: the JUnit report reads", cases)
    return json.load(open(os.path.join(r, "boxcert.json")))


def tool_used(log):
    m = re.search(r"^boxcert-verify (\S+)$", log, re.M)
    return m.group(1) if m else None


version = subprocess.run(["dpkg-deb", "--field", DEB, "Version"], capture_output=True).stdout.decode().strip()
keys = "keys/regress-ed25519.pub\nkeys/regress-p256.pub\n"

for kind in ("github", "gitlab"):
    temp = os.path.join(WORK, kind + "-runner")  # the runner's own disk, kept between runs
    shutil.rmtree(temp, ignore_errors=True)
    seen = os.path.join(temp, "state", "gate", "seen.jsonl")  # a folder that does not exist yet

    def go(ws, run_id, **given):
        if kind == "github":
            return github(ws, temp, run_id, **given)
        g = {"BOXCERT_DEB": given.get("deb", ""), "BOXCERT_DEB_SHA256": given.get("deb-sha256", ""),
             "GATE_CERTIFICATES": given.get("certificates", ""), "GATE_POLICY": given.get("policy", ""),
             "GATE_KEYS": given.get("keys", ""), "GATE_EXPECT": given.get("expect", ""),
             "GATE_SEEN": given.get("seen", ""), "GATE_ARGS": given.get("args", "")}
        rc, log = gitlab_job(ws, temp, run_id, **g)
        return rc, log, {}, ""

    # 1. a clean folder, no reports folder, a failing certificate and a missing session
    ws = workspace(kind + "-1")
    rc, log, out, summary = go(ws, "1001", deb=DEB, certificates="bad", policy="policy.yaml", keys=keys,
                               expect="bad/sessions.json")
    check(rc == 1, f"{kind}: a failing gate fails the job (exit 1)", log)
    check(tool_used(log) == version, f"{kind}: the boxcert-verify of the .deb ({version}) ran", log)
    doc = reports_whole(ws, kind)
    if doc:
        check(doc["summary"]["failed"] == 1 and doc["summary"]["sessions"]["missing"] == 1,
              f"{kind}: the reports say what failed", doc["summary"])
    if kind == "github":
        check(re.search(r"^::error file=bad/weak\.intoto\.json,title=containment\.rootfs::", log, re.M),
              "github: the failure annotated", log)
        # a name's '.', ':' and '@' are entities in the summary (no autolink): read them back
        rows = [html.unescape(l).replace("\u200b", "") for l in summary.splitlines() if l.startswith("| **")]
        check(summary.startswith("### boxcert verify: FAIL") and len(rows) == 3
              and any(l.startswith("| **FAIL** | bad/weak.intoto.json | build-weak |") for l in rows)
              and any(l.startswith("| **NONCOMPLIANT** |") and "build-weak" in l for l in rows)
              and any(l.startswith("| **MISSING**") and "build-never" in l for l in rows),
              "github: the step summary has a row for every failing session", summary[:600])
        check(out.get("exit-code") == "1" and out.get("sarif") == "boxcert-reports/boxcert.sarif",
              "github: the outputs exit-code and sarif (for the upload step)", out)
    else:
        check(re.search(r"^FAIL bad/weak\.intoto\.json", log, re.M), "gitlab: the failure in the job log", log)

    # 2. a passing gate with a seen file whose folder does not exist
    ws = workspace(kind + "-2")
    rc, log, out, summary = go(ws, "1002", deb=DEB, certificates="good", policy="policy.yaml", keys=keys,
                               seen=seen)
    check(rc == 0, f"{kind}: a passing gate passes, the seen file's folder made", log)
    check(os.path.isfile(seen) and sum(1 for l in open(seen) if "certificateId" in l) == 2,
          f"{kind}: both certificates recorded", open(seen).read() if os.path.exists(seen) else "no file")
    if kind == "github":
        check("### boxcert verify: PASS" in summary and "| **" not in summary, "github: a passing summary, no rows")

    # 3. a re-run of the same run on the same runner (the same seen file): it passes
    ws = workspace(kind + "-3")
    rc, log, out, summary = go(ws, "1002", deb=DEB, certificates="good", policy="policy.yaml", keys=keys,
                               seen=seen)
    check(rc == 0, f"{kind}: a re-run of the same run passes (no certificate.replay)", log)
    # ... another run presenting the same certificates: a replay
    ws = workspace(kind + "-4")
    rc, log, out, summary = go(ws, "1003", deb=DEB, certificates="good", policy="policy.yaml", keys=keys,
                               seen=seen)
    doc = json.load(open(os.path.join(ws, "boxcert-reports", "boxcert.json")))
    replays = [f for x in doc["results"] for f in x["findings"]
               if f["rule"] == "certificate.replay" and f["status"] == "fail"]
    check(rc == 1 and len(replays) == 2, f"{kind}: another run presenting them fails certificate.replay", log)

    # 4. the .deb from a file:// URL with its SHA-256; a wrong one, or none, stops before installing
    sha = hashlib.sha256(open(DEB, "rb").read()).hexdigest()
    url = "file://" + os.path.abspath(DEB)
    ws = workspace(kind + "-5")
    rc, log, out, summary = go(ws, "1004", deb=url, **{"deb-sha256": sha}, certificates="good",
                               policy="policy.yaml", keys=keys)
    check(rc == 0 and tool_used(log) == version, f"{kind}: the .deb from a URL with its SHA-256", log)
    for bad_sha, what in (("0" * 64, "a wrong SHA-256"), ("", "no SHA-256")):
        ws = workspace(kind + "-6")
        rc, log, out, summary = go(ws, "1005", deb=url, **{"deb-sha256": bad_sha}, certificates="good",
                                   policy="policy.yaml", keys=keys)
        check(rc == 2 and tool_used(log) is None and not os.path.exists(os.path.join(ws, "boxcert-reports")),
              f"{kind}: a URL with {what}: exit 2, nothing installed or verified", log)

    # 5. hostile inputs are data: a folder named like a command, an argument with a space
    ws = workspace(kind + "-7")
    hostile = "c $(touch PWNED) `touch PWNED2`; touch PWNED3"
    shutil.copytree(os.path.join(ws, "good"), os.path.join(ws, hostile))
    rc, log, out, summary = go(ws, "1006", deb=DEB, certificates=hostile, policy="policy.yaml", keys=keys,
                               args="--expect-label=boxcert.test=helper-c\n")
    check(rc == 0 and not any(os.path.exists(os.path.join(ws, p)) for p in ("PWNED", "PWNED2", "PWNED3")),
          f"{kind}: a hostile input is a name, never run; args one a line", log)

print(f"1..{n}")
sys.exit(1 if failed else 0)
