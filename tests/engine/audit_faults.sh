#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The audit when things go wrong, without touching the shared engine: a fake Engine API
# on a unix socket of the test's own that dies in the middle of a container inspect (exit
# 3, the rows it got, a complete report file and no partial one); an engine where nothing
# listens; orphans in a task folder (a fake one, then a real task of a test-owned
# containerd that no engine knows); configuration errors (exit 2) and an unsafe --output
# (exit 3).
. "$(dirname "$0")/../lib/testlib.sh"
PY=/usr/bin/python3
pids=()
stop_fakes() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  return 0
}
trap 'stop_fakes; rm -rf "$T"' EXIT

"$BOXCERT" keygen --out "$T/k" >/dev/null
mkdir "$T/certs" "$T/rep"
cat >"$T/policy.yaml" <<'YAML'
version: 1
certificate: {maxCollectionDelay: 60s}
containment: {network: [none]}
YAML
A=$(printf 'a%.0s' {1..64}); B=$(printf 'b%.0s' {1..64}); C=$(printf 'c%.0s' {1..64})
D=$(printf 'd%.0s' {1..64}); E=$(printf 'e%.0s' {1..64})

# A fake engine: /_ping, /version, /info, the listings, inspects of A B C (labelled
# run=fake) and D (no label); 404 for anything else. MODE die: the second inspect sends
# its headers and part of its body, then the process dies.
cat >"$T/fake.py" <<'PY'
import json, os, socket, socketserver, sys
from http.server import BaseHTTPRequestHandler
from urllib.parse import urlparse, parse_qs

sock, mode = sys.argv[1], sys.argv[2]
ids = {c * 64: n for c, n in (("a", "fa"), ("b", "fb"), ("c", "fc"), ("d", "fd"))}
labels = {i: ({"run": "fake"} if n != "fd" else {"run": "other"}) for i, n in ids.items()}
inspects = 0

def listing(flt):
    out = []
    for i, n in ids.items():
        want = json.loads(flt).get("label", []) if flt else []
        if all(labels[i].get(kv.split("=", 1)[0]) == kv.split("=", 1)[1] for kv in want):
            out.append({"Id": i, "Names": ["/" + n], "State": "running", "Labels": labels[i]})
    return out

