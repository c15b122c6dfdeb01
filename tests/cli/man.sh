#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The manual pages: one source. man/ holds the pages scripts/man.py makes from each
# command's --help (and docs/policy.md, docs/certificate.md for section 5): they are the ones
# checked in (make man refreshes them); man --warnings has nothing to say about any; every
# option a synopsis names is described; every command has its page.
. "$(dirname "$0")/../lib/testlib.sh"
M=$BOXCERT_SOURCE_DIR/man
command -v man >/dev/null || skip_all "no man (man-db)"
ok "scripts/man.py makes the pages" python3 "$BOXCERT_SOURCE_DIR/scripts/man.py" "$BOXCERT_BIN" "$T/man"
for f in "$T"/man/*; do
  n=$(basename "$f")
  ok "man/$n is the one made from --help (make man refreshes it)" cmp "$f" "$M/$n"
done
is "$(ls "$M" | grep -v '^extra$' | sort | tr '\n' ' ')" "$(ls "$T/man" | sort | tr '\n' ' ')" \
  "man/ holds only made pages (and extra/)"
for f in "$M"/*.[15]; do
  n=$(basename "$f")
  for loc in C C.UTF-8; do
    LC_ALL=$loc MANWIDTH=80 man --warnings -l "$f" >"$T/page" 2>"$T/warn"
    is "$(cat "$T/warn")" "" "man --warnings $n ($loc): no warning"
  done
  like "$T/page" '^NAME' "$n has a NAME section"
  grep -q SPDX-License-Identifier "$f"; is $? 0 "$n carries the SPDX line"
done
cmds=$("$BOXCERT" --help | sed -n 's/^  \([a-z]*\)  .*/\1/p')
for c in $cmds; do
  ok "boxcert-$c(1) exists" test -f "$M/boxcert-$c.1"
  "$BOXCERT" "$c" --help >"$T/help"
  syn=$(sed '/^$/q' "$T/help" | grep -oE -- '--[a-z][a-z0-9-]*' | grep -v -- '^--version$' | sort -u)
  opts=$(grep -E '^  -' "$T/help" | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)
  is "$(comm -23 <(echo "$syn") <(echo "$opts") | grep . | tr '\n' ' ')" "" \
    "$c --help describes every option its usage names"
  for o in $opts; do
    grep -qF -- "\\fB${o//-/\\-}\\fR" "$M/boxcert-$c.1"
    is $? 0 "boxcert-$c(1) describes $o"
  done
done
# the verifier's commands: the same pages (boxcert-verify has no help of its own to differ)
for c in $("$BOXCERT_BIN/boxcert-verify" --help | sed -n 's/^  \([a-z]*\)  .*/\1/p'); do
  "$BOXCERT" "$c" --help >"$T/a"; "$BOXCERT_BIN/boxcert-verify" "$c" --help >"$T/b"
  is "$(diff <(sed 's/boxcert-verify /boxcert /g' "$T/b") "$T/a" | head -3)" "" \
    "boxcert-verify $c --help is boxcert $c --help with its own name"
done
# section 5 names every policy key and every containment member of the latest predicate
for k in $(python3 -c '
import json,sys
p=json.load(open(sys.argv[1]))
print(" ".join(p["properties"]))
print(" ".join("containment."+k for k in p["properties"]["containment"]["properties"]))' \
  "$BOXCERT_SOURCE_DIR/schema/schemas/policy.schema.json"); do
  grep -qF -- "\\fB${k//-/\\-}" "$M/boxcert-policy.5"
  is $? 0 "boxcert-policy(5) names $k"
done
done_testing
