#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Hostile input: a certificate with every byte flipped in turn, a 1 GiB file, deeply
# nested JSON. Nothing crashes, nothing passes that should not, and big input is refused
# before it is read whole.
. "$(dirname "$0")/../lib/testlib.sh"
need_engine
PY=/usr/bin/python3
V=$BOXCERT_BIN/boxcert-verify
POLICY=$BOXCERT_SOURCE_DIR/examples/policies/demo.yaml

"$BOXCERT" keygen --out "$T/k" >/dev/null
id=$(session hostile --network none --read-only --cap-drop ALL --security-opt no-new-privileges)
ok "collect" "$BOXCERT" collect "$id" --key "$T/k.key" --out "$T/c.intoto.json"
ok "the original passes" "$V" verify "$T/c.intoto.json" --policy "$POLICY" --key "$T/k.pub"

# Every byte flipped in turn (xor 0x01), one variant per line of a bundle.
$PY - "$T/c.intoto.json" "$T/flips.intoto.jsonl" "$T/keyid-lines" <<'PY'
import json, sys
raw = open(sys.argv[1], "rb").read().rstrip(b"\n")
env = json.loads(raw)
kid = env["signatures"][0]["keyid"].encode()
start = raw.index(kid)
keyid_range = range(start, start + len(kid))
with open(sys.argv[2], "wb") as out, open(sys.argv[3], "w") as lines:
    n = 0
    for i in range(len(raw)):
        b = bytearray(raw)
        b[i] ^= 0x01
        if b[i] in (0x0a, 0x0d):  # a flip that makes a line break would split the line
            b[i] ^= 0x03
        out.write(bytes(b) + b"\n")
        n += 1
        if i in keyid_range:
            lines.write(f"{n}\n")
PY
n=$(wc -l <"$T/flips.intoto.jsonl")
"$V" verify "$T/flips.intoto.jsonl" --policy "$POLICY" --key "$T/k.pub" --format json \
  --output "$T/flips.json" 2>"$T/flips.err"
rc=$?
is "$rc" 1 "the flipped variants: exit 1, no crash ($n variants)"
$PY - "$T/flips.json" "$T/keyid-lines" "$n" >"$T/flips.txt" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
keyid_lines = {int(x) for x in open(sys.argv[2])}
n = int(sys.argv[3])
passed = {int(x["file"].rsplit(":", 1)[1]) for x in r["results"] if x["verdict"] == "pass"}
print("results", len(r["results"]) == n)
print("only keyid flips pass", passed <= keyid_lines)
print("keyid flips pass", passed == keyid_lines)
PY
like "$T/flips.txt" '^results True$' "one result per variant"
like "$T/flips.txt" '^only keyid flips pass True$' "no variant passes except flips inside the keyid (a hint)"
like "$T/flips.txt" '^keyid flips pass True$' "flips inside the keyid still verify (try every key)"

# A 1 GiB certificate file is refused before it is read whole (bounded memory).
truncate -s 1G "$T/big.intoto.json"
$PY - "$V" "$T/big.intoto.json" "$POLICY" "$T/k.pub" >"$T/big.txt" <<'PY'
import resource, subprocess, sys
p = subprocess.run([sys.argv[1], "verify", sys.argv[2], "--policy", sys.argv[3], "--key", sys.argv[4]],
                   capture_output=True)
rss_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print("exit", p.returncode)
print("too_large", b"certificate.too_large" in p.stdout)
print("rss_under_64MiB", rss_kib < 64 * 1024)
PY
like "$T/big.txt" '^exit 1$' "1 GiB: rejected (exit 1)"
like "$T/big.txt" '^too_large True$' "1 GiB: certificate.too_large"
like "$T/big.txt" '^rss_under_64MiB True$' "1 GiB: refused without reading it into memory"
rm -f "$T/big.intoto.json"

# 100,000 nested arrays, as an envelope and inside a payload.
$PY -c 'import sys; sys.stdout.write("[" * 100000 + "]" * 100000)' >"$T/nested.intoto.json"
expect_rc 1 "100,000 nested arrays: rejected, no crash" "$V" verify "$T/nested.intoto.json" --policy "$POLICY" --key "$T/k.pub" --max-size 300000
like "$OUT" 'fail certificate.format' "... as certificate.format"
$PY -c 'import sys; sys.stdout.write("a: " + "[" * 100000 + "]" * 100000 + "\n")' >"$T/nested.yaml"
expect_rc 2 "a policy nested 100,000 deep: refused" "$V" verify "$T/c.intoto.json" --policy "$T/nested.yaml" --key "$T/k.pub"
done_testing