class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a):
        pass
    def send(self, code, obj):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        global inspects
        u = urlparse(self.path)
        p = u.path
        if p == "/_ping":
            body = b"OK"
            self.send_response(200); self.send_header("Content-Length", "2"); self.end_headers()
            self.wfile.write(body); return
        if p == "/version":
            return self.send(200, {"ApiVersion": "1.41", "Version": "20.10.24", "Components": [{"Name": "Engine"}]})
        if p.startswith("/v1.41"):
            p = p[len("/v1.41"):]
        if p == "/info":
            return self.send(200, {"ID": "FAKE:ENGINE:0001"})
        if p == "/containers/json":
            q = parse_qs(u.query)
            return self.send(200, listing(q.get("filters", [""])[0]))
        if p.startswith("/containers/") and p.endswith("/json"):
            i = p[len("/containers/"):-len("/json")]
            if i not in ids:
                return self.send(404, {"message": "No such container: " + i})
            inspects += 1
            doc = {"Id": i, "Name": "/" + ids[i], "State": {"Status": "running", "Running": True,
                   "StartedAt": "2026-01-01T00:00:00.123456789Z", "Pid": 4242},
                   "Config": {"Labels": labels[i]}}
            if mode == "die" and inspects == 2:
                body = json.dumps(doc).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body[: len(body) // 2])
                self.wfile.flush()
                os._exit(0)  # the engine dies in the middle of its reply
            return self.send(200, doc)
        return self.send(404, {"message": "page not found"})

class S(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

if os.path.exists(sock):
    os.unlink(sock)
srv = S(sock, H)
print("ready", flush=True)
srv.serve_forever()
PY
fake() { # fake NAME MODE: start a fake engine at $T/NAME.sock
  $PY "$T/fake.py" "$T/$1.sock" "$2" >"$T/$1.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 50); do grep -q ready "$T/$1.log" 2>/dev/null && return 0; sleep 0.1; done
  echo "# fake engine $1 did not start"; cat "$T/$1.log"
}
audit() { "$BOXCERT" audit --policy "$T/policy.yaml" --key "$T/k.pub" --certs "$T/certs" "$@"; }
rows() { $PY -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join("%s:%s:%s" % (x["name"], x["verdict"], ",".join(x["flags"]) or "-") for x in r["sessions"]), "complete=%s" % r["complete"], " ".join("%s:%s:%s" % (e["endpoint"].rsplit("/", 1)[-1], e["reachable"], e["lost"]) for e in r["engines"]))' "$1"; }

# An engine lost mid-audit.
fake die die
printf '{"version":1,"sessions":[{"id":"%s"},{"name":"fe"}]}\n' "$A" >"$T/expect.json"
# --jobs 1: the inspects in listing order, so which session was answered is known
expect_rc 3 "an engine lost in the middle of an inspect: exit 3" audit --jobs 1 --engine "unix://$T/die.sock" \
  --label run=fake --expect "$T/expect.json" --tasks none --format json --output "$T/rep/lost.json"
like "$ERR" "^boxcert: unix://$T/die.sock: .*engine lost" "stderr names the lost engine"
ok "the report is written whole" $PY -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/rep/lost.json"
check_schema report "$T/rep/lost.json"
is "$(rows "$T/rep/lost.json")" \
  "fa:unattested:leftover fb:unreachable:leftover fc:unreachable:leftover fe:unreachable:- complete=False die.sock:True:True" \
  "the rows it got: the session inspected before the loss, the others unreachable"
ok "no partial or temporary file beside the output" bash -c "[ \"\$(ls -A '$T/rep')\" = lost.json ]"
# Four at a time: which inspect is the fatal one depends on timing; the audit still ends
# with exit 3, a whole report, and every row unattested (answered before the engine died)
# or unreachable: the one whose inspect killed it and fe, which it never had, at least.
fake die4 die
expect_rc 3 "lost with four inspects at once: exit 3" audit --jobs 4 --engine "unix://$T/die4.sock" \
  --label run=fake --expect "$T/expect.json" --tasks none --format json --output "$T/rep4.json"
check_schema report "$T/rep4.json"
is "$($PY -c 'import json,sys
r = json.load(open(sys.argv[1]))
v = sorted(x["verdict"] for x in r["sessions"])
print(len(v), v.count("unreachable") >= 2, set(v) <= {"unreachable", "unattested"}, r["complete"])' "$T/rep4.json")" \
  "4 True True False" "... four rows, at least two unreachable, none other than unreachable or unattested"
expect_rc 3 "text on stdout: exit 3 too" audit --engine "unix://$T/die.sock" --label run=fake --tasks none
like "$OUT" "^UNREACHABLE +unix://$T/die.sock: " "... the engine, now gone, is unreachable from the start"
like "$OUT" '^audit incomplete' "... and the text says the audit is incomplete"

# An engine where nothing listens: still a report, exit 3.
expect_rc 3 "nothing listens: exit 3" audit --engine "unix://$T/nothing.sock" --label run=fake \
  --expect "$T/expect.json" --format json --output "$T/rep/none.json"
check_schema report "$T/rep/none.json"
is "$(rows "$T/rep/none.json")" "fe:unreachable:- None:unreachable:- complete=False nothing.sock:False:False" \
  "expected sessions are unreachable, not missing, when an engine could not be asked"
is "$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["sessions"][1]["containerId"] == sys.argv[2])' "$T/rep/none.json" "$A")" \
  True "... the one listed by Id keeps its Id"

# Orphans in a task folder (an explicit --tasks): A is listed and D is known to the fake
# engine, but a fake engine is no dockerd of this host (SO_PEERCRED): it does not share this
# host's containerd, so its listing hides none of the host's tasks (tests/engine/audit.sh
# shows the real engine's do not count as orphans). E and ctr-task are known to no engine.
fake ok ok
mkdir -p "$T/tasks/$A" "$T/tasks/$D" "$T/tasks/$E" "$T/tasks/ctr-task" "$T/tasks/.hidden"
echo 4242 >"$T/tasks/$E/init.pid"
: >"$T/tasks/not-a-task"
expect_rc 1 "orphans are violations (exit 1)" audit --engine "unix://$T/ok.sock" --label run=fake \
  --tasks "$T/tasks" --format json --output "$T/rep/orphans.json"
check_schema report "$T/rep/orphans.json"
is "$($PY -c 'import json,sys; r=json.load(open(sys.argv[1])); print([(o["id"], o["pid"]) for o in r["orphans"]], r["summary"]["orphans"], r["summary"]["violations"], r["tasksFolder"] == sys.argv[2])' "$T/rep/orphans.json" "$T/tasks")" \
  "$($PY -c 'import sys; print(sorted([("ctr-task", None), (sys.argv[3], 4242), (sys.argv[1], None), (sys.argv[2], None)]))' "$A" "$D" "$E") 4 7 True" \
  "orphans: every task, the fake engine owns none (3 leftover rows + 4 orphans)"
expect_rc 1 "orphans in every format" audit --engine "unix://$T/ok.sock" --label run=fake \
  --tasks "$T/tasks" --format github
like "$OUT" "^::error title=audit.orphan::runtime task $E is known to no engine" "github: the orphan"
expect_rc 1 "--tasks none skips the check" audit --engine "unix://$T/ok.sock" --label run=fake \
  --tasks none --format json --output "$T/rep/none-tasks.json"
is "$($PY -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["orphans"], r["tasksFolder"])' "$T/rep/none-tasks.json")" \
  "[] None" "... and says so (tasksFolder null)"
expect_rc 2 "--tasks that is not a folder is a usage error" audit --engine "unix://$T/ok.sock" \
  --label run=fake --tasks "$T/tasks/not-a-task"

# Odd files in --certs are rejected certificates, never a hang or an incomplete audit.
mkdir -p "$T/odd/dir.intoto.json"
: >"$T/odd/empty.intoto.json"
mkfifo "$T/odd/fifo.intoto.json"
printf 'garbage\n\n{"payload":""}\n' >"$T/odd/bundle.intoto.jsonl"
expect_rc 1 "odd certificate files: rejected, the audit complete" timeout 20 "$BOXCERT" audit \
  --policy "$T/policy.yaml" --key "$T/k.pub" --certs "$T/odd" --engine "unix://$T/ok.sock" \
  --label run=fake --tasks none --format json --output "$T/rep/odd.json"
is "$($PY -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["complete"], sorted((c["file"].rsplit("/",1)[-1], c["status"], c["findings"][0]["rule"]) for c in r["certificates"]))' "$T/rep/odd.json")" \
  "True [('bundle.intoto.jsonl:1', 'rejected', 'certificate.format'), ('bundle.intoto.jsonl:3', 'rejected', 'certificate.format'), ('dir.intoto.json', 'rejected', 'certificate.format'), ('empty.intoto.json', 'rejected', 'certificate.format'), ('fifo.intoto.json', 'rejected', 'certificate.format')]" \
  "each odd file is one rejected certificate (a bundle: one per line)"

# Configuration errors: exit 2, before any engine is asked.
mkdir "$T/dir"
: >"$T/empty.json"
printf '{"version":1,"sessions":[{"name":"/x"}]}' >"$T/bad.json"
expect_rc 2 "a missing --expect file" audit --label run=fake --expect "$T/missing.json"
expect_rc 2 "an --expect that is a directory" audit --label run=fake --expect "$T/dir"
expect_rc 2 "an empty --expect file" audit --label run=fake --expect "$T/empty.json"
like "$ERR" 'empty' "... says it is empty"
expect_rc 2 "an invalid --expect file" audit --label run=fake --expect "$T/bad.json"
like "$ERR" "^boxcert: $T/bad.json:/sessions/0/name: " "... names file and JSON pointer"
expect_rc 2 "no selection" audit
expect_rc 2 "a label that is not K=V" audit --label nokey
expect_rc 2 "no --certs" "$BOXCERT" audit --policy "$T/policy.yaml" --key "$T/k.pub" --label run=fake
expect_rc 2 "--certs that is not a folder" audit --label run=fake --certs "$T/empty.json"
expect_rc 2 "an unknown format" audit --label run=fake --format pdf
expect_rc 2 "no trusted key" "$BOXCERT" audit --policy "$T/policy.yaml" --certs "$T/certs" --label run=fake
expect_rc 2 "an engine URL of an unknown scheme" audit --label run=fake --engine "http://x"
expect_rc 2 "a plain tcp:// engine without --insecure-engine" env -u DOCKER_TLS_VERIFY "$BOXCERT" \
  audit --policy "$T/policy.yaml" --key "$T/k.pub" --certs "$T/certs" --label run=fake \
  --engine tcp://127.0.0.1:9
expect_rc 3 "... with it, a port where nothing listens is unreachable (exit 3)" env -u DOCKER_TLS_VERIFY \
  "$BOXCERT" audit --policy "$T/policy.yaml" --key "$T/k.pub" --certs "$T/certs" --label run=fake \
  --engine tcp://127.0.0.1:9 --insecure-engine
expect_rc 2 "boxcert-verify has no audit command" "$BOXCERT_BIN/boxcert-verify" audit --help
nm "$BOXCERT_BIN/boxcert-verify" >"$T/syms" 2>/dev/null
like "$T/syms" 'bx_verify_envelope' "the symbols of boxcert-verify are readable"
unlike "$T/syms" '(bx_audit|bx_engine|audit_render|cmd_audit|curl_|git_)' "boxcert-verify carries no audit, engine or git code (bx_expect is its: verify --expect)"
ln -s "$T/elsewhere.json" "$T/rep/link.json"
expect_rc 3 "an --output that is a symlink is refused (exit 3)" audit --engine "unix://$T/ok.sock" \
  --label run=fake --tasks none --format json --output "$T/rep/link.json"
ok "... and nothing is written through it" test ! -e "$T/elsewhere.json"

# A real orphan: a task of a containerd of this test's own (its own root, state and
# socket; never the shared one), in the moby namespace, that no engine knows.
if [ "$(id -u)" -ne 0 ] || ! command -v containerd >/dev/null || ! command -v ctr >/dev/null ||
  [ ! -x /bin/busybox ]; then
  skip_one "a real orphan needs root, containerd, ctr and /bin/busybox"
elif [ "$(curl -s --max-time 3 --unix-socket /var/run/docker.sock http://engine/_ping 2>/dev/null)" != OK ]; then
  skip_one "a real orphan: no engine to audit"
else
  C_DIR=$(mktemp -d /tmp/bxc.XXXXXX) # short: containerd's socket paths are bounded
  cat >"$C_DIR/config.toml" <<TOML
version = 2
root = "$C_DIR/root"
state = "$C_DIR/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "$C_DIR/c.sock"
[ttrpc]
  address = "$C_DIR/c.sock.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
TOML
  containerd --config "$C_DIR/config.toml" >"$C_DIR/log" 2>&1 &
  cpid=$!
  pids+=("$cpid")
  for _ in $(seq 1 100); do [ -S "$C_DIR/c.sock" ] && break; sleep 0.1; done
  mkdir -p "$C_DIR/rootfs/bin"
  cp /bin/busybox "$C_DIR/rootfs/bin/busybox"
  ln -s busybox "$C_DIR/rootfs/bin/sh"; ln -s busybox "$C_DIR/rootfs/bin/sleep"
  ctr_() { ctr --address "$C_DIR/c.sock" --namespace moby "$@"; }
  task=bxt-$RUN_ID-orphan
  ok "a task in the test-owned containerd" ctr_ run -d --rootfs --label "boxcert.test=$RUN_ID" \
    "$C_DIR/rootfs" "$task" /bin/sleep 600
  expect_rc 1 "the shared engine does not know it: an orphan" "$BOXCERT" audit \
    --policy "$T/policy.yaml" --key "$T/k.pub" --certs "$T/certs" --label "audit.run=$RUN_ID-none" \
    --tasks "$C_DIR/state/io.containerd.runtime.v2.task/moby" --format json --output "$T/rep/real.json"
  check_schema report "$T/rep/real.json"
  is "$($PY -c 'import json,sys; r=json.load(open(sys.argv[1])); print([(o["id"], isinstance(o["pid"], int)) for o in r["orphans"]], r["summary"]["violations"])' "$T/rep/real.json")" \
    "[('$task', True)] 1" "the task is the one orphan, with its pid"
  ctr_ task kill -s SIGKILL "$task" >/dev/null 2>&1
  for _ in $(seq 1 50); do ctr_ task delete "$task" >/dev/null 2>&1 && break; sleep 0.1; done
  ctr_ container delete "$task" >/dev/null 2>&1
  kill "$cpid" 2>/dev/null
  for _ in $(seq 1 50); do kill -0 "$cpid" 2>/dev/null || break; sleep 0.1; done
  rm -rf "$C_DIR"
fi
done_testing
