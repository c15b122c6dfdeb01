#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make test-hosts on a started test host: smoke.sh, seccomp.sh and zoo_tls.sh side by side
# (while one waits on ssh or works on this machine, the guest's CPUs serve the others; none
# asserts anything of the guest as a whole, and their sessions have names of their own), then
# guest_engine.sh alone (the zoos read the guest's kernel and count every labelled container
# there). Each script's TAP is printed whole, in that order, with the seconds it took; exit 1
# when any failed.
cd "$(dirname "$0")/../.." || exit 1
export BOXCERT_REQUIRE_TESTHOST=1
out=$(mktemp -d "${TMPDIR:-/tmp}/boxcert-hosts.XXXXXX")
trap 'rm -rf "$out"' EXIT
rc=0
run() { # run NAME: tests/hosts/NAME.sh, its TAP and exit code in $out
  local s; s=$(date +%s)
  bash "tests/hosts/$1.sh" >"$out/$1.tap" 2>&1
  echo $? >"$out/$1.rc"
  echo $(($(date +%s) - s)) >"$out/$1.s"
}
show() { # show NAME: what run NAME left
  cat "$out/$1.tap"
  [ "$(cat "$out/$1.rc")" = 0 ] || rc=1
  echo "== tests/hosts/$1.sh: $(cat "$out/$1.s") s (exit $(cat "$out/$1.rc"))"
}
s0=$(date +%s)
pids=()
for t in smoke seccomp zoo_tls; do run "$t" & pids+=($!); done
wait "${pids[@]}"
for t in smoke seccomp zoo_tls; do show "$t"; done
echo "== smoke.sh, seccomp.sh and zoo_tls.sh side by side: $(($(date +%s) - s0)) s"
run guest_engine
show guest_engine
exit $rc
