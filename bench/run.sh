#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make bench: the benchmarks of docs/benchmarks.md, measured on this machine and written
# there (bench/bench.py does the work). Needs the build (build/bin, build/bench/mkcerts)
# and an engine with boxcert-session:1 (make bench runs deps, build and engine first).
# Every container it starts carries boxcert.test=$BOXCERT_BENCH_RUN; exactly those are
# removed at the end, also when interrupted. Arguments go to bench.py (--quick, --keep).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
DOCKER=/usr/bin/docker   # Debian's 20.10 client, named on purpose
SOCK=/var/run/docker.sock
SIGSTORE_VERIFY_VERSION=2.1.1   # as tests/engine/interop_sigstore.sh

die() { echo "bench: $*" >&2; exit 2; }

[ -x "$BUILD/bin/boxcert" ] || die "$BUILD/bin/boxcert is missing (make build)"
cmake --build "$BUILD" --target mkcerts seccomp_bench seccomp_read_bench judge_bench >/dev/null
[ "$(curl -s --max-time 3 --unix-socket "$SOCK" http://engine/_ping 2>/dev/null)" = "OK" ] ||
  die "no engine at $SOCK (make engine)"
"$DOCKER" image inspect boxcert-session:1 >/dev/null 2>&1 || die "no boxcert-session:1 image (make engine)"

# The peer verifier, pinned as the interop test pins it; without it that section is skipped.
dir=$BUILD/interop
if command -v node >/dev/null && command -v npm >/dev/null &&
   ! grep -qs "\"version\": \"$SIGSTORE_VERIFY_VERSION\"" "$dir/node_modules/@sigstore/verify/package.json"; then
  mkdir -p "$dir"
  (cd "$dir" && { [ -f package.json ] || echo '{"private":true}' >package.json; } &&
   timeout 300 npm install --no-audit --no-fund --silent "@sigstore/verify@$SIGSTORE_VERIFY_VERSION") ||
    echo "bench: npm install @sigstore/verify failed; the peer section will be skipped" >&2
fi

export BOXCERT_BENCH_RUN=bench-$$-$(date +%s)
cleanup() {
  local ids
  ids=$("$DOCKER" ps -aq --filter "label=boxcert.test=$BOXCERT_BENCH_RUN" 2>/dev/null || true)
  if [ -n "$ids" ]; then "$DOCKER" rm -f $ids >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
"$PY" bench/bench.py --bin "$BUILD/bin" --tools "$BUILD/bench" --work "$BUILD/bench-work" \
  --node-modules "$dir/node_modules" "$@"
