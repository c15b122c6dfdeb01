#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The audit's progress on a terminal (script(1) gives it one): with --jobs 4 over a dozen
# sessions the workers finish out of order, and each phase's count still only goes up;
# --quiet shows none.
. "$(dirname "$0")/../lib/testlib.sh"
need_engine
command -v script >/dev/null || skip_all "no script (util-linux)"
cd "$T" || exit 1
"$BOXCERT" keygen --out k >/dev/null
mkdir certs
for i in $(seq 1 12); do session "p$i" --network none >/dev/null; done
for run in 1 2 3; do
  script -qec "'$BOXCERT' audit --policy strict --key k.pub --certs certs --label boxcert.test=$RUN_ID --jobs 4" \
    /dev/null >"progress$run.log" 2>&1
  ok "run $run: every phase's count only goes up" python3 - "progress$run.log" <<'PY'
import re, sys
text = open(sys.argv[1], errors="replace").read()
last, seen = {}, 0
for m in re.finditer(r"boxcert audit: (\w+) (\d+)(?:/(\d+))?", text):
    phase, done = m.group(1), int(m.group(2))
    seen += 1
    assert done >= last.get(phase, 0), f"{phase} went from {last[phase]} to {done}"
    last[phase] = done
assert seen and last.get("sessions") == 12, (seen, last)
PY
done
script -qec "'$BOXCERT' audit --quiet --policy strict --key k.pub --certs certs --label boxcert.test=$RUN_ID --jobs 4" \
  /dev/null >quiet.log 2>&1
unlike quiet.log 'boxcert audit: ' "--quiet: no progress"
done_testing
