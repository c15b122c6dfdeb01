#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Outputs never overwrite inputs or each other (docs/security.md, "Outputs never overwrite
# inputs"): every file a command writes (verify --output, --report, --seen; sign --out;
# collect --out, --evidence-out; audit --output; ledger verify --output) is refused, exit 2,
# before any work, when it is another output, an input (a certificate, a policy, a key, an
# --expect list, --requested, audit's --from-json) or lands under a certificate's name in a
# folder of certificates read, however it is spelled: ./, .., a symlink (to the file, to its
# folder, a chain, a dangling one whose target is another output), a hard link. A refusal
# writes nothing: every file keeps its bytes and no temporary file is left.
. "$(dirname "$0")/../lib/testlib.sh"
V=$BOXCERT_BIN/boxcert-verify
B=$BOXCERT_BIN/boxcert
G=$T/g
cp -r "$BOXCERT_SOURCE_DIR/fixtures/certificate/keys" "$BOXCERT_SOURCE_DIR/fixtures/certificate/policy.yaml" "$T/" 2>/dev/null
mkdir -p "$G/certs/sub" "$G/other"
mv "$T/keys" "$T/policy.yaml" "$G/"
CERT=$G/certs/a.intoto.json
cp "$BOXCERT_SOURCE_DIR/fixtures/certificate/valid/ed25519/cert.intoto.json" "$CERT"
cp "$CERT" "$G/certs/sub/b.intoto.json"
P=$G/policy.yaml
PUB=$G/keys/regress-ed25519.pub
KEY=$G/keys/regress-ed25519.key
chmod 600 "$G"/keys/*.key
printf '{"boxcertExpect":1,"sessions":[]}\n' >"$G/expect.json"
printf '{"boxcertSeen":2,"maxSkewSeconds":300}\n' >"$G/seen.jsonl"
ln -s "$G" "$T/glink"
ln -s "$P" "$T/plink"
ln -s "$T/plink" "$T/plink2"
ln "$P" "$G/other/policy-hard"
ln "$KEY" "$G/other/key-hard"
ln "$CERT" "$G/other/cert-hard"
ln -s "$G/not-yet" "$T/dangling"
AT=(--at 2035-12-29T23:00:00Z)

# the state of every file under $G and $T (names, bytes): a refusal changes nothing
state() {
  (cd "$T" && find . -path ./out -prune -o -path ./err -prune -o -printf '%p %y %l\n' | LC_ALL=C sort &&
    find . -path ./out -prune -o -path ./err -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
}

# refused WHAT CMD...: exit 2, the error says why, nothing under $T changed
refused() {
  local name=$1 before after
  shift
  before=$(state)
  expect_rc 2 "$name: refused (exit 2)" "$@"
  like "$ERR" 'never (overwrites|lands)' "$name: ... the error says why"
  after=$(state)
  is "$after" "$before" "$name: ... nothing written, no temporary file"
}

vfy() { "$V" verify "${AT[@]}" --policy "$P" "$@"; }

# --- verify: an output against each input, in every spelling --------------------------------
refused "--output is the policy" vfy "$CERT" --output "$P"
refused "--output is ./policy" sh -c "cd '$G' && '$V' verify --at 2035-12-29T23:00:00Z --policy policy.yaml certs --output ./policy.yaml"
refused "--output is certs/../policy" vfy "$CERT" --output "$G/certs/../policy.yaml"
refused "--output is .//policy with doubled slashes" vfy "$CERT" --output "$G//./policy.yaml"
refused "--output through a symlinked folder" vfy "$CERT" --output "$T/glink/policy.yaml"
refused "--output through a symlinked folder and .." vfy "$CERT" --output "$T/glink/certs/sub/../../policy.yaml"
refused "--output is a symlink to the policy" vfy "$CERT" --output "$T/plink"
refused "--output is a chain of symlinks to the policy" vfy "$CERT" --output "$T/plink2"
refused "--output is a hard link to the policy" vfy "$CERT" --output "$G/other/policy-hard"
refused "--output is the --key file" vfy "$CERT" --key "$PUB" --output "$PUB"
refused "--output is a key of BOXCERT_KEY" env BOXCERT_KEY="$PUB" "$V" verify "${AT[@]}" --policy "$P" "$CERT" --output "$PUB"
refused "--output is the policy of BOXCERT_POLICY" env BOXCERT_POLICY="$P" "$V" verify "${AT[@]}" "$CERT" --output "$P"
refused "--output is the certificate" vfy "$CERT" --output "$CERT"
refused "--output is a hard link to the certificate" vfy "$CERT" --output "$G/other/cert-hard"
refused "--output is the --expect list" vfy "$CERT" --expect "$G/expect.json" --output "$G/expect.json"
refused "--output is the --seen file" vfy "$CERT" --seen "$G/seen.jsonl" --output "$G/seen.jsonl"
refused "--report is the --seen file (./)" vfy "$CERT" --seen "$G/seen.jsonl" --report "json=$G/./seen.jsonl"
refused "--report is the policy" vfy "$CERT" --report "sarif=$P"
refused "--report is the --key file" vfy "$CERT" --key "$PUB" --report "junit=$G/keys/../keys/regress-ed25519.pub"
refused "two --report name one new file" vfy "$CERT" --report "json=$G/new.json" --report "sarif=$G/./new.json"
refused "--output and --report name one new file" vfy "$CERT" --output "$G/new.txt" --report "json=$T/glink/new.txt"
refused "--seen is a new file another output names" vfy "$CERT" --seen "$G/new.jsonl" --report "json=$G/new.jsonl"
refused "a dangling symlink whose target is the new --seen file" vfy "$CERT" --seen "$G/not-yet" --output "$T/dangling"
refused "--seen is the policy" vfy "$CERT" --seen "$P"
refused "--seen is a certificate" vfy "$CERT" --seen "$CERT"
refused "--output under a certificate's name in the folder read" vfy "$G/certs" --output "$G/certs/report.intoto.json"
refused "--report as a bundle in the folder read" vfy "$G/certs" --report "json=$G/certs/r.intoto.jsonl"
refused "--output in the folder read, through a symlinked folder" vfy "$G/certs" --output "$T/glink/certs/x.intoto.json"
refused "--recursive: --output in a subfolder read" vfy "$G/certs" --recursive --output "$G/certs/sub/x.intoto.json"
refused "--recursive: --seen in a subfolder read" vfy "$G/certs" --recursive --seen "$G/certs/sub/s.intoto.jsonl"
refused "--output is the folder read" vfy "$G/certs" --output "$G/certs"
refused "boxcert (not only boxcert-verify) refuses the same" "$B" verify "${AT[@]}" --policy "$P" "$CERT" --output "$P"

# --- what is allowed stays allowed ------------------------------------------------------------
ok "outputs distinct from every input: verify passes" vfy "$G/certs" --output "$G/r.txt" --report "json=$G/r.json" --seen "$G/seen2.jsonl"
ok "... and wrote each" test -s "$G/r.txt" -a -s "$G/r.json" -a -s "$G/seen2.jsonl"
ok "the same run again, over the outputs it wrote (each an existing file)" vfy "$G/certs" --output "$G/r.txt" --report "json=$G/r.json" --key "$PUB"
ok "a report that is not a certificate's name may sit in the folder read" vfy "$G/certs" --output "$G/certs/report.json"
ok "without --recursive a subfolder is not read: an output may go there" vfy "$G/certs" --output "$G/certs/sub/new.intoto.json"
ok "a built-in profile's name is not a file: an output of that name is fine" sh -c "cd '$G/other' && '$V' verify --at 2035-12-29T23:00:00Z --policy strict --key '$PUB' '$CERT' --output strict >/dev/null; test -s strict"

# --- sign -------------------------------------------------------------------------------------
sgn() { "$B" sign "$CERT" --policy "$P" "$@"; }
refused "sign --out is the private --key" sgn --key "$KEY" --out "$KEY"
refused "sign --out is a hard link to the private key" sgn --key "$KEY" --out "$G/other/key-hard"
refused "sign --out is the private key through a symlinked folder" sgn --key "$KEY" --out "$T/glink/keys/regress-ed25519.key"
refused "sign --out is a key of BOXCERT_SIGNING_KEY" env BOXCERT_SIGNING_KEY="$KEY" "$B" sign "$CERT" --policy "$P" --out "$KEY"
refused "sign --out is the certificate signed" sgn --key "$KEY" --out "$CERT"
refused "sign --out is the --verify-key" sgn --key "$KEY" --verify-key "$PUB" --out "$PUB"
refused "sign --out is the policy" sgn --key "$KEY" --out "$P"

# --- collect (refused before any engine is asked) ----------------------------------------------
col() { "$B" collect --engine unix:///nonexistent/docker.sock "$@" c1; }
refused "collect --out is the private --key" col --key "$KEY" --out "$KEY"
refused "collect --out is the --requested file" col --key "$KEY" --requested "$G/expect.json" --out "$G/expect.json"
refused "collect --evidence-out is the private key" col --key "$KEY" --out "$G/c.json" --evidence-out "$KEY"
refused "collect --out inside the --evidence-out folder" col --key "$KEY" --out "$G/ev/c.json" --evidence-out "$G/ev"
refused "collect --out inside an existing --evidence-out folder" col --key "$KEY" --out "$G/other/c.json" --evidence-out "$G/other"

# --- audit -----------------------------------------------------------------------------------
refused "audit --output is the policy" "$B" audit --policy "$P" --certs "$G/certs" --label a=b --output "$P"
refused "audit --output under a certificate's name in --certs" "$B" audit --policy "$P" --certs "$G/certs" --label a=b --output "$G/certs/r.intoto.json"
refused "audit --output is the --expect list" "$B" audit --policy "$P" --certs "$G/certs" --expect "$G/expect.json" --output "$G/expect.json"
refused "audit --output is the --signing-key" "$B" audit --policy "$P" --certs "$G/certs" --label a=b --collect --signing-key "$KEY" --output "$KEY"
refused "audit --output is the report it reads (--from-json)" "$B" audit --from-json "$G/expect.json" --output "$G/expect.json"

# --- ledger verify ---------------------------------------------------------------------------
refused "ledger verify --output is the policy" "$B" ledger verify --repo "$G" --range a..b --policy "$P" --output "$P"
refused "ledger verify --output is the --key" "$B" ledger verify --repo "$G" --range a..b --policy "$P" --key "$PUB" --output "$G/other/../keys/regress-ed25519.pub"

done_testing
