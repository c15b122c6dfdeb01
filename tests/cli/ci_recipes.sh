#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The GitHub Action (action.yml) and the GitLab CI template (ci/boxcert-verify.gitlab-ci.yml)
# run as a runner runs them, from their own shell lines (tests/lib/ci_recipes.py): a clean
# folder, a missing reports folder, a seen file in a folder not made yet, a re-run on the same
# runner, the .deb from a path and from a URL. The .deb is make packages' boxcert-verify when
# BOXCERT_DEBS_DIR holds one, else one this test builds from the build's boxcert-verify with the
# package's name, version and dependencies.
. "$(dirname "$0")/../lib/testlib.sh"
BUILD=${BOXCERT_BUILD_DIR:-$BOXCERT_SOURCE_DIR/build}
for need in dpkg-deb curl ldd sha256sum; do
  command -v "$need" >/dev/null || skip_all "no $need"
done
/usr/bin/python3 -c 'import yaml, jsonschema, junitparser' 2>/dev/null ||
  skip_all "no python3-yaml, python3-jsonschema or python3-junitparser (scripts/deps.sh installs them)"
[ -x "$BUILD/tests/tools/mkcert" ] || skip_all "no mkcert in $BUILD/tests/tools"
deb=$(ls "${BOXCERT_DEBS_DIR:-/nonexistent}"/boxcert-verify_*.deb 2>/dev/null | head -n 1)
if [ -z "$deb" ]; then
  v=$("$BOXCERT_BIN/boxcert-verify" --version | sed -n '1s/^boxcert-verify //p')
  mkdir -p "$T/deb/DEBIAN" "$T/deb/usr/bin"
  cp "$BOXCERT_BIN/boxcert-verify" "$T/deb/usr/bin/"
  cat >"$T/deb/DEBIAN/control" <<CONTROL
Package: boxcert-verify
Version: $v
Architecture: $(dpkg --print-architecture)
Maintainer: boxcert tests <tests@boxcert.invalid>
Depends: libc6, libjansson4, libssl3, libyaml-0-2
Description: offline verifier of container containment certificates (built by a test)
CONTROL
  deb="$T/boxcert-verify_${v}_test.deb"
  dpkg-deb --root-owner-group --build "$T/deb" "$deb" >/dev/null || { echo "Bail out! dpkg-deb --build failed"; exit 1; }
fi
/usr/bin/python3 "$BOXCERT_SOURCE_DIR/tests/lib/ci_recipes.py" "$BOXCERT_SOURCE_DIR" "$BUILD" "$T/work" "$deb"
rc=$?
rm -rf "$T"
exit $rc
