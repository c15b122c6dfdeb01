#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Keys read strictly at every entry point, and sign's limits:
# - a public key file that is not exactly one strict PUBLIC KEY block of an Ed25519 or named-
#   curve P-256 key (a private key, text around the block, two blocks, DER with a byte more or a
#   BER length, Ed25519 with parameters, P-256 with explicit parameters, another curve, RSA, a
#   point off the curve) is refused with exit 2 and a line naming the file, wherever it is given:
#   verify/audit/show/ledger --key, sign --verify-key, a policy's trust.keys (file and inline),
#   policy check; a private key is named as one;
# - sign and collect, which read private keys, refuse a public key, garbage, text around the
#   PKCS#8 block, a second block or another label the same way;
# - the effective policy lists every trusted key's keyid (--key and BOXCERT_KEY too) and, loaded
#   again, refuses a key file that holds another key; reports name the keyids that signed;
# - sign never writes an envelope verify would refuse: 33 signatures, or over the 1 MiB cap, is
#   exit 2 with one line and no output file (nor a temporary one).
. "$(dirname "$0")/../lib/testlib.sh"
B=$BOXCERT_BIN
SRC=$BOXCERT_SOURCE_DIR
PUB=$SRC/fixtures/first-release/first-release.pub
CERT=$SRC/fixtures/first-release/hardened-runc.intoto.json
cd "$T" || exit 1

"$B/boxcert" keygen --out signer >/dev/null 2>&1 || echo "# keygen failed"
"$B/boxcert" keygen --alg ecdsa-p256 --out ec >/dev/null 2>&1 || echo "# keygen p256 failed"
mkdir bad

# The crafted key files: NAME and what the error must say.
python3 - "$PUB" "$T/ec.pub" <<'PY'
import base64, os, subprocess, sys
pub = open(sys.argv[1]).read()
ec = open(sys.argv[2]).read()
def der_of(pem):
    return base64.b64decode("".join(l for l in pem.splitlines() if not l.startswith("-----")))
def pem_of(der):
    b = base64.b64encode(der).decode()
    return "-----BEGIN PUBLIC KEY-----\n" + "\n".join(b[i:i + 64] for i in range(0, len(b), 64)) + "\n-----END PUBLIC KEY-----\n"
def openssl(*args, data=None):
    return subprocess.run(["openssl", *args], input=data, capture_output=True, check=True).stdout
