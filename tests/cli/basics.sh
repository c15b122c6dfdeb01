#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The binaries answer --help and --version; keygen; configuration errors exit 2;
# an engine where nothing listens exits 3; boxcert-verify carries no engine code.
. "$(dirname "$0")/../lib/testlib.sh"
V=$BOXCERT_BIN/boxcert-verify
DEMO_POLICY=$BOXCERT_SOURCE_DIR/examples/policies/demo.yaml

for b in "$BOXCERT" "$V"; do
  n=$(basename "$b")
  ok "$n --help" "$b" --help
  like "$OUT" '^usage: ' "$n --help prints usage"
  ok "$n --version" "$b" --version
  like "$OUT" "^$n [0-9]+\.[0-9]+\.[0-9]+$" "$n --version prints the version"
  expect_rc 2 "$n with an unknown command exits 2" "$b" frobnicate
  like "$ERR" "^$n: unknown command 'frobnicate'" "one-line error for an unknown command, prefixed once with $n"
done
expect_rc 2 "boxcert-verify has no collect command" "$V" collect x
expect_rc 2 "boxcert-verify has no keygen command" "$V" keygen --out "$T/x"

# keygen
ok "keygen ed25519" "$BOXCERT" keygen --out "$T/ed"
kid=$(cat "$OUT")
is "$(stat -c %a "$T/ed.key")" 600 "private key mode 0600"
want=$(openssl pkey -pubin -in "$T/ed.pub" -outform DER | sha256sum | cut -c1-64)
is "$kid" "$want" "printed keyid = sha256 of the SPKI DER"
like "$T/ed.key" '^-----BEGIN PRIVATE KEY-----$' "private key is PKCS#8 PEM"
ok "keygen ecdsa-p256" "$BOXCERT" keygen --out "$T/ec" --alg ecdsa-p256
ok "openssl reads the P-256 public key" openssl pkey -pubin -in "$T/ec.pub" -noout
cp "$T/ed.pub" "$T/ed.pub.before"
expect_rc 3 "keygen never overwrites" "$BOXCERT" keygen --out "$T/ed"
ok "existing public key untouched" cmp "$T/ed.pub" "$T/ed.pub.before"
: >"$T/only.pub"
expect_rc 3 "keygen with an existing .pub fails" "$BOXCERT" keygen --out "$T/only"
ok "and leaves no .key behind" test ! -e "$T/only.key"
expect_rc 2 "keygen --alg rsa refused" "$BOXCERT" keygen --out "$T/rsa" --alg rsa
echo pass-phrase >"$T/pass"
ok "keygen --encrypt with BOXCERT_KEY_PASSPHRASE_FILE" env BOXCERT_KEY_PASSPHRASE_FILE="$T/pass" \
  "$BOXCERT" keygen --out "$T/enc" --encrypt
like "$T/enc.key" '^-----BEGIN ENCRYPTED PRIVATE KEY-----$' "encrypted PKCS#8"

# --encrypt asks on the terminal (twice), and the key then loads with that passphrase.
cat >"$T/tty_drive.py" <<'PY'
import os, pty, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
out = b""
def expect(word):
    global out
    while word not in out:
        chunk = os.read(fd, 1024)
        if not chunk:
            raise SystemExit("eof before " + word.decode())
        out += chunk
for prompt in (b"New passphrase:", b"Repeat passphrase:"):
    expect(prompt)
    os.write(fd, b"tty-secret\n")
try:
    while os.read(fd, 1024):
        pass
except OSError:
    pass
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
PY
ok "keygen --encrypt prompts on the terminal" env -u BOXCERT_KEY_PASSPHRASE_FILE /usr/bin/python3 "$T/tty_drive.py" \
  "$BOXCERT" keygen --out "$T/tty" --encrypt
