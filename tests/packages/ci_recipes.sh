#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The GitHub Action and the GitLab CI template (tests/cli/ci_recipes.sh) installing the
# boxcert-verify .deb that `make packages` made (BOXCERT_DEBS_DIR), not one the test builds.
[ -n "${BOXCERT_DEBS_DIR:-}" ] && ls "$BOXCERT_DEBS_DIR"/boxcert-verify_*.deb >/dev/null 2>&1 || {
  echo "1..0 # SKIP no boxcert-verify .deb in BOXCERT_DEBS_DIR (make packages sets it)"
  [ "${BOXCERT_REQUIRE_ENGINE:-}" = 1 ] && exit 1
  exit 77
}
exec bash "$(dirname "$0")/../cli/ci_recipes.sh"
