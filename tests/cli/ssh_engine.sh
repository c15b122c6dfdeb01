#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ssh:// engines without a remote host: an `ssh` of the test's own first in PATH, which
# records its arguments and relays its standard input and output to a fake Engine API of
# recorded replies (tests/lib/fake_engine.py, fixtures/inspect/hardened), as
# `docker system dial-stdio` relays to the engine's socket. The real thing, against the test
# host's sshd, is in tests/hosts/ (make test-hosts). Checked: the command line (BatchMode,
# the user, the port, the config, `--` before the host), a certificate at level engine that
# names the ssh:// endpoint, ssh's own error in one line (exit 3), every ssh gone, a host
# that would be an option refused before anything runs, and inspect over ssh.
. "$(dirname "$0")/../lib/testlib.sh"
PY=/usr/bin/python3
FIX=$BOXCERT_SOURCE_DIR/fixtures/inspect/hardened
mkdir -p "$T/bin"
cat >"$T/bin/ssh" <<SH
#!/bin/bash
printf '%s\n' "\$*" >>"$T/ssh.args"
echo "debug1: Connecting to buildhost port 22." >&2
[ -n "\${FAKE_SSH_FAIL:-}" ] && { echo "\$FAKE_SSH_FAIL" >&2; echo "debug1: an afterword" >&2; exit 255; }
echo "debug1: Server host key: ssh-ed25519 SHA256:Zm9vYmFyYmF6cXV4\$FAKE_KEY_SUFFIX" >&2
exec $PY -c '
import os, socket, sys, threading
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
def up():
    while True:
        b = os.read(0, 65536)
        if not b: break
        s.sendall(b)
    s.shutdown(socket.SHUT_WR)
threading.Thread(target=up, daemon=True).start()
while True:
    b = s.recv(65536)
    if not b: break
    os.write(1, b)
' "$T/e.sock"
SH
chmod +x "$T/bin/ssh"
trap 'fake_engine_stop; rm -rf "$T"' EXIT
"$BOXCERT" keygen --out "$T/k" >/dev/null
ok "a fake engine of recorded replies" fake_engine_start "$FIX"
export PATH="$T/bin:$PATH"

expect_rc 0 "collect over ssh://ops@buildhost:2222" env BOXCERT_SSH_CONFIG="$T/ssh_config" \
  "$BOXCERT" collect bxc-hardened --key "$T/k.key" --engine ssh://ops@buildhost:2222 \
  --require-level engine --out "$T/c.intoto.json"
is "$(head -n 1 "$T/ssh.args")" \
  "-o BatchMode=yes -o LogLevel=DEBUG1 -F $T/ssh_config -l ops -p 2222 -- buildhost docker system dial-stdio" \
  "... ssh run as the docker CLI runs it (BatchMode, config, user, port, -- before the host)"
is "$($PY -c 'import base64,json,sys; p=json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))["predicate"]; print(p["engine"]["endpoint"], p["evidence"]["level"])' "$T/c.intoto.json")" \
  "ssh://ops@buildhost:2222 engine" "... a certificate at level engine naming the ssh:// endpoint"
is "$($PY -c 'import base64,json,sys; p=json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))["predicate"]; print(p["engine"].get("sshHostKey"))' "$T/c.intoto.json")" \
  "ssh-ed25519 SHA256:Zm9vYmFyYmF6cXV4" "... and the host key ssh checked"
expect_rc 0 "... it verifies" "$BOXCERT_BIN/boxcert-verify" verify "$T/c.intoto.json" --key "$T/k.pub" \
  --policy "$BOXCERT_SOURCE_DIR/fixtures/certificate/policy.yaml"
n=$(wc -l <"$T/ssh.args")
ok "... over few ssh connections ($n for the whole collection)" test "$n" -ge 1 -a "$n" -le 4
ok "... every ssh gone once collect exits" test -z "$(pgrep -f 'import os, socket, sys, threading')"

: >"$T/ssh.args"
expect_rc 3 "ssh refused: exit 3" env FAKE_SSH_FAIL="ops@buildhost: Permission denied (publickey)." \
  "$BOXCERT" collect bxc-hardened --key "$T/k.key" --engine ssh://ops@buildhost \
  --out "$T/x.intoto.json"
like "$ERR" '^boxcert: .*engine unreachable at ssh://ops@buildhost: ssh: ops@buildhost: Permission denied \(publickey\)\.$' \
  "... one line with ssh's own words"
is "$(grep -c . "$ERR")" 1 "... and only that line"
ok "... no certificate" test ! -e "$T/x.intoto.json"

: >"$T/ssh.args"
expect_rc 2 "a host that would be an ssh option: refused" "$BOXCERT" collect bxc-hardened \
  --key "$T/k.key" --engine "ssh://-oProxyCommand=touch$T/pwned" --out "$T/y.intoto.json"
ok "... before ssh ran" test ! -s "$T/ssh.args"
ok "... nothing ran" test ! -e "$T/pwned"

expect_rc 0 "inspect over ssh" "$BOXCERT" inspect bxc-hardened --engine ssh://buildhost
like "$OUT" '^engine +docker .* at ssh://buildhost$' "... names the ssh:// engine"
done_testing
