#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# No input that blocks: every file named by an option or an environment variable (a public
# or private key: --key, --verify-key, --signing-key; the passphrase file, a policy and the
# key files it names, --seen, --expect, --requested, --from-json) is opened without blocking and must be a regular file: a FIFO (no
# writer: a blocking open would hang for ever), a unix socket, a character device and a
# folder are each refused with exit 2 and a line naming the file, within 5 seconds (a hang
# ends the test at once: "Bail out!").
. "$(dirname "$0")/../lib/testlib.sh"
B=$BOXCERT_BIN
SRC=$BOXCERT_SOURCE_DIR
PUB=$SRC/fixtures/first-release/first-release.pub
CERT=$SRC/fixtures/first-release/hardened-runc.intoto.json
cd "$T" || exit 1

mkfifo fifo
python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' sock
mkdir folder
"$B/boxcert" keygen --out key >/dev/null 2>&1 || echo "# keygen failed"
printf 'version: 1\n' >policy.yaml
echo '{"sessions":[]}' >expect.json

# refused NAME PATTERN CMD...: exit 2 within 5 s, the error names the file
refused() {
  local name=$1 file=$2 rc; shift 2
  timeout 5 "$@" >"$OUT" 2>"$ERR"; rc=$?
  if [ "$rc" -eq 124 ]; then
    _tap 1 "$name"
    echo "Bail out! $name hung (killed after 5 s)"
    rm -rf "$T"
    exit 1
  elif [ "$rc" -ne 2 ]; then
    echo "#   exit $rc, want 2"
    _tap 1 "$name"
  elif ! grep -qE -- "$file\"?: .*(not a regular file|is a directory)" "$ERR"; then
    echo "#   the error does not name $file as not a regular file:"; sed 's/^/#   | /' "$ERR"
    _tap 1 "$name"
  else
    _tap 0 "$name"
  fi
}

for f in fifo sock /dev/zero folder; do
  refused "verify --key $f" "$f" "$B/boxcert-verify" verify "$CERT" --policy strict@1 --key "$f"
  refused "verify --policy $f" "$f" "$B/boxcert-verify" verify "$CERT" --policy "$f" --key "$PUB"
  refused "verify --seen $f" "$f" "$B/boxcert-verify" verify "$CERT" --policy strict@1 \
    --key "$PUB" --seen "$f"
  refused "policy check $f" "$f" "$B/boxcert" policy check "$f"
  refused "sign --key $f (a private key)" "$f" "$B/boxcert" sign "$CERT" --key "$f" \
    --policy strict@1 --verify-key "$PUB"
  refused "sign --verify-key $f" "$f" "$B/boxcert" sign "$CERT" --key key.key \
    --policy strict@1 --verify-key "$f"
  refused "BOXCERT_KEY_PASSPHRASE_FILE=$f (keygen --encrypt)" "$f" \
    env BOXCERT_KEY_PASSPHRASE_FILE="$f" "$B/boxcert" keygen --encrypt --out "enc-$RANDOM"
  refused "audit --expect $f" "$f" "$B/boxcert" audit --certs folder --policy strict@1 --key "$PUB" --expect "$f" \
    --engine unix://"$T"/no-engine.sock
  refused "collect --requested $f" "$f" "$B/boxcert" collect some-session --key key.key \
    --requested "$f" --engine unix://"$T"/no-engine.sock
  refused "verify --expect $f" "$f" "$B/boxcert-verify" verify "$CERT" --policy strict@1 \
    --key "$PUB" --expect "$f"
  refused "collect --key $f (a private key)" "$f" "$B/boxcert" collect some-session --key "$f" \
    --engine unix://"$T"/no-engine.sock
  refused "audit --collect --signing-key $f" "$f" "$B/boxcert" audit --certs folder --policy strict@1 \
    --key "$PUB" --label run=x --collect --signing-key "$f" --engine unix://"$T"/no-engine.sock
  refused "audit --from-json $f" "$f" "$B/boxcert" audit --from-json "$f"
  refused "ledger add --key $f" "$f" "$B/boxcert" ledger add --repo "$T" --rev HEAD \
    --policy strict@1 --key "$f" "$CERT"
  refused "ledger verify --policy $f" "$f" "$B/boxcert" ledger verify --repo "$T" --range HEAD \
    --policy "$f" --key "$PUB"
  # a policy naming such a file as a trusted key
  case $f in /*) kf=$f ;; *) kf=$T/$f ;; esac
  printf 'version: 1\ntrust:\n  keys:\n    - file: %s\n' "$kf" >trust.yaml
  refused "a policy's trust.keys file: $f" "$f" "$B/boxcert-verify" verify "$CERT" --policy trust.yaml
done

# DOCKER_CERT_PATH's TLS files for a tcp:// engine
mkdir tls
: >tls/cert.pem
: >tls/key.pem
mkfifo tls/ca.pem
refused "DOCKER_CERT_PATH with a FIFO as ca.pem" "tls/ca.pem" env DOCKER_TLS_VERIFY=1 \
  DOCKER_CERT_PATH="$T/tls" "$B/boxcert" collect some-session --key key.key \
  --engine tcp://127.0.0.1:9
# a passphrase file that is a pipe (process substitution) is not a regular file either
refused "BOXCERT_KEY_PASSPHRASE_FILE=<(echo secret)" "/dev/fd/[0-9]+" \
  env BOXCERT_KEY_PASSPHRASE_FILE=<(echo secret) "$B/boxcert" keygen --encrypt --out piped
printf 'secret\n' >pass
ok "an encrypted key (passphrase from a regular file)" \
  env BOXCERT_KEY_PASSPHRASE_FILE=pass "$B/boxcert" keygen --encrypt --out enc
refused "sign with an encrypted key, BOXCERT_KEY_PASSPHRASE_FILE=fifo" fifo \
  env BOXCERT_KEY_PASSPHRASE_FILE=fifo "$B/boxcert" sign "$CERT" --key enc.key \
  --policy strict@1 --verify-key "$PUB"

# "-" stays a stream (certificates from stdin), capped by --max-size
expect_rc 1 "verify - over --max-size: a failed row, not a hang" \
  timeout 10 sh -c "head -c 200000 /dev/zero | tr '\\0' a | '$B/boxcert-verify' verify - \
    --policy strict@1 --key '$PUB' --max-size 1000"
like "$OUT" "too large" "... the row says too large"
done_testing
