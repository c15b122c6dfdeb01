#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What runs on several threads, on a real engine: audit --collect --jobs 4 over twelve
# sessions (inspects, collections, the shared image and host facts, writes, verification),
# an audit without --collect on more workers than sessions, and verify --jobs 3 of a folder
# and of a bundle. Run by make test, and under ThreadSanitizer by make tsan (label
# "threads"), where a race report fails the command (exit 66).
. "$(dirname "$0")/../lib/testlib.sh"
need_engine
HARD=(--network none --read-only --cap-drop ALL --security-opt no-new-privileges --memory 256m
  --pids-limit 64)
RUN=threads.run=$RUN_ID
"$BOXCERT" keygen --out "$T/k" >/dev/null
for i in $(seq -w 1 11); do session "t$i" --label "$RUN" "${HARD[@]}" >/dev/null; done
session t12 --label "$RUN" --cap-add NET_ADMIN >/dev/null
mkdir "$T/certs" "$T/empty"

expect_rc 1 "audit --collect --jobs 4 over twelve sessions (left running: leftover)" \
  "$BOXCERT" audit --jobs 4 --policy strict --key "$T/k.pub" --certs "$T/certs" --label "$RUN" \
  --collect --signing-key "$T/k.key" --format json --output "$T/audit.json"
is "$(ls "$T/certs" | grep -c '\.intoto\.json$')" 12 "twelve certificates written"
is "$(ls -A "$T/certs" | grep -vc '\.intoto\.json$')" 0 "no temporary file left"
is "$(/usr/bin/python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]; print(s["sessions"], s["compliant"], s["noncompliant"], s["certificates"]["matched"])' "$T/audit.json")" \
  "12 11 1 12" "twelve rows: eleven compliant, the weak one not; every certificate matched"
check_schema report "$T/audit.json"

expect_rc 1 "audit --jobs 16 (more workers than sessions), without --collect" \
  "$BOXCERT" audit --jobs 16 --policy strict --key "$T/k.pub" --certs "$T/certs" --label "$RUN" \
  --format json --output "$T/audit2.json"
is "$(/usr/bin/python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]; print(s["sessions"], s["compliant"], s["unattested"])' "$T/audit2.json")" \
  "12 11 0" "the same rows from the certificates now in --certs"

expect_rc 1 "verify --jobs 3 of the folder (the weak one fails)" \
  "$BOXCERT" verify "$T/certs" --jobs 3 --policy strict --key "$T/k.pub" --format json --output "$T/v.json"
cat "$T"/certs/*.intoto.json >"$T/all.intoto.jsonl"
expect_rc 1 "verify --jobs 3 of one bundle" \
  "$BOXCERT" verify "$T/all.intoto.jsonl" --jobs 3 --policy strict --key "$T/k.pub" --output "$T/v.txt"
like "$T/v.txt" '^12 certificates: 11 passed, 1 failed' "... eleven pass, one fails"
done_testing
