#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Engine tests of tests/engine/ run inside the Debian 13 test host (scripts/testhost.sh), as
# root, against the guest's own engine (its unix socket) with the guest's boxcert
# (/usr/local/bin): their probes read the guest's /proc and mountinfo. tests/lib, tests/engine
# and policy/profiles are copied in (tar over ssh) for each run, with the helpers the scripts
# would build with cc built static here (the guest has no compiler) and the guest's own TLS
# client material for the parts that go over its mutual-TLS listener (tcp://127.0.0.1:2376
# from inside). Each script runs under CI=true BOXCERT_REQUIRE_ENGINE=1 (a skip fails), its
# TAP indented beneath one line of this test's own. docs/testhost.md, "The zoos on the guest".
#   guest_engine.sh [SCRIPT...]   (default: zoo.sh zoo_mounts.sh zoo_network.sh
#                                  seccomp_kernel.sh zoo_processes.sh)
# BOXCERT_TESTHOST_TRACE=DIR: each script runs under xtrace with a timestamp on every line,
# written to DIR/SCRIPT.xtrace here (where the time goes: docs/testhost.md).
. "$(dirname "$0")/../lib/testlib.sh"
need_testhost env
G=/root/bxg-$$
trap 'g "rm -rf $G" >/dev/null 2>&1; rm -rf "$T"' EXIT
scripts=("$@")
[ ${#scripts[@]} -gt 0 ] || scripts=(zoo.sh zoo_mounts.sh zoo_network.sh seccomp_kernel.sh zoo_processes.sh)
TRACE=${BOXCERT_TESTHOST_TRACE:-}

mkdir -p "$T/ship/prebuilt" "$T/ship/tls"
E=$BOXCERT_SOURCE_DIR/tests/engine
ok "zoo_helper builds static here" cc -static -O2 -pthread -o "$T/ship/prebuilt/zoo_helper" "$E/zoo_helper.c"
ok "seccomp_helper builds static here" cc -static -O2 -pthread -o "$T/ship/prebuilt/seccomp_helper" \
  "$E/seccomp_helper.c"
cp "$DOCKER_CERT_PATH/ca.pem" "$DOCKER_CERT_PATH/cert.pem" "$DOCKER_CERT_PATH/key.pem" "$T/ship/tls/"
tar -C "$BOXCERT_SOURCE_DIR" -cf "$T/ship/src.tar" tests/lib tests/engine policy/profiles
# (read by every bash the scripts start, through BASH_ENV, when tracing)
printf '%s\n' 'exec 19>>"/tmp/bxtrace.$(basename "$0")"; BASH_XTRACEFD=19' \
  "PS4='+ \$EPOCHREALTIME '; set -x" >"$T/ship/trace.sh"
ok "the tests copied into the guest ($G)" sh -c "tar -C '$T/ship' -cf - prebuilt tls src.tar trace.sh |
  bash '$TESTHOST' ssh -- 'mkdir -p $G && tar -C $G -xf - && tar -C $G -xf $G/src.tar'"

for s in "${scripts[@]}"; do
  t0=$(date +%s)
  g "date -s @$t0" >/dev/null 2>&1   # the guest's clock falls behind under emulation
  # the guest's facts the scripts expect (a runtime the guest must have fails when missing)
  g "cd $G && env CI=true BOXCERT_REQUIRE_ENGINE=1 BOXCERT_BIN=/usr/local/bin \
    BOXCERT_SOURCE_DIR=$G BOXCERT_PREBUILT=$G/prebuilt BOXCERT_EXPECT_RUNTIMES='runc crun runsc' \
    BOXCERT_TLS_HOST=tcp://127.0.0.1:2376 BOXCERT_TLS_CERT_PATH=$G/tls BOXCERT_ZOO_JOBS=2 BOXCERT_COLLECT_JOBS=2 \
    BOXCERT_SESSION_SECONDS=3600 BOXCERT_SCHEMA_LATER=$G/schema ${TRACE:+BASH_ENV=$G/trace.sh} \
    TMPDIR=/tmp bash tests/engine/$s" </dev/null 2>"$T/$s.err" | tee "$T/$s.tap" | sed -u 's/^/    /'
  rc=${PIPESTATUS[0]}
  sed 's/^/    # stderr: /' "$T/$s.err" | head -n 20
  [ -z "$TRACE" ] || { mkdir -p "$TRACE"; g "cat /tmp/bxtrace.$s; rm -f /tmp/bxtrace.*" >"$TRACE/$s.xtrace"; }
  n_ok=$(grep -c '^ok ' "$T/$s.tap"); n_bad=$(grep -c '^not ok ' "$T/$s.tap")
  ok "guest: tests/engine/$s (exit $rc; $n_ok ok, $n_bad not ok; $(( $(date +%s) - t0 )) s)" \
    test "$rc" -eq 0 -a "$n_bad" -eq 0 -a "$n_ok" -gt 0
  # the documents the script handed over (check_schema under BOXCERT_SCHEMA_LATER), validated
  # here with this machine's python3-jsonschema against this tree's schemas
  rm -rf "$T/schema"; mkdir -p "$T/schema"
  g "tar -C $G/schema -cf - . 2>/dev/null && rm -rf $G/schema" | tar -C "$T/schema" -xf - 2>/dev/null
  want=$(grep -c '^# schema .* copied to ' "$T/$s.tap")
  got=0
  for d in "$T/schema"/*/; do
    [ -d "$d" ] || continue
    got=$((got + 1)); n=$(basename "$d"); n=${n##*.}
    ok "guest: $s: schema $n: $(ls "$d" | tr '\n' ' ')" \
      /usr/bin/python3 "$BOXCERT_SOURCE_DIR/tests/lib/schema_check.py" "$BOXCERT" "$n" "$d"*
    grep -E 'INVALID|no schema|no document' "$OUT" | head -n 5 | sed 's/^/#   /'
  done
  is "$got" "$want" "guest: $s: every document set it handed over came back ($want)"
  left=$(g "docker ps -aq --filter label=boxcert.test | wc -l" 2>/dev/null | tr -d ' \r')
  is "$left" 0 "guest: $s left no labelled container behind"
done
done_testing
