#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The one exception to "a skip never passes in CI": a check that cannot apply on this host
# (cgroup v2 on a cgroup v1 host, no AppArmor) says `# n/a: FACT` and passes, but only when it
# is listed in tests/not-applicable.txt with the make test-hosts test that covers it; every
# listed test exists, can say n/a, and names a tests/hosts/ script that exists.
. "$(dirname "$0")/../lib/testlib.sh"
LIST=$BOXCERT_SOURCE_DIR/tests/not-applicable.txt
cd "$BOXCERT_SOURCE_DIR/tests" || exit 1

ok "tests/not-applicable.txt exists" test -f "$LIST"
# the tests that can say n/a: not_applicable (shell) or tap_na (C)
grep -rlE '(^|[^_[:alnum:]])(not_applicable|tap_na)[[:space:]]*[("]' --include=*.sh --include=*.c . |
  sed 's|^\./||' | grep -vE '^(lib/testlib\.sh|tap\.h|cli/not_applicable\.sh)$' | sort >"$T/users"
grep -vE '^[[:space:]]*(#|$)' "$LIST" | awk '{print $1}' | sort >"$T/listed"
while read -r t; do
  grep -qxF "$t" "$T/listed"
  _tap $? "$t can say n/a: it is listed"
done <"$T/users"
while read -r t hosts rest; do
  case "$t" in '' | '#'*) continue ;; esac
  ok "$t (listed) exists" test -f "$t"
  grep -qxF "$t" "$T/users"
  _tap $? "$t (listed) can say n/a"
  ok "$t is covered by $hosts, which exists" test -n "$hosts" -a -f "hosts/$hosts"
  ok "$t: nothing after the test-hosts script" test -z "$rest"
done <"$LIST"
done_testing
