#!/usr/bin/env bash
# Run every libFuzzer target built in BUILD/fuzz for SECONDS each, starting from (and
# adding to) a working copy of its corpus; crashes land in BUILD/fuzz/crashes/<target>/.
set -euo pipefail
build=${1:-build-fuzz}
seconds=${2:-60}
src=$(cd "$(dirname "$0")/.." && pwd)
shopt -s nullglob
targets=("$build"/fuzz/*_fuzzer)
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz.sh: no fuzz targets built"
  exit 0
fi
status=0
for bin in "${targets[@]}"; do
  name=$(basename "$bin" _fuzzer)
  work=$build/fuzz/work/$name
  crashes=$build/fuzz/crashes/$name
  mkdir -p "$work" "$crashes"
  [ -d "$src/fuzz/corpus/$name" ] && cp -n "$src/fuzz/corpus/$name"/* "$work"/ 2>/dev/null || true
  echo "fuzz.sh: $name for ${seconds}s"
  if ! "$bin" -max_total_time="$seconds" -artifact_prefix="$crashes/" -print_final_stats=1 \
      "$work" >"$build/fuzz/$name.log" 2>&1; then
    echo "fuzz.sh: $name FOUND A CRASH: see $crashes and $build/fuzz/$name.log"
    status=1
  fi
  grep -E '^stat::(number_of_executed_units|peak_rss_mb)|cov:' "$build/fuzz/$name.log" | tail -n 3 || true
done
exit $status