d = der_of(pub)
key = d[12:]
cases = {
    "private.pub": (open("signer.key").read(), "private key"),
    "comment-before.pub": ("my key\n" + pub, "text before"),
    "text-after.pub": (pub + "-- ci\n", "text after"),
    "two-blocks.pub": (pub + ec, "second PEM block"),
    "blank-line-after.pub": (pub + "\n", "more than one line end"),
    "certificate-label.pub": (pub.replace("PUBLIC KEY", "CERTIFICATE"), "not 'PUBLIC KEY'"),
    "der-trailing-byte.pub": (pem_of(d + b"\x00"), "bytes after"),
    "der-ber-length.pub": (pem_of(b"\x30\x80" + d[2:] + b"\x00\x00"), "indefinite length"),
    "der-long-length.pub": (pem_of(b"\x30\x81" + d[1:]), "long-form length"),
    "ed25519-null-params.pub": (pem_of(b"\x30\x2c\x30\x07\x06\x03\x2b\x65\x70\x05\x00\x03\x21\x00" + key), "with parameters"),
    "ed25519-31-bytes.pub": (pem_of(b"\x30\x29\x30\x05\x06\x03\x2b\x65\x70\x03\x20\x00" + key[:31]), "not 32 bytes"),
    "url-safe.pub": (pub.replace("+", "-").replace("/", "_") if ("+" in pub or "/" in pub) else pub.replace("A", "*", 1), "base64"),
    "wide-lines.pub": (ec.replace("\n", "", 2).replace("-----BEGIN PUBLIC KEY-----", "-----BEGIN PUBLIC KEY-----\n", 1), "lines of 64"),
}
priv = openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout")
cases["ec-private-sec1.pub"] = (priv.decode(), "private key (EC PRIVATE KEY)")
cases["p256-explicit.pub"] = (openssl("ec", "-pubout", "-param_enc", "explicit", data=priv).decode(), "explicit curve parameters")
cases["p384.pub"] = (openssl("pkey", "-pubout", data=openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384")).decode(), "other than P-256")
cases["rsa.pub"] = (openssl("pkey", "-pubout", data=openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024")).decode(), "an RSA key")
cases["ed448.pub"] = (openssl("pkey", "-pubout", data=openssl("genpkey", "-algorithm", "ED448")).decode(), "an Ed448 key")
ecd = der_of(openssl("ec", "-pubout", data=priv).decode())
cases["p256-off-curve.pub"] = (pem_of(ecd[:-1] + bytes([ecd[-1] ^ 1])), "not on the curve")
cases["p256-hybrid.pub"] = (pem_of(ecd[:26] + bytes([6 | (ecd[-1] & 1)]) + ecd[27:]), "neither uncompressed")
cases["openssh.pub"] = ("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA user@host\n", "OpenSSH")
cases["empty.pub"] = ("", "")
with open("cases.txt", "w") as idx:
    for name, (text, why) in cases.items():
        open(os.path.join("bad", name), "w").write(text)
        idx.write(f"{name}\t{why}\n")
PY
[ -s cases.txt ] || echo "# the crafted keys were not made"

# refused NAME FILE WHY CMD...: exit 2, one line naming FILE and saying WHY
refused() {
  local name=$1 file=$2 why=$3 rc; shift 3
  timeout 20 "$@" >"$OUT" 2>"$ERR"; rc=$?
  if [ "$rc" -ne 2 ]; then
    echo "#   exit $rc, want 2"
    _tap 1 "$name"
  elif ! grep -qF -- "$file" "$ERR" || ! grep -qF -- "$why" "$ERR"; then
    echo "#   the error does not name $file and say '$why':"; sed 's/^/#   | /' "$ERR"
    _tap 1 "$name"
  elif [ "$(wc -l <"$ERR")" -ne 1 ]; then
    echo "#   not one line:"; sed 's/^/#   | /' "$ERR"
    _tap 1 "$name"
  else
    _tap 0 "$name"
  fi
}

while IFS=$'\t' read -r f why; do
  k=bad/$f
  refused "verify --key $f" "$k" "$why" "$B/boxcert-verify" verify "$CERT" --policy strict@1 --key "$k"
  refused "boxcert verify --key $f" "$k" "$why" "$B/boxcert" verify "$CERT" --policy strict@1 --key "$PUB" --key "$k"
  refused "sign --verify-key $f" "$k" "$why" "$B/boxcert" sign "$CERT" --key signer.key \
    --policy strict@1 --verify-key "$k" --out signed.json
  refused "show --key $f" "$k" "$why" "$B/boxcert" show "$CERT" --policy strict@1 --key "$k"
  refused "audit --key $f" "$k" "$why" "$B/boxcert" audit --certs bad --policy strict@1 --key "$k" \
    --label run=x --engine unix://"$T"/no-engine.sock
  refused "ledger add --key $f" "$k" "$why" "$B/boxcert" ledger add --repo "$T" --rev HEAD \
    --policy strict@1 --key "$k" "$CERT"
  refused "BOXCERT_KEY=$f" "$k" "$why" env BOXCERT_KEY="$k" "$B/boxcert-verify" verify "$CERT" --policy strict@1
  # a policy naming it: by file (the policy's line and the file named), and inline
  printf 'version: 1\nextends: strict@1\ntrust:\n  keys:\n    - file: %s\n' "$k" >trust.yaml
  refused "trust.keys[].file: $f" "$k" "$why" "$B/boxcert-verify" verify "$CERT" --policy trust.yaml
  refused "policy check, trust.keys[].file: $f" "$k" "$why" "$B/boxcert" policy check trust.yaml
  if [ -s "$k" ]; then
    # (|+ keeps the text's own line ends, as a file would)
    { printf 'version: 1\nextends: strict@1\ntrust:\n  keys:\n    - pem: |+\n'; sed 's/^/        /' "$k"; } >inline.yaml
    refused "trust.keys[].pem: $f" "inline.yaml:5:12: trust.keys[0].pem" "$why" "$B/boxcert-verify" verify "$CERT" --policy inline.yaml
  fi
done <cases.txt
is "$(ls bad | wc -l)" "$(($(wc -l <cases.txt)))" "every crafted key tried ($(wc -l <cases.txt))"
[ ! -e signed.json ]; _tap $? "no countersigned file written on a refused key"

# sign and collect read private keys: a public key or garbage there is refused the same way
refused "sign --key a public key" "$PUB" "is a public key" "$B/boxcert" sign "$CERT" --key "$PUB" \
  --policy strict@1 --verify-key "$PUB" --out signed.json
printf 'not a key at all\n' >garbage.key && chmod 600 garbage.key
refused "sign --key garbage" "garbage.key" "cannot read private key" "$B/boxcert" sign "$CERT" \
  --key garbage.key --policy strict@1 --verify-key "$PUB" --out signed.json
cp "$PUB" pub-as.key && chmod 600 pub-as.key
refused "collect --key a public key" "pub-as.key" "is a public key" "$B/boxcert" collect some-session \
  --key pub-as.key --engine unix://"$T"/no-engine.sock --out c.json
refused "collect --key garbage" "garbage.key" "cannot read private key" "$B/boxcert" collect \
  some-session --key garbage.key --engine unix://"$T"/no-engine.sock --out c.json
# a private key file is one PKCS#8 block, nothing around it
{ echo "my signing key"; cat signer.key; } >commented.key
{ cat signer.key; cat signer.key; } >twice.key
{ cat signer.key; cat signer.pub; } >with-pub.key
sed 's/PRIVATE KEY/EC PRIVATE KEY/' signer.key >sec1-label.key
chmod 600 commented.key twice.key with-pub.key sec1-label.key
for pair in "commented.key:text before" "twice.key:second PEM block" "with-pub.key:second PEM block" \
  "sec1-label.key:labelled 'EC PRIVATE KEY'"; do
  f=${pair%%:*} why=${pair#*:}
  refused "sign --key $f" "$f" "$why" "$B/boxcert" sign "$CERT" --key "$f" --policy strict@1 \
    --verify-key "$PUB" --out signed.json
  refused "collect --key $f" "$f" "$why" "$B/boxcert" collect some-session --key "$f" \
    --engine unix://"$T"/no-engine.sock --out c.json
done
[ ! -e signed.json ] && [ ! -e c.json ]; _tap $? "nothing written by sign or collect"

# the good keys still read: LF, CRLF, without the last line end, compressed P-256
sed 's/$/\r/' "$PUB" >crlf.pub
head -c -1 "$PUB" >no-eol.pub
for k in "$PUB" crlf.pub no-eol.pub; do
  expect_rc 0 "verify --key $(basename "$k")" "$B/boxcert-verify" verify "$CERT" --policy strict@1 --key "$k"
done
python3 - "$T/ec.pub" <<'PY'
import base64, sys
pem = open(sys.argv[1]).read()
d = base64.b64decode("".join(l for l in pem.splitlines() if not l.startswith("-----")))
if len(d) == 91:
    x, y = d[27:59], d[59:]
    c = bytes([0x30, 0x39]) + d[2:23] + bytes([0x03, 0x22, 0x00, 2 | (y[-1] & 1)]) + x
    b = base64.b64encode(c).decode()
    open("ec-compressed.pub", "w").write("-----BEGIN PUBLIC KEY-----\n" + "\n".join(b[i:i + 64] for i in range(0, len(b), 64)) + "\n-----END PUBLIC KEY-----\n")
PY
if [ -s ec-compressed.pub ]; then
  "$B/boxcert" sign "$CERT" --key ec.key --policy strict@1 --verify-key "$PUB" --out by-ec.json 2>"$ERR"
  expect_rc 0 "a certificate countersigned by P-256 verifies with its compressed key alone" \
    "$B/boxcert-verify" verify by-ec.json --policy strict@1 --key ec-compressed.pub --threshold 2 --key "$PUB"
else
  _tap 1 "a P-256 key to compress"
fi

# ---- the policy names its keys; reports name the keys that signed ----------------------------
SIGNER_ID=$("$B/boxcert" keygen --out named 2>/dev/null)
PUB_ID=$(python3 -c 'import base64,hashlib,sys
pem=open(sys.argv[1]).read()
print(hashlib.sha256(base64.b64decode("".join(l for l in pem.splitlines() if not l.startswith("-----")))).hexdigest())' "$PUB")
"$B/boxcert" sign "$CERT" --key named.key --policy strict@1 --verify-key "$PUB" --out named.json 2>"$ERR" ||
  echo "# countersigning failed"
mkdir pol && cp "$PUB" pol/release.pub && cp named.pub pol/named.pub
printf 'version: 1\nextends: strict@1\ntrust:\n  keys:\n    - file: release.pub\n' >pol/policy.yaml
(cd pol && "$B/boxcert" policy check policy.yaml --key named.pub >effective.json 2>"$ERR")
is "$?" 0 "policy check --key: exit 0"
is "$(python3 -c 'import json,sys; print(" ".join(k["file"] + "=" + k["keyid"] for k in json.load(open(sys.argv[1]))["trust"]["keys"]))' pol/effective.json)" \
  "release.pub=$PUB_ID named.pub=$SIGNER_ID" "the effective policy lists both keys with their keyids"
expect_rc 0 "the effective policy verifies the countersigned certificate" "$B/boxcert-verify" verify \
  named.json --policy pol/effective.json --threshold 2
BOXCERT_KEY=named.pub expect_rc 0 "policy check with BOXCERT_KEY" sh -c 'cd pol && "$1" policy check policy.yaml' - "$B/boxcert"
like "$OUT" "$SIGNER_ID" "BOXCERT_KEY's keyid in the effective policy"
cp pol/named.pub pol/named.pub.orig
cp signer.pub pol/named.pub
refused "effective policy, a --key file holding another key: verify" "named.pub" "holds another key" \
  "$B/boxcert-verify" verify named.json --policy pol/effective.json
refused "effective policy, a --key file holding another key: policy check" "named.pub" "holds another key" \
  "$B/boxcert" policy check pol/effective.json
cp pol/named.pub.orig pol/named.pub
cp signer.pub pol/release.pub
refused "effective policy, the policy's key file holding another key" "release.pub" "holds another key" \
  "$B/boxcert-verify" verify named.json --policy pol/effective.json
cp "$PUB" pol/release.pub
# the reports: the policy's keyids and each result's signers
"$B/boxcert-verify" verify named.json "$CERT" --policy strict@1 --key "$PUB" --key named.pub --format json >report.json 2>"$ERR"
is "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(",".join(d["policy"]["keyids"]), ",".join(d["results"][0]["signers"]), ",".join(d["results"][1]["signers"]))' report.json)" \
  "$PUB_ID,$SIGNER_ID $PUB_ID,$SIGNER_ID $PUB_ID" "json: policy.keyids and each result's signers"
"$B/boxcert-verify" verify named.json --policy strict@1 --key "$PUB" --key named.pub >"$OUT" 2>"$ERR"
like "$OUT" "^PASS named.json .* signers=$PUB_ID,$SIGNER_ID\$" "text: the result's signers"
"$B/boxcert-verify" verify named.json --policy strict@1 --key "$PUB" --key named.pub --format junit >"$OUT" 2>"$ERR"
like "$OUT" "<system-out>signers=$PUB_ID,$SIGNER_ID</system-out>" "junit: the signers in system-out"
"$B/boxcert-verify" verify named.json --policy strict@1 --key "$PUB" --key named.pub --format sarif >sarif.json 2>"$ERR"
is "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(",".join(d["runs"][0]["properties"]["inputs"][0]["signers"]))' sarif.json)" \
  "$PUB_ID,$SIGNER_ID" "sarif: the input's signers"
"$B/boxcert-verify" verify named.json --policy strict@2 --key "$PUB" --key named.pub --format sarif >sarif.json 2>"$ERR"
is "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["runs"][0]["results"]; print(len(r) > 0 and all(x["properties"]["signers"] for x in r))' sarif.json)" \
  "True" "sarif: each failed result's signers"
"$B/boxcert-verify" verify named.json --policy strict@1 --key "$PUB" --format json >report.json 2>"$ERR"
is "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(",".join(d["results"][0]["signers"]))' report.json)" \
  "$PUB_ID" "json: an untrusted countersigner is not among the signers"

# ---- sign never writes what verify refuses ---------------------------------------------------
python3 - "$CERT" <<'PY'
import base64, json, os, sys
e = json.load(open(sys.argv[1]))
def write(name, sigs):
    d = dict(e)
    d["signatures"] = e["signatures"] + sigs
    open(name, "w").write(json.dumps(d, separators=(",", ":"), sort_keys=True))
def junk(n):
    return {"keyid": "", "sig": base64.b64encode(os.urandom(n)).decode()}
write("sigs31.json", [junk(64) for _ in range(30)])
write("sigs32.json", [junk(64) for _ in range(31)])
cap = 1 << 20
for name, room in (("near-cap.json", 60), ("under-cap.json", 600)):
    d = dict(e)
    d["signatures"] = e["signatures"] + [{"keyid": "", "sig": ""}]
    base = len(json.dumps(d, separators=(",", ":"), sort_keys=True))
    write(name, [junk(((cap - room - base) // 4) * 3)])
PY
for f in sigs31 sigs32 near-cap under-cap; do
  expect_rc 0 "$f.json verifies as given" "$B/boxcert-verify" verify "$f.json" --policy strict@1 --key "$PUB"
done
mkdir written
# limit WHY NAME CMD...: exit 2, one line saying WHY, nothing in written/
limit() {
  local why=$1 name=$2 rc; shift 2
  "$@" >"$OUT" 2>"$ERR"; rc=$?
  is "$rc" 2 "$name: exit 2"
  like "$ERR" "$why" "$name: says $why"
  is "$(wc -l <"$ERR")" 1 "$name: one line"
  is "$(ls -A written | wc -l)" 0 "$name: nothing written, no temporary file"
  is "$(wc -c <"$OUT")" 0 "$name: nothing on stdout"
}
limit "33 signatures: at most 32" "sign of 32 signatures, one key" "$B/boxcert" sign sigs32.json \
  --key signer.key --policy strict@1 --verify-key "$PUB" --out written/s.json
limit "33 signatures: at most 32" "sign of 32 signatures to stdout" "$B/boxcert" sign sigs32.json \
  --key signer.key --policy strict@1 --verify-key "$PUB"
limit "33 signatures: at most 32" "sign of 31 signatures, two keys" "$B/boxcert" sign sigs31.json \
  --key signer.key --key ec.key --policy strict@1 --verify-key "$PUB" --out written/s.json
limit "verify refuses one over 1048576" "sign near the size cap" "$B/boxcert" sign near-cap.json \
  --key signer.key --policy strict@1 --verify-key "$PUB" --out written/s.json
limit "verify refuses one over 1048576" "sign near the size cap, P-256" "$B/boxcert" sign near-cap.json \
  --key ec.key --policy strict@1 --verify-key "$PUB" --out written/s.json
# the same inputs within the limits: written, and they verify
expect_rc 0 "sign of 31 signatures, one key: written" "$B/boxcert" sign sigs31.json --key signer.key \
  --policy strict@1 --verify-key "$PUB" --out written/s32.json
expect_rc 0 "the 32-signature result verifies" "$B/boxcert-verify" verify written/s32.json --policy strict@1 \
  --key "$PUB" --key signer.pub --threshold 2
expect_rc 0 "sign under the size cap: written" "$B/boxcert" sign under-cap.json --key signer.key \
  --policy strict@1 --verify-key "$PUB" --out written/big.json
expect_rc 0 "the result under the cap verifies" "$B/boxcert-verify" verify written/big.json --policy strict@1 \
  --key "$PUB" --key signer.pub --threshold 2
# a key that already signed adds nothing, so 32 stays 32
expect_rc 0 "sign of 32 by a key that already signed: unchanged, written" "$B/boxcert" sign written/s32.json \
  --key signer.key --policy strict@1 --verify-key "$PUB" --out written/again.json
done_testing
