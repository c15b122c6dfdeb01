#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Reports never lose or corrupt a result: every format of verify (and of the audit, rendered
# from a report) on hostile file names, session names and labels, each read by a real consumer
# (tests/lib/reports_check.py: the JSON Schemas, the SARIF 2.1.0 schema, junitparser,
# xml.etree, xmllint) and decoded with the encodings of docs/ci.md.
. "$(dirname "$0")/../lib/testlib.sh"
BUILD=${BOXCERT_BUILD_DIR:-$BOXCERT_SOURCE_DIR/build}
for need in xmllint; do
  command -v "$need" >/dev/null || skip_all "no $need (scripts/deps.sh installs libxml2-utils)"
done
/usr/bin/python3 -c 'import jsonschema, junitparser' 2>/dev/null ||
  skip_all "no python3-jsonschema or python3-junitparser (scripts/deps.sh installs them)"
[ -x "$BUILD/tests/tools/mkcert" ] || skip_all "no mkcert in $BUILD/tests/tools"
/usr/bin/python3 "$BOXCERT_SOURCE_DIR/tests/lib/reports_check.py" "$BOXCERT_BIN" \
  "$BOXCERT_SOURCE_DIR" "$BUILD" "$T/work"
rc=$?
rm -rf "$T"
exit $rc
