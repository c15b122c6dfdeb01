#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A policy denying a syscall no table knows (docs/policy.md, "seccomp.deny is judged by
# number"): refused at load, exit 2, the message naming the file, the place and the name,
# by both binaries; names some table knows (an x86 one, an arm one, one of x32 only) load.
. "$(dirname "$0")/../lib/testlib.sh"
V=$BOXCERT_BIN/boxcert-verify

write() { printf 'version: 1\ncontainment:\n  seccomp:\n    deny: [%s]\n' "$1" >"$T/p.yaml"; }
for good in "ptrace" "ptrace, cacheflush" "arm_fadvise64_64" "_sysctl, kexec_file_load"; do
  write "$good"
  ok "deny [$good] loads" "$V" policy check "$T/p.yaml"
done
for bad in "frobnicate" "ptrace, nosuchcall" "ptrac" "mseal_never"; do
  name=${bad##*, }
  write "$bad"
  for bin in "$V" "$BOXCERT"; do
    expect_rc 2 "$(basename "$bin"): deny [$bad] is refused at load" "$bin" policy check "$T/p.yaml"
    like "$ERR" "p\.yaml:4:[0-9]+: containment\.seccomp\.deny\[[0-9]+\]: .*no syscall table .* knows $name" \
      "... naming the file, the place and $name"
  done
done
# the built-in profiles' lists are all known
for prof in strict@2 strict@3 strict; do
  ok "$prof loads" "$V" policy check "$prof"
done
done_testing
