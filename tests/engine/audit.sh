#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The post-run audit on a real engine: a run of 11 labelled sessions (hardened, weak,
# unattested, removed, left behind, started with --rm and known only from --expect), one
# expected session that never ran, a decoy of another run, an unmatched and a forged
# certificate; the json report row by row and against the schema; every format; the same
# engine over its socket and its TLS endpoint in one audit; --collect.
. "$(dirname "$0")/../lib/testlib.sh"
need_engine
PY=/usr/bin/python3
V=$BOXCERT_BIN/boxcert-verify
HARD=(--network none --read-only --cap-drop ALL --security-opt no-new-privileges)
RUN=audit.run=$RUN_ID

cat >"$T/policy.yaml" <<'YAML'
version: 1
certificate: {maxCollectionDelay: 60s}
containment:
  network: [none]
  readOnlyRootfs: true
  capabilities: {allow: []}
  noNewPrivileges: true
  privileged: false
YAML
"$BOXCERT" keygen --out "$T/k" >/dev/null
"$BOXCERT" keygen --out "$T/other" >/dev/null
mkdir "$T/certs"
audit() { "$BOXCERT" audit --policy "$T/policy.yaml" --key "$T/k.pub" "$@"; }
name_of() { echo "bxt-$RUN_ID-$1"; }
collect() { # collect NAME [FILE]: a certificate for session NAME into --certs
  "$BOXCERT" collect "$(name_of "$1")" --key "$T/k.key" --out "$T/certs/${2:-$1}.intoto.json"
}

# The run. Each session is collected as soon as it starts, as a launcher would.
declare -A id
for s in h1 h2 h3 h4 h5 h6 u1; do id[$s]=$(session "$s" --label "$RUN" "${HARD[@]}"); done
for s in w1 w2; do id[$s]=$(session "$s" --label "$RUN" --cap-add NET_ADMIN); done
id[rm1]=$(session rm1 --rm --label "$RUN" "${HARD[@]}")
decoy=$(session never2 --label "$RUN-other" "${HARD[@]}")
for s in h1 h2 h3 h4 h5 h6 w1 w2 rm1; do collect "$s"; done
collect h5 h5-again # a second certificate for one start
collect never2 decoy
"$BOXCERT" collect "$(name_of h1)" --key "$T/other.key" --out "$T/certs/forged.intoto.json"
for s in h1 h2 h3 h4 h5 h6 w1 w2 rm1; do
  ok "certificate of $s written" test -s "$T/certs/$s.intoto.json"
done

# The end of the run: the launcher removes what it started, but leaves h6 (exited) and
# u1 (running) behind; rm1 was started with --rm and vanishes when it stops.
"$DOCKER" rm -f "${id[h1]}" "${id[h2]}" "${id[h3]}" "${id[h4]}" "${id[h5]}" "${id[w1]}" "${id[w2]}" >/dev/null
"$DOCKER" stop -t 0 "${id[h6]}" >/dev/null
"$DOCKER" stop -t 0 "${id[rm1]}" >/dev/null
for _ in $(seq 1 50); do "$DOCKER" inspect "${id[rm1]}" >/dev/null 2>&1 || break; sleep 0.1; done
ok "the --rm session is gone from the engine" bash -c "! '$DOCKER' inspect '${id[rm1]}' >/dev/null 2>&1"

# The launcher's list: ids for most, a name for the --rm one, and one that never ran.
$PY - "$T/expect.json" "$(name_of rm1)" "$(name_of never)" "${id[h1]}" "${id[h2]}" "${id[h3]}" \
  "${id[h4]}" "${id[h5]}" "${id[w1]}" "${id[w2]}" "${id[u1]}" "${id[h6]}" <<'PY'
import json, sys
out, rm1, never, *ids = sys.argv[1:]
json.dump({"version": 1, "sessions": [{"id": i} for i in ids] + [{"name": rm1}, {"name": never}]},
          open(out, "w"), indent=1)
PY
check_schema expect "$T/expect.json"

expect_rc 1 "audit finds violations (exit 1)" audit --certs "$T/certs" --label "$RUN" \
  --expect "$T/expect.json" --format json --output "$T/report.json"
check_schema report "$T/report.json"
$PY - "$T/report.json" "$RUN_ID" "$decoy" "${id[u1]}" "${id[h6]}" >"$T/rows.txt" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
run, decoy, u1, h6 = sys.argv[2:]
prefix = "bxt-" + run + "-"
for x in r["sessions"]:
    failed = sorted({f["rule"] for f in x["findings"] if f["status"] in ("fail", "unknown")})
    print("row", (x["name"] or "?").replace(prefix, ""), x["verdict"], ",".join(x["flags"]) or "-",
          x["state"] or "gone", "expected" if x["expected"] else "selected",
          "cert" if x["certificateId"] else "nocert", ",".join(failed) or "-")
