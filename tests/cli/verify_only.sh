#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The auditor's build: -DBOXCERT_VERIFY_ONLY=ON configures and builds boxcert-verify with
# OpenSSL, jansson and libyaml only. pkg-config is given those three (and OpenSSL's two
# parts) and nothing else, so a configure step that asked for libcurl, libgit2 or
# libseccomp would fail here; the binary links none of them and verifies a certificate.
. "$(dirname "$0")/../lib/testlib.sh"
FR=$BOXCERT_SOURCE_DIR/fixtures/first-release
pc=$T/pkgconfig
mkdir -p "$pc"
for m in openssl libssl libcrypto jansson yaml-0.1; do
  d=$(pkg-config --variable pcfiledir "$m") || { echo "Bail out! no $m.pc"; exit 1; }
  ln -s "$d/$m.pc" "$pc/$m.pc"
done
ok "pkg-config sees no libcurl" bash -c "! PKG_CONFIG_LIBDIR='$pc' pkg-config --exists libcurl"
ok "configures with OpenSSL, jansson and libyaml only" env PKG_CONFIG_LIBDIR="$pc" \
  cmake -S "$BOXCERT_SOURCE_DIR" -B "$T/b" -DBOXCERT_VERIFY_ONLY=ON
unlike "$OUT" 'libcurl|libgit2|libseccomp' "configure asks for no other library"
ok "builds" cmake --build "$T/b" -j "${BOXCERT_JOBS:-2}"
V=$T/b/bin/boxcert-verify
ok "boxcert-verify was built" test -x "$V"
ok "and boxcert was not" test ! -e "$T/b/bin/boxcert"
ok "ldd" ldd "$V"
unlike "$OUT" 'libcurl|libgit2|libseccomp|libssh' "links no engine, git or seccomp library"
like "$OUT" 'libcrypto' "links OpenSSL"
ok "--version" "$V" version --format json
like "$OUT" '"name":"boxcert-verify"' "names itself"
unlike "$OUT" 'libcurl|libgit2' "and no engine library"
ok "verifies a certificate" "$V" verify "$FR/hardened-runc.intoto.json" --policy strict@1 \
  --key "$FR/first-release.pub" --at 2026-12-02T09:17:55Z
expect_rc 2 "collect is not one of its commands" "$V" collect x
like "$ERR" "^boxcert-verify: 'collect' is a command of boxcert" "and it says so, once prefixed"
ok "cpack makes the boxcert-verify package alone" bash -c "cd '$T/b' && cpack -G DEB"
ok "one package" bash -c "ls '$T/b'/*.deb | wc -l | grep -qx 1 && ls '$T/b'/boxcert-verify_*.deb"
done_testing
