#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every line of tests/mutations/*.txt still names exactly one line of its file: a change
# that rewrites a checked line must move its mutation in the same change, found here in
# seconds rather than by make mutate at the end of CI. And the check itself can fail: a
# list naming a line no file holds is refused.
. "$(dirname "$0")/../lib/testlib.sh"
M=$BOXCERT_SOURCE_DIR/scripts/mutate.py
expect_rc 0 "every mutation's line matches exactly one line of its file" python3 "$M" --check
printf 'common/keys.c :: no line of keys.c reads like this :: if (0) :: unit/common/test_keys\n' >"$T/stale.txt"
fails "a line that matches nothing is refused" python3 "$M" --check --list "$T/stale.txt"
like "$OUT" "stale.txt:1: matches 0 lines of common/keys.c" "and named by its list and line"
done_testing
