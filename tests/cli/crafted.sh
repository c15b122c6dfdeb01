#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The crafted-input suite (tests/crafted/README.md): over 300 cases of the gate's inputs made
# by the party being judged; prints "N passed, N failed".
. "$(dirname "$0")/../lib/testlib.sh"
BUILD=${BOXCERT_BUILD_DIR:-$BOXCERT_SOURCE_DIR/build}
[ -x "$BUILD/tests/tools/mkcert" ] || skip_all "no mkcert in $BUILD/tests/tools"
/usr/bin/python3 "$BOXCERT_SOURCE_DIR/tests/crafted/crafted.py" "$BOXCERT_BIN" \
  "$BOXCERT_SOURCE_DIR" "$BUILD" "$T/work" "$@"
rc=$?
rm -rf "$T"
exit $rc
