#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Versioned built-in profiles (docs/policy.md, "Versions"): the first release's are frozen
# byte for byte; a bare name is the latest; a profile name is never a file (a file of that
# name beside the gate is refused, ./NAME is the file); reports name the policy as resolved;
# a v1 certificate that fails only on what v1 does not carry gets a one-line hint.
. "$(dirname "$0")/../lib/testlib.sh"
PY=/usr/bin/python3
V=$BOXCERT_BIN/boxcert-verify
FR=$BOXCERT_SOURCE_DIR/fixtures/first-release

# strict@1, gvisor@1, cis-docker@1 (the first release's) and the @2 profiles (the wave-2
# release's): their `policy show` output, byte for byte (the SHA-256s recorded when they were
# frozen).
while read -r name sha; do
  "$BOXCERT" policy show "$name" >"$T/$name.yaml"
  is "$(sha256sum <"$T/$name.yaml" | cut -c1-64)" "$sha" "policy show $name is the frozen text"
  "$V" policy show "$name" | cmp -s - "$T/$name.yaml"
  _tap $? "boxcert-verify prints the same $name"
done <<'EOF2'
strict@1 07dcedaffd564f320ddbf206969cb87986f34893260a3c434b48bc1c3bdea093
gvisor@1 c5289107d8777fc6f125ecb0fd0c02cda102caa62eed99b54d8ff5c97238536b
cis-docker@1 a33dd9d5493930b41f68a6e5f623e216636cf2864d8d635e1a9eddc09213e67f
strict@2 7fc2948cbc8cee439ab821d8e33c1c958b62d84438f33a0cc23cf1e2c24e85ec
gvisor@2 a94e7a4275eb0d7adddc1f9ecdcf98264a4c3c77af37a1e4adedcf0ffea415bd
cis-docker@2 bb8914763187dbd54e68b24c03abd430e3a09a0d04040b1c2fb9138bc35b2e37
EOF2
for p in strict gvisor cis-docker; do
  "$BOXCERT" policy show "$p" >"$T/$p.latest"
  "$BOXCERT" policy show "$p@3" | cmp -s - "$T/$p.latest"
  _tap $? "$p is $p@3, the latest"
done
for bad in strict@0 strict@4 strict@ strict@01 gvisor@x; do
  expect_rc 2 "policy show $bad: no such profile" "$BOXCERT" policy show "$bad"
  expect_rc 2 "--policy $bad: no such profile version, never a file" "$V" verify \
    "$FR/hardened-runc.intoto.json" --policy "$bad" --key "$FR/first-release.pub"
done

# A profile name is never a file.
mkdir "$T/gate"
cd "$T/gate" || exit 1
for name in strict strict@1 gvisor@2 cis-docker; do
  printf 'version: 1\ncontainment: {privileged: true}\n' >"$name"
  expect_rc 2 "--policy $name with a file $name here: refused" "$V" verify \
    "$FR/hardened-runc.intoto.json" --policy "$name" --key "$FR/first-release.pub"
  like "$ERR" "^boxcert-verify: $name: names a built-in profile, and a file of that name is in the working directory: write ./$name" \
    "the one line names the file and says ./$name"
  is "$(wc -l <"$ERR")" 1 "one line"
  expect_rc 2 "policy check $name: refused the same way" "$BOXCERT" policy check "$name"
  ok "policy check ./$name: the file" "$BOXCERT" policy check "./$name"
  like "$OUT" '"privileged": true' "./$name is the file's policy"
  rm -f "$name"
done
cd - >/dev/null || exit 1

# Reports name the policy as resolved.
"$V" verify "$FR/hardened-runc.intoto.json" --policy strict@1 --key "$FR/first-release.pub" \
  --at 2026-12-02T09:17:55Z --format json >"$T/r1.json"
printf 'version: 1\nextends: gvisor\n' >"$T/mine.yaml"
"$V" verify "$FR/hardened-runc.intoto.json" --policy "$T/mine.yaml" --key "$FR/first-release.pub" \
  --at 2026-12-02T09:17:55Z --format json >"$T/r2.json"
ok "a report names the profile and the file as resolved" "$PY" - "$T/r1.json" "$T/r2.json" "$T/mine.yaml" <<'PY'
import json, sys
a, b = (json.load(open(p))["policy"] for p in sys.argv[1:3])
assert a["name"] == "strict@1" and a["extends"] is None, a
assert b["name"] == sys.argv[3] and b["extends"] == "gvisor@3", b
assert len(a["sha256"]) == 64 and a["sha256"] != b["sha256"]
PY
check_schema report "$T/r1.json" "$T/r2.json"

# A v1 certificate under the latest strict: it fails only on what v1 does not carry
# (containment.sysctls, the namespaces' sharing, processes, network.links, systemPaths,
# descriptors, hostObjects, seccompPrograms; v3's channels, references, namespaceCreation and
# propagationPeers), and says so.
expect_rc 1 "a v1 hardened certificate fails the latest strict" "$V" verify \
  "$FR/hardened-runc.intoto.json" --policy strict --key "$FR/first-release.pub" --at 2026-12-02T09:17:55Z
like "$OUT" '^    unknown containment.sysctls: sysctls are not in predicate v1' "on containment.sysctls alone"
like "$OUT" '^    unknown containment.processes: the session.s processes: not in predicate v1' \
  "on containment.processes"
like "$OUT" '^    hint: this fails only on what predicate v1 does not carry \(containment.seccompPrograms, containment.namespaces.pid.shared, containment.sysctls, containment.processes, containment.network.links, containment.systemPaths, containment.descriptors, containment.channels, containment.references, containment.namespaceCreation, containment.propagationPeers, containment.hostObjects\)' \
  "with the one-line hint"
is "$(grep -c '^    ' "$OUT")" 13 "twelve failing findings (v2 and v3 members) and the hint"
expect_rc 0 "it passes strict@1" "$V" verify "$FR/hardened-runc.intoto.json" --policy strict@1 \
  --key "$FR/first-release.pub" --at 2026-12-02T09:17:55Z
"$V" verify "$FR/hardened-runc.intoto.json" --policy strict --key "$FR/first-release.pub" \
  --at 2026-12-02T09:17:55Z --format json >"$T/h.json"
ok "--format json says what the version lacks" "$PY" -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
assert r["lacks"] == {"predicateVersion": 1, "members": ["containment.seccompPrograms", "containment.namespaces.pid.shared", "containment.sysctls", "containment.processes", "containment.network.links", "containment.systemPaths", "containment.descriptors", "containment.channels", "containment.references", "containment.namespaceCreation", "containment.propagationPeers", "containment.hostObjects"]}, r.get("lacks")' "$T/h.json"
check_schema report "$T/h.json"
expect_rc 1 "a weak v1 certificate fails the latest strict" "$V" verify \
  "$FR/seccomp-unconfined.intoto.json" --policy strict --key "$FR/first-release.pub" --at 2026-12-02T09:17:55Z
unlike "$OUT" 'hint:' "with failures of its own: no hint"
done_testing
