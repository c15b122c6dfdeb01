#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cmake --install puts both binaries (and the docs and examples) under a prefix.
. "$(dirname "$0")/../lib/testlib.sh"
build=${BOXCERT_BUILD_DIR:-$BOXCERT_SOURCE_DIR/build}
ok "cmake --install into a temporary prefix" cmake --install "$build" --prefix "$T/prefix"
ok "boxcert installed and runs" "$T/prefix/bin/boxcert" --version
ok "boxcert-verify installed and runs" "$T/prefix/bin/boxcert-verify" --version
ok "example policy installed" test -f "$T/prefix/share/doc/boxcert/examples/policies/demo.yaml"
done_testing
