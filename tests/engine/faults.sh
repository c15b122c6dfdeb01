#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Faults on a real engine: a session restarted or removed while it is being collected,
# output onto a full filesystem, unsafe output paths, unusable keys and policies.
. "$(dirname "$0")/../lib/testlib.sh"
need_engine
PY=/usr/bin/python3
V=$BOXCERT_BIN/boxcert-verify
POLICY=$BOXCERT_SOURCE_DIR/examples/policies/demo.yaml
HARD=(--network none --read-only --cap-drop ALL --security-opt no-new-privileges)
"$BOXCERT" keygen --out "$T/k" >/dev/null

proxy_pid=
start_proxy() { # start_proxy ACTION CONTAINER: a proxy socket in front of the real engine
  rm -f "$T/proxy.sock" "$T/proxy.sock.pid"
  $PY "$BOXCERT_SOURCE_DIR/tests/lib/engine_proxy.py" "$T/proxy.sock" /var/run/docker.sock "$1" "$2" \
    >"$T/proxy.log" 2>&1 &
  proxy_pid=$!
  for _ in $(seq 1 50); do [ -S "$T/proxy.sock" ] && return 0; sleep 0.1; done
  return 1
}
stop_proxy() { [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null; wait "$proxy_pid" 2>/dev/null; proxy_pid=; }
trap 'stop_proxy; cleanup_sessions' EXIT

# A session restarted between the first inspect and the final re-inspect.
id=$(session restarted "${HARD[@]}")
ok "proxy in front of the engine" start_proxy restart "$id"
expect_rc 1 "a session restarted during collection is refused" "$BOXCERT" collect "$id" \
  --key "$T/k.key" --engine "unix://$T/proxy.sock" --out "$T/restarted.intoto.json"
like "$ERR" 'changed during collection|no longer running|restarted' "... saying it changed"
ok "... and no file is written" test ! -e "$T/restarted.intoto.json"
stop_proxy
started=$("$DOCKER" inspect --format '{{.RestartCount}} {{.State.Running}}' "$id")
is "${started#* }" "true" "(the proxy really restarted it: running again)"

# A session removed between the inspects.
id2=$(session removed "${HARD[@]}")
ok "proxy in front of the engine" start_proxy remove "$id2"
expect_rc 1 "a session removed during collection is refused" "$BOXCERT" collect "$id2" \
  --key "$T/k.key" --engine "unix://$T/proxy.sock" --out "$T/removed.intoto.json"
ok "... and no file is written" test ! -e "$T/removed.intoto.json"
stop_proxy
fails "(the proxy really removed it)" "$DOCKER" inspect "$id2"

# Output onto a full filesystem: exit 3, the previous file intact, no stray temp file.
id3=$(session full "${HARD[@]}")
mkdir -p "$T/full"
if mount -t tmpfs -o size=16k tmpfs "$T/full" 2>/dev/null; then
  echo previous >"$T/full/c.intoto.json"
  dd if=/dev/zero of="$T/full/filler" bs=1k count=64 2>/dev/null
  expect_rc 3 "collect onto a full filesystem exits 3" "$BOXCERT" collect "$id3" --key "$T/k.key" \
    --out "$T/full/c.intoto.json"
  like "$ERR" 'No space left on device' "... saying so"
  is "$(cat "$T/full/c.intoto.json")" previous "... the previous file is intact"
  is "$(ls -A "$T/full" | tr '\n' ' ')" "c.intoto.json filler " "... no stray temp file"
  "$BOXCERT" collect "$id3" --key "$T/k.key" --out "$T/ok.intoto.json"
  expect_rc 3 "verify --output onto a full filesystem exits 3" "$V" verify "$T/ok.intoto.json" \
    --policy "$POLICY" --key "$T/k.pub" --format json --output "$T/full/report.json"
  ok "... and leaves no report" test ! -e "$T/full/report.json"
  umount "$T/full"
else
  is "cannot mount tmpfs" "mounted" "a small tmpfs for the full-filesystem test (needs root)"
fi

# Unsafe output paths (exit 3): a symlink; a folder writable by others without the sticky bit.
echo target >"$T/target"
ln -s "$T/target" "$T/link.intoto.json"
expect_rc 3 "an output path that is a symlink is refused" "$BOXCERT" collect "$id3" --key "$T/k.key" \
  --out "$T/link.intoto.json"
is "$(cat "$T/target")" target "... and the symlink's target is untouched"
mkdir "$T/open"; chmod 0777 "$T/open"
expect_rc 3 "an output folder writable by others without the sticky bit is refused" "$BOXCERT" \
  collect "$id3" --key "$T/k.key" --out "$T/open/c.intoto.json"
ok "... nothing written there" test -z "$(ls -A "$T/open")"
chmod 1777 "$T/open"
ok "with the sticky bit it is accepted" "$BOXCERT" collect "$id3" --key "$T/k.key" --out "$T/open/c.intoto.json"

# Keys: mode 0644, owned by another user (exit 2).
cp "$T/k.key" "$T/loose.key"; chmod 0644 "$T/loose.key"
expect_rc 2 "a private key with mode 0644 is refused" "$BOXCERT" collect "$id3" --key "$T/loose.key"
cp "$T/k.key" "$T/other.key"; chmod 0600 "$T/other.key"; chown 65534 "$T/other.key"
expect_rc 2 "a private key owned by another user is refused" "$BOXCERT" collect "$id3" --key "$T/other.key"
like "$ERR" 'owned by uid 65534' "... saying whose it is"

# Policies: a directory, unreadable, empty (exit 2).
mkdir "$T/policy-dir"
expect_rc 2 "a policy that is a directory" "$V" verify "$T/ok.intoto.json" --policy "$T/policy-dir" --key "$T/k.pub"
: >"$T/empty.yaml"
expect_rc 2 "an empty policy" "$V" verify "$T/ok.intoto.json" --policy "$T/empty.yaml" --key "$T/k.pub"
cp "$POLICY" "$T/unreadable.yaml"; chmod 0600 "$T/unreadable.yaml"; cp "$T/k.pub" "$T/pub.pem"; chmod 0644 "$T/pub.pem" "$T/ok.intoto.json"
chmod 0755 "$T"
expect_rc 2 "an unreadable policy (verifier running as another user)" setpriv --reuid=65534 --regid=65534 \
  --clear-groups "$V" verify "$T/ok.intoto.json" --policy "$T/unreadable.yaml" --key "$T/pub.pem"
like "$ERR" 'Permission denied' "... saying why"
printf '{"boxcertSeen":1}\n{"certificateId":' >"$T/seen"
expect_rc 2 "a corrupted --seen file" "$V" verify "$T/ok.intoto.json" --policy "$POLICY" --key "$T/k.pub" --seen "$T/seen"
done_testing
