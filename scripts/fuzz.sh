#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Run every libFuzzer target built in BUILD/fuzz for SECONDS each, starting from (and
# adding to) a working copy of its corpus; crashes land in BUILD/fuzz/crashes/<target>/.
#   fuzz.sh BUILD SECONDS [JOBS]   JOBS targets at a time (default 1)
# Prints one summary line per target: executions, coverage, corpus size, crashes.
set -euo pipefail
build=${1:-build-fuzz}
seconds=${2:-60}
jobs=${3:-1}
src=$(cd "$(dirname "$0")/.." && pwd)
shopt -s nullglob
targets=("$build"/fuzz/*_fuzzer)
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz.sh: no fuzz targets built"
  exit 0
fi

one() { # one BIN: fuzz one target; exit 1 when it found a crash
  local bin=$1 name work crashes log status=0
  name=$(basename "$bin" _fuzzer)
  work=$build/fuzz/work/$name
  crashes=$build/fuzz/crashes/$name
  log=$build/fuzz/$name.log
  mkdir -p "$work" "$crashes"
  if [ -d "$src/fuzz/corpus/$name" ]; then cp -n "$src/fuzz/corpus/$name"/* "$work"/ 2>/dev/null || true; fi
  # seeds written by difference, expanded by the build (fuzz/CMakeLists.txt)
  if [ -d "$build/fuzz/corpus/$name" ]; then cp -n "$build/fuzz/corpus/$name"/* "$work"/ 2>/dev/null || true; fi
  "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$crashes/" \
    -print_final_stats=1 "$work" >"$log" 2>&1 || status=1
  local execs cov corp
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
  corp=$(ls "$work" | wc -l)
  printf '%-12s seconds=%s executions=%s coverage=%s corpus=%s crashes=%s\n' "$name" "$seconds" \
    "${execs:-?}" "${cov:-?}" "$corp" "$(ls "$crashes" | wc -l)"
  [ "$status" -eq 0 ] || echo "fuzz.sh: $name FOUND A CRASH: see $crashes and $log"
  return "$status"
}
export -f one
export build seconds src
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'one "$@"' _ {}
