#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Install from Debian whatever boxcert's build, tests and demo need and is missing.
# Idempotent; prints nothing when everything is present.
set -euo pipefail

pkgs=(
  gcc make cmake pkg-config git curl openssl ca-certificates
  libssl-dev libjansson-dev libyaml-dev libgit2-dev libcurl4-openssl-dev libseccomp-dev
  docker.io containerd runc runsc busybox-static podman
  iptables catatonit slirp4netns uidmap xz-utils
  strace python3-jsonschema python3-junitparser libxml2-utils cmark-gfm clang libclang-rt-14-dev valgrind chromium iproute2
  man-db zsh lintian mmdebstrap dpkg-dev fakeroot file
)

missing=()
for p in "${pkgs[@]}"; do
  st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$st" = "install ok installed" ] || missing+=("$p")
done
# node and npm (the @sigstore/verify interop test) only when the machine has none.
if ! command -v node >/dev/null 2>&1; then missing+=(nodejs); fi
if ! command -v npm >/dev/null 2>&1; then missing+=(npm); fi

[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "deps.sh: missing Debian packages: ${missing[*]}" >&2
  echo "deps.sh: run as root (or: sudo apt-get install ${missing[*]})" >&2
  exit 1
fi

echo "deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
# A fresh machine has no package lists yet; refresh them once per call.
if ! apt-get update -qq >"$log" 2>&1; then
  cat "$log" >&2; rm -f "$log"; echo "deps.sh: apt-get update failed" >&2; exit 1
fi
if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" >"$log" 2>&1; then
  tail -n 30 "$log" >&2; rm -f "$log"; echo "deps.sh: apt-get install failed" >&2; exit 1
fi
rm -f "$log"
echo "deps.sh: done" >&2