s = r["summary"]
print("summary", s["sessions"], s["compliant"], s["noncompliant"], s["unattested"], s["missing"],
      s["unreachable"], s["late"], s["leftover"], s["duplicate"])
c = s["certificates"]
print("certificates", c["total"], c["matched"], c["unmatched"], c["rejected"])
print("violations", s["violations"] - s["orphans"])
print("complete", r["complete"])
print("decoy row", any(x["containerId"] == decoy for x in r["sessions"]))
print("own orphans", [o["id"] for o in r["orphans"] if o["id"] in (u1, h6, decoy)])
for x in r["certificates"]:
    print("cert", x["file"].rsplit("/", 1)[-1], x["status"],
          (x["session"] or {}).get("name", "-").replace(prefix, ""))
print("dup", [len(x["duplicates"]) for x in r["sessions"] if "duplicate" in x["flags"]])
print("engines", len(r["engines"]), r["engines"][0]["reachable"])
PY
sed 's/^/# /' "$T/rows.txt"
for s in h1 h2 h3 h4 rm1; do
  like "$T/rows.txt" "^row $s compliant - gone expected cert -$" "row $s: compliant, removed"
done
like "$T/rows.txt" '^row h5 compliant duplicate gone expected cert -$' "row h5: compliant, two certificates (duplicate)"
like "$T/rows.txt" '^row h6 compliant leftover exited expected cert audit.leftover$' "row h6: compliant but left behind (exited)"
like "$T/rows.txt" '^row u1 unattested leftover running expected nocert audit.attested,audit.leftover$' "row u1: unattested and left behind"
for s in w1 w2; do
  like "$T/rows.txt" "^row $s noncompliant - gone expected cert .*containment.capabilities" "row $s: noncompliant (capabilities)"
done
like "$T/rows.txt" '^row never missing - gone expected nocert audit.expected$' "row never: missing"
like "$T/rows.txt" '^summary 11 7 2 1 1 0 0 2 1$' "summary: 11 sessions, 7 compliant, 2 noncompliant, 1 unattested, 1 missing; 2 leftover, 1 duplicate"
like "$T/rows.txt" '^certificates 12 10 1 1$' "certificates: 12 read, 10 matched, 1 unmatched, 1 rejected"
like "$T/rows.txt" '^violations 5$' "5 violations besides orphans (w1 w2 u1 h6 never)"
like "$T/rows.txt" '^complete True$' "the audit is complete"
like "$T/rows.txt" '^decoy row False$' "a session of another label value is not selected"
like "$T/rows.txt" '^own orphans \[\]$' "no session of this run is an orphan"
like "$T/rows.txt" '^cert decoy.intoto.json unmatched never2$' "the decoy's certificate is listed, unmatched"
like "$T/rows.txt" '^cert forged.intoto.json rejected -$' "the forged certificate is rejected, its contents not shown"
like "$T/rows.txt" '^dup \[1\]$' "the duplicate is named"

# Every format (hostile strings in each are tests/engine/audit_html.sh's).
for f in text junit sarif github html; do
  expect_rc 1 "format $f" audit --certs "$T/certs" --label "$RUN" --expect "$T/expect.json" \
    --format "$f" --output "$T/out.$f"
done
like "$T/out.text" '^UNATTESTED +bxt-.*-u1 [0-9a-f]{12} running \[leftover\]$' "text: the unattested row"
like "$T/out.text" '^MISSING +bxt-.*-never$' "text: the missing row"
like "$T/out.text" '^11 sessions: 7 compliant, 2 noncompliant, 1 unattested, 1 missing, 0 unreachable' "text: summary"
ok "junit is well-formed XML with failures" $PY -c 'import sys, xml.dom.minidom as m; d=m.parse(sys.argv[1]); s=d.getElementsByTagName("testsuite")[0]; assert int(s.getAttribute("failures")) >= 5' "$T/out.junit"
ok "sarif 2.1.0 names every rule it uses" $PY -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["runs"][0]; ids={x["ruleId"] for x in r["results"]}; assert {"audit.attested","audit.leftover","audit.expected","containment.capabilities"} <= ids, ids; assert {x["id"] for x in r["tool"]["driver"]["rules"]} >= ids' "$T/out.sarif"
like "$T/out.github" '^::error title=audit.expected::session bxt-.*-never is missing' "github: the missing session"
like "$T/out.github" '^::error file=[^,]*w1\.intoto\.json,title=containment\.capabilities::' "github: annotation on the weak certificate"
like "$T/out.html" '<tr class="session v-unattested" data-index="[0-9]+" data-order="[0-9]+" data-rank="[0-9.]+" data-violation="1" data-verdict="unattested" .*data-flags="leftover">' "html: the unattested row"
unlike "$T/out.html" '(src|href)=|@import|url\(' "html: no external asset"
is "$(grep -c '<script' "$T/out.html")" "1" "html: no script but the page's own (its hash in the CSP)"
like "$T/out.html" 'data-runtime="runc" data-level="engine\+kernel" data-engine="[^"]+"' "html: a row's runtime, evidence level and engine host"

