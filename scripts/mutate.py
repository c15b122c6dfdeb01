#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""make mutate: does the suite catch a mistake in the code that decides a verdict?

Each mutation of tests/mutations/*.txt (one file per area, the file's name the area)
changes one line of a security check (a condition, a comparison, a bound or a return,
never a message) and names the engine-free tests (labels unit, fixture or cli) that must
catch it. In a scratch copy of the tree, built
once, each is applied in turn, only the named tests' targets are rebuilt, the named tests
run, and the line is put back. A mutation is killed when a named test fails; survived when
all pass. A pattern that matches no line or several, a build that fails, a test that times
out, a named test that does not exist or needs an engine: an error, never a kill. The named
tests run first unmutated: if one fails, nothing is judged.

  mutate.py [--list FILE]... [--only REGEX] [--keep] [--jobs N] [--workers N] [--check]
Prints one line per mutation and a summary with the wall time; exits 1 when any mutation
survived or any error occurred, 0 when every one was killed.
"""
import argparse
import concurrent.futures
import glob
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEP = " :: "
ENGINE_FREE = {"unit", "fixture", "cli"}
SHELL_TARGETS = ["boxcert", "boxcert-verify", "mkcert", "ledger_mkcert"]


def parse(path):
    muts, area = [], os.path.splitext(os.path.basename(path))[0]
    for n, raw in enumerate(open(path, encoding="utf-8"), 1):
        line = raw.rstrip("\n")
        if not line.strip():
            continue
        if line.startswith("#"):
            m = re.match(r"#\s*area:\s*(.+)", line)
            if m:
                area = m.group(1).strip()
            continue
        parts = line.split(SEP)
        if len(parts) != 4:
            sys.exit(f"{path}:{n}: want FILE{SEP}LINE{SEP}REPLACEMENT{SEP}TESTS")
        f, find, repl, tests = parts
        if find == repl:
            sys.exit(f"{path}:{n}: the replacement is the line itself")
        muts.append({"where": f"{os.path.relpath(path, ROOT)}:{n}", "area": area,
                     "file": f.strip(), "find": find, "replace": repl, "tests": tests.split()})
    return muts


def run(cmd, cwd, timeout, env=None):
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout, env=env)
        return p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        return None, (e.stdout or b"").decode(errors="replace")


def ctest_tests(build):
    rc, out = run(["ctest", "--show-only=json-v1"], build, 120)
    if rc != 0:
        sys.exit("mutate: ctest --show-only failed:\n" + out)
    tests = {}
    for t in json.loads(out)["tests"]:
        labels = set()
        for p in t.get("properties", []):
            if p["name"] == "LABELS":
                labels = set(p["value"])
        tests[t["name"]] = {"command": t.get("command", []), "labels": labels}
    return tests


def targets_for(tests, names, build):
    out = set()
    for n in names:
        cmd = tests[n]["command"]
        exe = cmd[0] if cmd else ""
        if exe.startswith(build) and not exe.endswith("bash"):
            out.add(os.path.basename(exe))
        if len(cmd) > 1 and (exe.endswith("bash") or exe.endswith("/sh")):
            out.update(SHELL_TARGETS)
        if n.startswith("fixture/"):
            out.update(["boxcert", "boxcert-verify"])
    return sorted(out)


def ctest(build, names, env):
    pattern = "^(" + "|".join(re.escape(n) for n in names) + ")$"
    rc, out = run(["ctest", "-R", pattern, "--timeout", "120", "-j", "2", "--output-on-failure"],
                  build, 900, env)
    timed_out = rc is None or "***Timeout" in out
    ran = len(re.findall(r"Test +#\d+: ", out))
    return rc, out, timed_out, ran


def judge(m, src, build, tests, env, jobs, scratch, build0):
    """Apply m in the tree (src, build), rebuild its tests' targets, run them, put the line
    back: ("killed" | "survived" | "error", detail)."""
    path = os.path.join(src, m["file"])
    try:
        text = open(path, encoding="utf-8").read().split("\n")
    except OSError as e:
        return "error", str(e)
    hits = [k for k, line in enumerate(text) if line.rstrip() == m["find"].rstrip()]
    if len(hits) != 1:
        return "error", f"the line matches {len(hits)} lines of {m['file']}, not one"
    k = hits[0]
    original = text[k]
    text[k] = m["replace"]
    open(path, "w", encoding="utf-8").write("\n".join(text))
    try:
        tg = targets_for(tests, m["tests"], build0)  # the tests were listed in tree 0
        brc, bout = run(["cmake", "--build", build, "-j", str(jobs), "--target"] + tg, scratch,
                        900)
        if brc != 0:
            return "error", "the mutant does not build: " + \
                (re.findall(r"error: .*", bout) or ["?"])[0][:160]
        trc, tout, timed_out, ran = ctest(build, m["tests"], env)
        if timed_out:
            return "error", "a named test timed out"
        if ran != len(m["tests"]):
            return "error", f"{ran} of {len(m['tests'])} named tests ran"
        if trc != 0:
            failed = re.findall(r"\d+ - (\S+) \(Failed\)", tout)
            return "killed", "by " + ", ".join(failed)
        return "survived", ""
    finally:
        text[k] = original
        open(path, "w", encoding="utf-8").write("\n".join(text))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--list", action="append",
                    help="a list file (default: every tests/mutations/*.txt)")
    ap.add_argument("--only", help="only mutations whose file or area matches REGEX")
    ap.add_argument("--keep", action="store_true", help="keep the scratch folder")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--workers", type=int, default=2,
                    help="trees judged in parallel (each built once; default 2)")
    ap.add_argument("--check", action="store_true",
                    help="only check that every line matches exactly one line of its file")
    a = ap.parse_args()
    t0 = time.monotonic()
    lists = a.list or sorted(glob.glob(os.path.join(ROOT, "tests", "mutations", "*.txt")))
    if not lists:
        sys.exit("mutate: no list in tests/mutations/")
    muts = [m for p in lists for m in parse(p)]
    seen = {}
    for m in muts:
        key = (m["file"], m["find"].rstrip(), m["replace"].rstrip())
        if key in seen:
            sys.exit(f"{m['where']}: the same mutation as {seen[key]}")
        seen[key] = m["where"]
    if a.check:
        bad = 0
        for m in muts:
            try:
                lines = open(os.path.join(ROOT, m["file"]), encoding="utf-8").read().split("\n")
            except OSError as e:
                print(f"{m['where']}: {e}")
                bad += 1
                continue
            hits = sum(1 for line in lines if line.rstrip() == m["find"].rstrip())
            if hits != 1:
                print(f"{m['where']}: matches {hits} lines of {m['file']}: {m['find'].strip()}")
                bad += 1
        areas = {}
        for m in muts:
            areas[m["area"]] = areas.get(m["area"], 0) + 1
        print(f"# {len(muts)} mutations; " + ", ".join(f"{k} {v}" for k, v in sorted(areas.items())))
        return 1 if bad else 0
    if a.only:
        muts = [m for m in muts if re.search(a.only, m["file"]) or re.search(a.only, m["area"])]
    if not muts:
        sys.exit("mutate: no mutation to apply")

    scratch = tempfile.mkdtemp(prefix="boxcert-mutate-")
    src, build = os.path.join(scratch, "src"), os.path.join(scratch, "build")
    env = dict(os.environ, BOXCERT_REQUIRE_ENGINE="0")
    env.pop("CI", None)  # the named tests are engine-free; none may skip for want of one
    try:
        files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                               check=True, stdout=subprocess.PIPE).stdout.split(b"\0")
        for f in files:
            f = f.decode()
            if not f or not os.path.isfile(os.path.join(ROOT, f)):
                continue
            os.makedirs(os.path.dirname(os.path.join(src, f)), exist_ok=True)
            shutil.copy2(os.path.join(ROOT, f), os.path.join(src, f))
        rc, out = run(["cmake", "-S", src, "-B", build, "-DCMAKE_BUILD_TYPE=RelWithDebInfo"],
                      scratch, 600)
        if rc != 0:
            sys.exit("mutate: cmake failed:\n" + out[-3000:])
        rc, out = run(["cmake", "--build", build, "-j", str(a.jobs)], scratch, 1800)
        if rc != 0:
            sys.exit("mutate: the unmutated tree does not build:\n" + out[-3000:])
        tests = ctest_tests(build)

        errors = []
        for m in muts:
            for n in m["tests"]:
                if n not in tests:
                    errors.append(f"{m['where']}: no test named {n}")
                elif not tests[n]["labels"] & ENGINE_FREE or "engine" in tests[n]["labels"]:
                    errors.append(f"{m['where']}: {n} is not an engine-free test")
        if errors:
            print("\n".join(errors))
            sys.exit(f"mutate: {len(errors)} error(s) in the list; nothing judged")

        named = sorted({n for m in muts for n in m["tests"]})
        rc, out, timed_out, ran = ctest(build, named, env)
        if rc != 0 or ran != len(named):
            print(out[-4000:])
            sys.exit(f"mutate: the named tests do not pass unmutated ({ran} of {len(named)} ran)"
                     "; nothing judged")
        print(f"# {len(muts)} mutations, {len(named)} named tests pass unmutated "
              f"({time.monotonic() - t0:.0f} s to copy, build and check)")

        # more trees, judged in parallel: each mutation is applied in one tree at a time
        trees = [(src, build)]
        for w in range(1, a.workers):
            s2, b2 = os.path.join(scratch, f"src{w}"), os.path.join(scratch, f"build{w}")
            shutil.copytree(src, s2, symlinks=True)
            rc, out = run(["cmake", "-S", s2, "-B", b2, "-DCMAKE_BUILD_TYPE=RelWithDebInfo"],
                          scratch, 600)
            if rc == 0:
                rc, out = run(["cmake", "--build", b2, "-j", str(a.jobs)], scratch, 1800)
            if rc != 0:
                sys.exit(f"mutate: tree {w} does not build:\n" + out[-3000:])
            trees.append((s2, b2))
        if len(trees) > 1:
            print(f"# {len(trees)} trees ({time.monotonic() - t0:.0f} s)", flush=True)

        free = queue.Queue()
        for t in trees:
            free.put(t)
        lock = threading.Lock()
        results = {}

        def one(i, m):
            tree = free.get()
            try:
                t1 = time.monotonic()
                result, detail = judge(m, tree[0], tree[1], tests, env, a.jobs, scratch, build)
                line = (f"{result.upper():8} {i:3} {time.monotonic() - t1:4.0f}s {m['where']} "
                        f"{m['file']}: {m['replace'].strip()[:60]}"
                        + (f"  ({detail})" if detail else ""))
                with lock:
                    results[i] = result
                    print(line, flush=True)
            finally:
                free.put(tree)

        with concurrent.futures.ThreadPoolExecutor(max_workers=len(trees)) as ex:
            for f in [ex.submit(one, i, m) for i, m in enumerate(muts, 1)]:
                f.result()
        killed = sum(r == "killed" for r in results.values())
        survived = sum(r == "survived" for r in results.values())
        errs = len(muts) - killed - survived
        by_area = {}
        for i, m in enumerate(muts, 1):
            st = by_area.setdefault(m["area"], [0, 0])
            st[0] += 1
            st[1] += results.get(i) == "killed"
        if a.keep:  # put the trees back as they were for the next run
            for s_, b_ in trees:
                run(["cmake", "--build", b_, "-j", str(a.jobs)], scratch, 1800)
        wall = time.monotonic() - t0
        for area, (n, k) in sorted(by_area.items()):
            print(f"# area {area}: {k} of {n} killed")
        print(f"mutate: {len(muts)} mutations: {killed} killed, {survived} survived, {errs} errors;"
              f" wall time {wall:.0f} s ({wall / 60:.1f} min)")
        return 0 if survived == 0 and errs == 0 else 1
    finally:
        if a.keep:
            print(f"# scratch kept: {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
