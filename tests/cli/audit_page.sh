#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The audit page for a reviewer, as headless Chromium lays it out (tests/lib/html_render_check.py,
# over the DevTools protocol on a pipe): at 900 and 1400 px and on paper, every session's row
# shown, in the order of severity, nothing past the page's edge or clipped, no sideways
# scrolling; the page's own script (allowed by its hash in the CSP) filters and sorts; full-page
# screenshots at 900 and 1400 px decoded and not blank. On a fresh rendering of
# fixtures/audit/example/report.json, on the committed docs/audit-example.html, and on a
# report with long hostile names. Needs no engine.
. "$(dirname "$0")/../lib/testlib.sh"
PY=/usr/bin/python3
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
FIX=$BOXCERT_SOURCE_DIR/fixtures/audit/example/report.json
[ -x "$CHROMIUM" ] || skip_all "no $CHROMIUM (scripts/deps.sh installs chromium)"
mkdir -p "$T/shots"
expect_rc 1 "the example renders (its violations: exit 1)" "$BOXCERT" audit --from-json "$FIX" \
  --format html --output "$T/example.html"
ok "docs/audit-example.html is that rendering" cmp "$T/example.html" "$BOXCERT_SOURCE_DIR/docs/audit-example.html"
$PY - "$FIX" "$T/long.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
long_ = "agent-" + "x" * 180 + "-end"
r["sessions"][0]["name"] = long_
r["sessions"][5]["findings"].append({"rule": "containment.write_surface", "status": "fail",
  "expected": [{"path": "/tmp", "kinds": ["tmpfs"], "maxSize": "64Mi"}],
  "observed": [{"path": "/" + "deep/" * 40 + "dir", "kind": "bind", "fsType": "ext4", "options": ["rw"] * 3,
                "sizeBytes": None}],
  "message": "1 of 3 writable places refused: " + "/very/long/path" * 20})
json.dump(r, open(sys.argv[2], "w"))
PY
expect_rc 1 "a report with long names renders" "$BOXCERT" audit --from-json "$T/long.json" \
  --format html --output "$T/long.html"
like "$T/long.html" '<table class="values"><tr><th>path</th><th>kind</th><th>fsType</th><th>options</th><th>sizeBytes</th></tr>' \
  "the write surface is a table, not raw JSON"
like "$T/long.html" 'Its certificate complies, but the session is a violation: the session is still on its engine' \
  "a compliant row that is a violation says why"
rc=0
$PY "$BOXCERT_SOURCE_DIR/tests/lib/html_render_check.py" "$CHROMIUM" "$T/example.html" "$FIX" "$T/shots" example || rc=1
$PY "$BOXCERT_SOURCE_DIR/tests/lib/html_render_check.py" "$CHROMIUM" \
  "$BOXCERT_SOURCE_DIR/docs/audit-example.html" "$FIX" "$T/shots" docs || rc=1
$PY "$BOXCERT_SOURCE_DIR/tests/lib/html_render_check.py" "$CHROMIUM" "$T/long.html" "$T/long.json" "$T/shots" long || rc=1
ok "the rendered pages pass (above)" test "$rc" = 0
ls "$T/shots"/*.png | sed 's/^/# screenshot: /'
done_testing