like "$T/tty.key" '^-----BEGIN ENCRYPTED PRIVATE KEY-----$' "... and writes encrypted PKCS#8"
echo tty-secret >"$T/tty.pass"
ok "the prompted passphrase unlocks it" bash -c "BOXCERT_KEY_PASSPHRASE_FILE='$T/tty.pass' '$BOXCERT' collect c --key '$T/tty.key' --engine 'unix://$T/nothing.sock'; test \$? -eq 3"
echo wrong >"$T/wrong.pass"
expect_rc 2 "a wrong passphrase is refused" env BOXCERT_KEY_PASSPHRASE_FILE="$T/wrong.pass" \
  "$BOXCERT" collect c --key "$T/tty.key" --engine "unix://$T/nothing.sock"

# unusable keys: exit 2
cp "$T/ed.key" "$T/open.key"; chmod 0644 "$T/open.key"
expect_rc 2 "a private key readable by others is refused" "$BOXCERT" collect c --key "$T/open.key" \
  --engine "unix://$T/nothing.sock"
like "$ERR" 'accessible by group or others' "the refusal says why"
ln -s "$T/ed.key" "$T/link.key"
expect_rc 2 "a private key behind a symlink is refused" "$BOXCERT" collect c --key "$T/link.key" \
  --engine "unix://$T/nothing.sock"
expect_rc 2 "a missing private key is refused" "$BOXCERT" collect c --key "$T/none.key"
echo garbage >"$T/garbage.key"; chmod 600 "$T/garbage.key"
expect_rc 2 "a private key that is not PEM is refused" "$BOXCERT" collect c --key "$T/garbage.key"
expect_rc 2 "an encrypted key without a passphrase source is refused" env -u BOXCERT_KEY_PASSPHRASE_FILE \
  setsid "$BOXCERT" collect c --key "$T/enc.key" --engine "unix://$T/nothing.sock"

# nothing listens: exit 3
expect_rc 3 "collect against a socket where nothing listens exits 3" "$BOXCERT" collect c \
  --key "$T/ed.key" --engine "unix://$T/nothing.sock"
like "$ERR" '^boxcert: .*unreachable' "one line naming the unreachable engine"
is "$(wc -l <"$ERR")" 1 "exactly one line on stderr"
ok "an encrypted key loads with its passphrase (then the engine is unreachable)" \
  bash -c "BOXCERT_KEY_PASSPHRASE_FILE='$T/pass' '$BOXCERT' collect c --key '$T/enc.key' --engine 'unix://$T/nothing.sock'; test \$? -eq 3"

# unusable policies: exit 2
printf 'version: 1\nnetwork: [none]\n' >"$T/bad.yaml"
expect_rc 2 "a policy with an unknown key exits 2" "$V" verify "$T/ed.pub" --policy "$T/bad.yaml" --key "$T/ed.pub"
like "$ERR" 'bad.yaml:2:1' "the error names file:line:col"
mkdir "$T/dir.yaml"
expect_rc 2 "a policy that is a directory exits 2" "$V" verify x --policy "$T/dir.yaml" --key "$T/ed.pub"
: >"$T/empty.yaml"
expect_rc 2 "an empty policy exits 2" "$V" verify x --policy "$T/empty.yaml" --key "$T/ed.pub"
expect_rc 2 "a --key that is not a public key exits 2" "$V" verify x --policy "$DEMO_POLICY" --key "$T/pass"
expect_rc 2 "a policy with no trusted key exits 2" "$V" verify x --policy "$DEMO_POLICY"
expect_rc 2 "a bad --at exits 2" "$V" verify x --policy "$DEMO_POLICY" --key "$T/ed.pub" --at yesterday

# boxcert-verify is built without libcurl, libgit2 or the collector.
nm "$V" >"$T/syms" 2>/dev/null; nm -D "$V" >>"$T/syms" 2>/dev/null
like "$T/syms" 'bx_verify_envelope' "symbols of boxcert-verify are readable"
unlike "$T/syms" '(curl_|git_|bx_collect|bx_engine_)' "boxcert-verify has no curl_, git_ or collector symbols"
nm "$BOXCERT" >"$T/syms2" 2>/dev/null; nm -D "$BOXCERT" >>"$T/syms2" 2>/dev/null
like "$T/syms2" 'curl_easy_perform' "(while boxcert itself does link libcurl)"
done_testing
