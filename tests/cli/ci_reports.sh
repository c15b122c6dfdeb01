#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What a CI shows of a verification (tests/lib/ci_reports_check.py): the rules described in
# SARIF with their severities and fingerprints, the policy, tool and time in every format, the
# Markdown step summary with every failing row (cut short of 1 MiB, saying so), --report, and
# the audit's JUnit <error> for an unreachable engine.
. "$(dirname "$0")/../lib/testlib.sh"
BUILD=${BOXCERT_BUILD_DIR:-$BOXCERT_SOURCE_DIR/build}
/usr/bin/python3 -c 'import jsonschema, junitparser' 2>/dev/null ||
  skip_all "no python3-jsonschema or python3-junitparser (scripts/deps.sh installs them)"
[ -x "$BUILD/tests/tools/mkcert" ] || skip_all "no mkcert in $BUILD/tests/tools"
/usr/bin/python3 "$BOXCERT_SOURCE_DIR/tests/lib/ci_reports_check.py" "$BOXCERT_BIN" \
  "$BOXCERT_SOURCE_DIR" "$BUILD" "$T/work"
rc=$?
rm -rf "$T"
exit $rc
