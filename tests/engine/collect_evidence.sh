#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# collect --evidence-out DIR: the raw bytes behind each evidence hash, re-derived here with
# sha256sum and a JCS of each manifest, the way an auditor would; the session's
# environment values never written; refusals leave nothing behind.
. "$(dirname "$0")/../lib/testlib.sh"
need_engine
PY=/usr/bin/python3
"$BOXCERT" keygen --out "$T/k" >/dev/null

runc=$(session ev-runc --network none --read-only --cap-drop ALL -e SECRET_TOKEN=hunter2 -e PLAIN=1)
runsc=$(session ev-runsc --runtime runsc --network none --cap-drop ALL -e SECRET_TOKEN=hunter2)
"$DOCKER" exec -d "$runc" sleep 600
sleep 0.3

ok "collect runc with --evidence-out" "$BOXCERT" collect "$runc" --key "$T/k.key" \
  --nonce 00112233445566778899aabbccddeeff --evidence-out "$T/ev-runc" --out "$T/runc.intoto.json"
ok "collect runsc with --evidence-out" "$BOXCERT" collect "$runsc" --key "$T/k.key" \
  --evidence-out "$T/ev-runsc" --out "$T/runsc.intoto.json"

# An auditor's re-derivation: sha256sum of each manifest.json is the predicate's hash; the
# manifest is the JCS of {name: sha256sum of the file}, for exactly the files beside it.
rederive() { # rederive CERT DIR
  $PY - "$1" "$2" <<'PY'
import base64, json, os, subprocess, sys
cert, folder = sys.argv[1], sys.argv[2]
pred = json.loads(base64.b64decode(json.load(open(cert))["payload"]))["predicate"]
def sha256sum(path):
    return subprocess.run(["sha256sum", path], capture_output=True, check=True, text=True).stdout.split()[0]
def jcs(obj):  # RFC 8785 for objects of ASCII names and hex strings
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
bad = 0
for kind, field in (("engineInspect", "engineInspectSha256"), ("kernel", "kernelSha256"),
                    ("ociSpec", "ociSpecSha256")):
    d = os.path.join(folder, kind)
    want = pred["evidence"][field]
    if want is None:
        print(f"{kind}: no hash, folder {'absent' if not os.path.exists(d) else 'PRESENT'}")
        bad += os.path.exists(d)
        continue
    mpath = os.path.join(d, "manifest.json")
    raw = open(mpath, "rb").read()
    manifest = json.loads(raw)
    files = {}
    for root, _, names in os.walk(d):
        for n in names:
            rel = os.path.relpath(os.path.join(root, n), d)
            if rel != "manifest.json":
                files[rel] = sha256sum(os.path.join(root, n))
    checks = {
        "sha256sum(manifest.json) = evidence." + field: sha256sum(mpath) == want,
        "manifest.json is the JCS of itself": raw == jcs(manifest),
        "manifest = {name: sha256sum(file)} of the files beside it": manifest == files,
    }
    for what, good in checks.items():
        print(f"{kind}: {what}: {'ok' if good else 'MISMATCH'}")
        bad += not good
sys.exit(1 if bad else 0)
PY
}
ok "runc: every hash re-derived from the files" rederive "$T/runc.intoto.json" "$T/ev-runc"
sed 's/^/#   /' "$OUT"
ok "runsc: every hash re-derived from the files" rederive "$T/runsc.intoto.json" "$T/ev-runsc"
sed 's/^/#   /' "$OUT"

ok "runc: the inspect reply is kept" test -s "$T/ev-runc/engineInspect/container"
ok "runc: status of the init and the exec'd process kept" \
  test "$(ls "$T"/ev-runc/kernel/*/status | wc -l)" -ge 2
ok "runc: the cgroup's limit files kept" test -s "$T/ev-runc/kernel/cgroup/pids.max"
ok "runc: the OCI spec kept" test -s "$T/ev-runc/ociSpec/config.json"
ok "runsc: the sandbox's cmdline kept" test "$(ls "$T"/ev-runsc/kernel/*/cmdline | wc -l)" -ge 1
fails "no environment value anywhere in the evidence" grep -r -q hunter2 "$T/ev-runc" "$T/ev-runsc"
like "$T/ev-runc/engineInspect/container" '"SECRET_TOKEN=<redacted>"' "Config.Env: names kept, values redacted"
like "$T/ev-runc/ociSpec/config.json" '"SECRET_TOKEN=<redacted>"' "the OCI spec's process.env likewise"
ok "files are mode 0600" test "$(stat -c %a "$T/ev-runc/engineInspect/container")" = 600

$PY - "$T/runc.intoto.json" >"$T/nonce" <<'PY'
import base64, json, sys
print(json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))["predicate"]["nonce"])
PY
is "$(cat "$T/nonce")" "00112233445566778899aabbccddeeff" "--nonce recorded as given"

# Refusals leave nothing behind; a folder with something in it is never written into.
expect_rc 1 "a refused collection (another image)" "$BOXCERT" collect "$runc" --key "$T/k.key" \
  --expect-image "sha256:$(printf '0%.0s' {1..64})" --evidence-out "$T/ev-refused" \
  --out "$T/refused.intoto.json"
ok "... writes no certificate" test ! -e "$T/refused.intoto.json"
ok "... and no evidence" test ! -e "$T/ev-refused"
ok "... nor a staged folder" test -z "$(ls -A "$T" | grep '^\.ev-refused')"
expect_rc 3 "an evidence folder that is not empty is refused" "$BOXCERT" collect "$runc" \
  --key "$T/k.key" --evidence-out "$T/ev-runc" --out "$T/again.intoto.json"
ok "... before any certificate is written" test ! -e "$T/again.intoto.json"
ok "... and the earlier evidence is intact" rederive "$T/runc.intoto.json" "$T/ev-runc"
ln -s "$T/ev-runc" "$T/ev-link"
expect_rc 3 "an evidence path that is a symlink is refused" "$BOXCERT" collect "$runc" \
  --key "$T/k.key" --evidence-out "$T/ev-link" --out "$T/link.intoto.json"
ok "... with no certificate" test ! -e "$T/link.intoto.json"
expect_rc 2 "--nonce must be hex" "$BOXCERT" collect "$runc" --key "$T/k.key" --nonce xyz
done_testing
