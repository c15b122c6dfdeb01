#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make test-hosts on a started test host: smoke.sh, seccomp.sh, guest_engine.sh (the zoos)
# and zoo_tls.sh, one after another, each script's TAP followed by the seconds it took; exit 1
# when any failed. (Run side by side, smoke.sh, seccomp.sh and zoo_tls.sh took 228 s against
# 213 s one after another: the guest's two emulated CPUs are the bottleneck throughout.)
cd "$(dirname "$0")/../.." || exit 1
export BOXCERT_REQUIRE_TESTHOST=1
rc=0
for t in smoke seccomp guest_engine zoo_tls; do
  s=$(date +%s)
  bash "tests/hosts/$t.sh"
  r=$?
  [ $r = 0 ] || rc=1
  echo "== tests/hosts/$t.sh: $(($(date +%s) - s)) s (exit $r)"
done
exit $rc
