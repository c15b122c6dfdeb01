#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The audit page against expectations written by hand: fixtures/audit/example/by-hand.txt
# says, from report.json alone, what the page must show a reader (the verdict of each
# session, its flags and failed rules, the counts, the certificates that match no session,
# the orphan). Checked on the committed docs/audit-example.html and on a fresh rendering
# of report.json (boxcert audit --from-json), both read with python's html.parser
# (tests/lib/by_hand.py page); every cited pointer must resolve in report.json. Then the
# check must refuse a changed list and pages changed on purpose. Needs no engine.
. "$(dirname "$0")/../lib/testlib.sh"
PY=/usr/bin/python3
LIB=$BOXCERT_SOURCE_DIR/tests/lib
DIR=$BOXCERT_SOURCE_DIR/fixtures/audit/example
LIST=$DIR/by-hand.txt
page() { $PY "$LIB/by_hand.py" page "$1"; }
check() { # check LIST FACTS...: the list against report.json and the pages' facts
  local list=$1; shift
  $PY "$LIB/by_hand.py" check --inputs "$DIR" --require audit-page "$list" "$@"
}

expect_rc 1 "report.json renders as html (its violations: exit 1)" \
  "$BOXCERT" audit --from-json "$DIR/report.json" --format html --output "$T/rendered.html"
ok "the facts of docs/audit-example.html" page "$BOXCERT_SOURCE_DIR/docs/audit-example.html"
cp "$OUT" "$T/committed.json"
ok "the facts of the fresh rendering" page "$T/rendered.html"
cp "$OUT" "$T/rendered.json"
expect_rc 0 "both pages show what by-hand.txt says" check "$LIST" "$T/committed.json" "$T/rendered.json"
sed 's/^/# /' "$OUT" "$ERR"

# A list made wrong on purpose.
sed 's#^/sessions/5/verdict "noncompliant"#/sessions/5/verdict "compliant"#' "$LIST" >"$T/bad.txt"
expect_rc 1 "refused: a verdict the page does not show" check "$T/bad.txt" "$T/committed.json"
like "$ERR" '/sessions/5/verdict is "noncompliant", by hand "compliant"' "... and says why"
like "$ERR" 'report\.json#/sessions/5/verdict, said to be copied verbatim, is "noncompliant"' \
  "... and that it is not what report.json says"
grep -v '^/sessions/11 absent$' "$LIST" | grep -v '^  ! report.json#/sessions/11$' >"$T/bad.txt"
expect_rc 1 "refused: the rows not closed" check "$T/bad.txt" "$T/committed.json"
like "$ERR" '/sessions is given element by element' "... and says why"

# Pages changed on purpose: the badge of one row, a failed rule dropped, a row removed.
mutate() { # mutate NAME PYTHON-EXPR-ON-s: a copy of the committed page, changed, and its facts
  $PY - "$BOXCERT_SOURCE_DIR/docs/audit-example.html" "$T/$1.html" "$2" <<'PY'
import sys
s = open(sys.argv[1]).read()
t = eval(sys.argv[3])
assert t != s, "the change changed nothing"
open(sys.argv[2], "w").write(t)
PY
  page "$T/$1.html" >"$T/$1.json"
}
mutate badge 's.replace("<span class=\"badge noncompliant\">noncompliant</span></td><td class=\"c-name\" data-label=\"Session\">agent-ci-09", "<span class=\"badge compliant\">compliant</span></td><td class=\"c-name\" data-label=\"Session\">agent-ci-09")'
expect_rc 1 "refused: a row whose badge says another verdict" check "$LIST" "$T/badge.json"
like "$ERR" '/sessions/5/verdict is "inconsistent: data-verdict noncompliant' "... and says why"
mutate rule 's.replace("<li><span class=\"rule\" title=\"Read-only root filesystem\">containment.rootfs</span>", "<li>", 1)'
expect_rc 1 "refused: a failed rule missing from a row" check "$LIST" "$T/rule.json"
like "$ERR" '/sessions/6/failed/1 is "containment.capabilities", by hand "containment.rootfs"' "... and says why"
mutate row 's[:s.index("<tr class=\"session v-unattested\"")] + s[s.index("</tr>", s.index("<tr class=\"session v-unattested\"")) + 5:]'
expect_rc 1 "refused: a page without one of the rows" check "$LIST" "$T/row.json"
like "$ERR" '/sessions/7/name is "agent-lint-06", by hand "agent-fetch-07"' "... and says why"
done_testing