# Progress on stderr only when stderr is a terminal.
$PY - "$BOXCERT" "$T" "$RUN" >"$T/tty.txt" <<'PY'
import os, pty, subprocess, sys
b, t, run = sys.argv[1:]
m, s = pty.openpty()
p = subprocess.run([b, "audit", "--policy", t + "/policy.yaml", "--key", t + "/k.pub", "--certs",
                    t + "/certs", "--label", run, "--format", "json", "--output", t + "/tty.json"],
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=s)
os.close(s)
data = b""
try:
    while True:
        chunk = os.read(m, 65536)
        if not chunk:
            break
        data += chunk
except OSError:
    pass
print("rc", p.returncode, "progress", b"\rboxcert audit: sessions" in data)
PY
like "$T/tty.txt" '^rc 1 progress True$' "progress on a terminal's stderr"
expect_rc 1 "no progress when stderr is not a terminal" audit --certs "$T/certs" --label "$RUN" --format json
unlike "$ERR" 'boxcert audit: ' "... stderr holds no progress lines"

# One engine through two endpoints: its unix socket and its mutual-TLS listener.
eval "$(bash "$BOXCERT_SOURCE_DIR/scripts/engine.sh" env)"
tls_env=(env DOCKER_TLS_VERIFY=1 DOCKER_CERT_PATH="$BOXCERT_TLS_CERT_PATH")
ok "the engine's mutual-TLS listener answers (a collection over it)" "${tls_env[@]}" "$BOXCERT" \
  collect "$(name_of u1)" --engine "$BOXCERT_TLS_HOST" --key "$T/k.key" \
  --out "$T/tls-probe.intoto.json"
if [ -s "$T/tls-probe.intoto.json" ]; then
  expect_rc 1 "audit over the socket and the TLS endpoint" "${tls_env[@]}" "$BOXCERT" audit \
    --policy "$T/policy.yaml" --key "$T/k.pub" --certs "$T/certs" --label "$RUN" \
    --expect "$T/expect.json" --engine unix:///var/run/docker.sock --engine "$BOXCERT_TLS_HOST" \
    --format json --output "$T/two.json"
  check_schema report "$T/two.json"
  is "$($PY -c 'import json,sys; r=json.load(open(sys.argv[1])); e=r["engines"]; print(r["summary"]["sessions"], len({(x["engine"], x["containerId"], x["startedAt"]) for x in r["sessions"]}), e[1]["sameAs"], e[0]["id"] == e[1]["id"])' "$T/two.json")" \
    "11 11 unix:///var/run/docker.sock True" "the TLS endpoint is the same engine: no double rows"
  expect_rc 1 "the TLS endpoint alone gives the same rows" "${tls_env[@]}" "$BOXCERT" audit \
    --policy "$T/policy.yaml" --key "$T/k.pub" --certs "$T/certs" --label "$RUN" \
    --expect "$T/expect.json" --engine "$BOXCERT_TLS_HOST" --format json --output "$T/tls.json"
  is "$($PY -c 'import json,sys; a,b=(json.load(open(p)) for p in sys.argv[1:]); k=lambda r: sorted((x["containerId"] or "", x["verdict"], tuple(x["flags"])) for x in r["sessions"]); print(k(a) == k(b))' "$T/report.json" "$T/tls.json")" \
    True "... as the socket"
  # Orphans are judged by the engines that own this host's tasks: the real dockerd on its
  # local socket (SO_PEERCRED), or its TLS endpoint once proven the same as that socket; the
  # TLS endpoint alone is a remote engine whose listing hides no local task.
  u1id=$("$DOCKER" inspect -f '{{.Id}}' "$(name_of u1)")
  mkdir -p "$T/rtasks/$u1id" "$T/rtasks/zz-unknown"
  orphans() { $PY -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join("u1" if o["id"] == sys.argv[2] else o["id"] for o in r["orphans"]))' "$1" "$u1id"; }
  "${tls_env[@]}" "$BOXCERT" audit --policy "$T/policy.yaml" --key "$T/k.pub" --certs "$T/certs" \
    --label "$RUN" --tasks "$T/rtasks" --engine unix:///var/run/docker.sock --format json \
    --output "$T/o-sock.json" >/dev/null 2>&1
  is "$(orphans "$T/o-sock.json")" "zz-unknown" "orphans: the local dockerd's task is not one"
  "${tls_env[@]}" "$BOXCERT" audit --policy "$T/policy.yaml" --key "$T/k.pub" --certs "$T/certs" \
    --label "$RUN" --tasks "$T/rtasks" --engine "$BOXCERT_TLS_HOST" --format json \
    --output "$T/o-tls.json" >/dev/null 2>&1
  is "$(orphans "$T/o-tls.json")" "u1 zz-unknown" "... a tcp:// engine alone hides none"
  "${tls_env[@]}" "$BOXCERT" audit --policy "$T/policy.yaml" --key "$T/k.pub" --certs "$T/certs" \
    --label "$RUN" --tasks "$T/rtasks" --engine "$BOXCERT_TLS_HOST" \
    --engine unix:///var/run/docker.sock --format json --output "$T/o-both.json" >/dev/null 2>&1
  is "$(orphans "$T/o-both.json") $($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["engines"][1]["sameAs"] is not None)' "$T/o-both.json")" \
    "zz-unknown True" "... proven the same as the local socket, it does"
