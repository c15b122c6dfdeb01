#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The verifier's container image (packaging/Dockerfile) on the real engine. No debian:*
# image can be pulled here: the base is a Debian root made with mmdebstrap holding the
# libraries the boxcert-verify package depends on, imported with docker import (the root's
# tarball is kept in $BOXCERT_DEB_CACHE, default /var/tmp/boxcert-debcache, so a second run
# only imports it). The image runs as an unprivileged user with a read-only root
# filesystem, no network and no capabilities, and verifies a folder mounted read-only.
# Run by `make packages`; needs root and an engine.
. "$(dirname "$0")/../lib/testlib.sh"
build=${BOXCERT_BUILD_DIR:-$BOXCERT_SOURCE_DIR/build}
cache=${BOXCERT_DEB_CACHE:-/var/tmp/boxcert-debcache}
FR=$BOXCERT_SOURCE_DIR/fixtures/first-release
[ "$(id -u)" -eq 0 ] || skip_all "needs root (mmdebstrap)"
command -v mmdebstrap >/dev/null || skip_all "no mmdebstrap (scripts/deps.sh installs it)"
need_engine
tag=boxcert-verify-test:$RUN_ID
base=boxcert-base-test:$RUN_ID
trap '"$DOCKER" rmi -f "$tag" "$base" >/dev/null 2>&1; rm -rf "$T"' EXIT

debs=${BOXCERT_DEBS_DIR:-}
if [ -z "$debs" ]; then
  debs=$T/debs
  ok "cpack -G DEB" cpack -G DEB -B "$debs" --config "$build/CPackConfig.cmake"
fi
deb=$(ls "$debs"/boxcert-verify_*.deb 2>/dev/null | head -n 1)
ok "the boxcert-verify package" test -f "$deb"
# the base holds what the package depends on: its Depends, without versions
deps=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/(.*//; s/ //g' | grep . | sort | tr '\n' ',')
deps=${deps%,}
tar=$cache/base-bookworm-$(printf '%s' "$deps" | sha256sum | cut -c1-12).tar
mkdir -p "$cache/archives"
if [ ! -s "$tar" ]; then
  t0=$SECONDS
  ok "mmdebstrap: a bookworm base with $deps" sh -c "mmdebstrap --variant=minbase --include='$deps' \
    --skip=essential/unlink \
    --setup-hook='mkdir -p \"\$1\"/var/cache/apt/archives/' \
    --setup-hook='sync-in $cache/archives /var/cache/apt/archives/' \
    --customize-hook='sync-out /var/cache/apt/archives $cache/archives' \
    bookworm - >'$tar.new' && mv '$tar.new' '$tar'"
  echo "# mmdebstrap: $((SECONDS - t0)) s"
fi
t0=$SECONDS
ok "docker import the base" "$DOCKER" import "$tar" "$base"
mkdir -p "$T/ctx" && cp "$deb" "$T/ctx/"
ok "docker build --build-arg BASE=$base" "$DOCKER" build -q --build-arg "BASE=$base" -t "$tag" \
  -f "$BOXCERT_SOURCE_DIR/packaging/Dockerfile" "$T/ctx"
echo "# import and build: $((SECONDS - t0)) s; image $("$DOCKER" image inspect --format '{{.Size}}' "$tag") bytes"
is "$("$DOCKER" image inspect --format '{{.Config.User}}' "$tag")" "10001:10001" "the image runs as 10001:10001"

mkdir -p "$T/certs"
cp "$FR/hardened-runc.intoto.json" "$FR/cap-add-all.intoto.json" "$FR/first-release.pub" "$T/certs/"
chmod 0755 "$T/certs" && chmod 0644 "$T/certs"/*
run=("$DOCKER" run --rm --read-only --network none --cap-drop ALL
     --security-opt no-new-privileges -v "$T/certs:/certs:ro")
at=(--at 2026-12-02T09:17:55Z)
ok "verifies a certificate in the folder mounted read-only" "${run[@]}" "$tag" \
  verify /certs/hardened-runc.intoto.json --policy strict@1 --key /certs/first-release.pub "${at[@]}"
like "$OUT" '^PASS /certs/hardened-runc.intoto.json ' "PASS"
expect_rc 1 "the whole folder: one fails (exit 1)" "${run[@]}" "$tag" \
  verify /certs --policy strict@1 --key /certs/first-release.pub "${at[@]}"
like "$OUT" '^FAIL /certs/cap-add-all.intoto.json ' "the failing one named"
like "$OUT" '^SKIP /certs/first-release.pub' "the key listed as skipped"
expect_rc 1 "a JSON report on stdout (--output -)" "${run[@]}" "$tag" verify /certs \
  --policy strict@1 --key /certs/first-release.pub "${at[@]}" --format json --output - --quiet
cp "$OUT" "$T/report.json"
ok "... which parses" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/report.json"
expect_rc 3 "writing into the read-only folder is an I/O error (exit 3)" "${run[@]}" "$tag" \
  verify /certs --policy strict@1 --key /certs/first-release.pub "${at[@]}" --output /certs/r.json
ok "BOXCERT_POLICY and BOXCERT_KEY" "${run[@]}" -e BOXCERT_POLICY=strict@1 \
  -e BOXCERT_KEY=/certs/first-release.pub "$tag" verify /certs/hardened-runc.intoto.json "${at[@]}"
ok "id" "${run[@]}" --entrypoint id "$tag"
like "$OUT" '^uid=10001\(verifier\) gid=10001\(verifier\)' "not root"
ok "no collector in the image" "${run[@]}" --entrypoint sh "$tag" -c \
  'test ! -e /usr/bin/boxcert && ! ldd /usr/bin/boxcert-verify | grep -E "libcurl|libgit2"'
ok "--help by default" "${run[@]}" "$tag"
like "$OUT" '^usage: boxcert-verify ' "names itself"
done_testing