fi

# --collect: certificates for running sessions that have none, marked late when they are
# collected later than maxCollectionDelay (1s here).
sed 's/maxCollectionDelay: 60s/maxCollectionDelay: 1s/' "$T/policy.yaml" >"$T/quick.yaml"
CRUN=audit.run=$RUN_ID-c
mkdir "$T/ccerts"
c1=$(session c1 --label "$CRUN" "${HARD[@]}")
c2=$(session c2 --label "$CRUN" "${HARD[@]}")
"$BOXCERT" collect "$c2" --key "$T/k.key" --out "$T/ccerts/c2-own.intoto.json"
c3=$(session c3 --label "$CRUN" "${HARD[@]}")
"$DOCKER" stop -t 0 "$c3" >/dev/null
sleep 2
caudit() { "$BOXCERT" audit --policy "$T/quick.yaml" --key "$T/k.pub" --certs "$T/ccerts" --label "$CRUN" "$@"; }
expect_rc 1 "audit --collect" caudit --collect --signing-key "$T/k.key" --format json --output "$T/collect.json"
check_schema report "$T/collect.json"
ok "the certificate for c1 is written as <containerId>.intoto.json" test -s "$T/ccerts/$c1.intoto.json"
ok "none for c2, which had one" test ! -e "$T/ccerts/$c2.intoto.json"
ok "none for c3, which is not running" test ! -e "$T/ccerts/$c3.intoto.json"
check_schema certificate "$T/ccerts/$c1.intoto.json"
ok "the collected certificate verifies on its own" "$V" verify "$T/ccerts/$c1.intoto.json" \
  --policy "$T/policy.yaml" --key "$T/k.pub" --expect-container "$c1"
ok "no temporary file is left in --certs" bash -c "[ \$(ls -A '$T/ccerts' | wc -l) -eq 2 ]"
$PY - "$T/collect.json" "$c1" "$c2" "$c3" >"$T/crows.txt" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
names = dict(zip(sys.argv[2:], ["c1", "c2", "c3"]))
for x in r["sessions"]:
    failed = sorted({f["rule"] for f in x["findings"] if f["status"] == "fail"})
    print(names.get(x["containerId"], "?"), x["verdict"], ",".join(x["flags"]), ",".join(failed))
PY
sed 's/^/# /' "$T/crows.txt"
like "$T/crows.txt" '^c1 noncompliant late,leftover audit.leftover,certificate.collection_delay$' "c1: collected now, late (certificate.collection_delay fails)"
like "$T/crows.txt" '^c2 compliant leftover audit.leftover$' "c2: its own certificate, collected at once, is kept (not late)"
like "$T/crows.txt" '^c3 unattested leftover ' "c3: exited, nothing to collect"
cp "$T/ccerts/$c1.intoto.json" "$T/c1.before"
expect_rc 1 "a second --collect collects nothing new" caudit --collect --signing-key "$T/k.key" --format json --output "$T/collect2.json"
ok "... and leaves the first certificate intact" cmp "$T/ccerts/$c1.intoto.json" "$T/c1.before"
ok "... and writes no other file" bash -c "[ \$(ls -A '$T/ccerts' | wc -l) -eq 2 ]"
"$DOCKER" restart -t 0 "$c1" >/dev/null
sleep 1
expect_rc 1 "after a restart, --collect certifies the new start beside the old one" caudit --collect \
  --signing-key "$T/k.key" --format json --output "$T/collect3.json"
ok "the old certificate is kept" cmp "$T/ccerts/$c1.intoto.json" "$T/c1.before"
ok "the new one is named after the start" bash -c "ls '$T/ccerts/$c1'-20*Z.intoto.json"
is "$($PY -c 'import json,sys; r=json.load(open(sys.argv[1])); print(sorted(x["status"] for x in r["certificates"]))' "$T/collect3.json")" \
  "['unmatched']" "the old start's certificate is listed, unmatched"
is "$($PY -c 'import json,sys; r=json.load(open(sys.argv[1])); print([x["startedAt"] for x in r["sessions"] if x["containerId"] == sys.argv[2]])' "$T/collect3.json" "$c1")" \
  "['$("$DOCKER" inspect -f '{{.State.StartedAt}}' "$c1")']" \
  "the restarted session's row carries its start to the nanosecond, as the engine gives it"
# Several sessions at once (--jobs): the same rows, certificates and files as one at a
# time. Ten sessions (one weak) for four workers.
PRUN=audit.run=$RUN_ID-p
for i in 0 1 2 3 4 5 6 7 8; do session "p$i" --label "$PRUN" "${HARD[@]}" >/dev/null; done
session p9 --label "$PRUN" --cap-add NET_ADMIN >/dev/null
mkdir "$T/p1" "$T/p4"
paudit() { "$BOXCERT" audit --policy "$T/policy.yaml" --key "$T/k.pub" --label "$PRUN" --collect \
  --signing-key "$T/k.key" --format json "$@"; }
expect_rc 1 "--collect --jobs 1 (ten sessions, one weak)" paudit --jobs 1 --certs "$T/p1" --output "$T/p1.json"
expect_rc 1 "--collect --jobs 4, the same sessions" paudit --jobs 4 --certs "$T/p4" --output "$T/p4.json"
check_schema report "$T/p4.json"
rows() {
  $PY -c 'import json,sys
r = json.load(open(sys.argv[1]))
for x in r["sessions"]:
    print(x["containerId"], x["verdict"], ",".join(x["flags"]),
          ",".join(sorted(f["rule"] for f in x["findings"] if f["status"] != "pass")))
print(json.dumps(r["summary"], sort_keys=True))' "$1"
}
rows "$T/p1.json" >"$T/p1.rows"
rows "$T/p4.json" >"$T/p4.rows"
ok "--jobs 4 gives the rows of --jobs 1, in the same order" cmp "$T/p1.rows" "$T/p4.rows"
like "$T/p4.rows" '"compliant": 9' "... nine compliant"
like "$T/p4.rows" '"noncompliant": 1' "... and the weak one noncompliant"
is "$(cd "$T/p1" && ls)" "$(cd "$T/p4" && ls)" "the same certificate files, one per session"
is "$(ls "$T/p4" | grep -c '^[0-9a-f]\{64\}\.intoto\.json$')" 10 "... ten, named <containerId>.intoto.json"
expect_rc 1 "each is read by verify on its own (the weak one fails the policy)" "$V" verify "$T/p4" \
  --policy "$T/policy.yaml" --key "$T/k.pub" --format json --output "$T/p4v.json"
is "$($PY -c 'import json,sys; r=json.load(open(sys.argv[1])); print(sum(1 for x in r["results"] if x["verdict"] == "pass"))' "$T/p4v.json")" 9 \
  "... nine pass the policy, the weak one does not"
expect_rc 2 "--jobs 0 is a usage error" paudit --jobs 0 --certs "$T/p4"
expect_rc 2 "--jobs over 64 is a usage error" paudit --jobs 65 --certs "$T/p4"

expect_rc 2 "--collect without --signing-key is a usage error" caudit --collect
expect_rc 2 "--signing-key without --collect is a usage error" caudit --signing-key "$T/k.key"
done_testing
