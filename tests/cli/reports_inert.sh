#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Reports are inert in every consumer (docs/ci.md, "Encodings"; tests/lib/inert_check.py):
# certificates named as URLs, schemes (javascript:, C:, file:, ftp:, xmpp:), www. names,
# e-mail addresses, <autolinks>, Markdown links, HTML, "]]>", controls, CR/LF with a forged
# workflow command, % , : in annotation properties, and a policy file named so too. SARIF
# uris are relative references that percent-decode to the names (also for a folder given as
# //path); GitHub's own Markdown renderer (cmark-gfm) makes no link of the step summary; every
# annotation is one ::error with clean properties; JUnit is XML a parser reads; the audit's
# HTML page has no URL, handler or element taken from data. When the --seen file cannot be
# written, every report has a failed row naming it and the exit is 3.
. "$(dirname "$0")/../lib/testlib.sh"
PY=/usr/bin/python3
CHECK=$BOXCERT_SOURCE_DIR/tests/lib/inert_check.py
F=$BOXCERT_SOURCE_DIR/fixtures/certificate
BAD=$F/invalid/empty-signature-list/cert.intoto.json
GOOD=$F/valid/ed25519/cert.intoto.json
V=$BOXCERT_BIN/boxcert-verify
command -v cmark-gfm >/dev/null || skip_all "no cmark-gfm (scripts/deps.sh installs it)"
$PY -c 'import junitparser' 2>/dev/null || skip_all "no python3-junitparser (scripts/deps.sh installs it)"

mkdir -p "$T/c" "$T/p"
cp -r "$F/keys" "$T/p/"
POL="$T/p/mailto:pol@evil.example www.evil.example [x](javascript:y).yaml"
cp "$F/policy.yaml" "$POL"
: >"$T/names"
n=0
while IFS= read -r name; do
  name=$(printf '%b' "$name")
  cp "$BAD" "$T/c/$name.intoto.json"
  printf '%s.intoto.json\n' "$name" | sed 's/\r/\\r/g' | awk 'BEGIN{ORS=""} NR>1{print "\\n"} {print}' >>"$T/names"
  printf '\n' >>"$T/names"
  n=$((n + 1))
done <<'EOF'
javascript:alert(1)
C:evil
file:etc
ftp:x
http:x
https:%2F%2Fevil.example
www.evil.example
WWW.EVIL.EXAMPLE
mailto:a@evil.example
a@evil.example
first.last+tag@sub.evil.example
xmpp:a@b.example
<http:evil.example>
<a@b.example>
[x](javascript:alert(1))
"'><img src=x onerror=alert(1)>
a]]>b
ctl\x01\x1b[31m
cr\rlf\nx::error::forged
p%25,q:r,s
x&lt;y&#64;z
zero\xe2\x80\x8bwidth@x.example
EOF
ok "$n hostile names written" test "$(find "$T/c" -mindepth 1 -printf x | wc -c)" -eq "$n"

reports() { # reports DIR PREFIX: verify DIR into every format
  "$V" verify --at 2035-12-29T23:00:00Z --policy "$POL" "$1" --format text \
    --report "sarif=$T/$2.sarif" --report "junit=$T/$2.xml" --report "github=$T/$2.gh" \
    --report "markdown=$T/$2.md" --report "json=$T/$2.json"
}
expect_rc 1 "verify writes every format (the certificates fail)" reports "$T/c" r
for f in sarif:sarif markdown:md github:gh junit:xml; do
  ok "${f%%:*}: inert, every name carried" $PY "$CHECK" "${f%%:*}" "$T/r.${f#*:}" "$T/names"
  [ -s "$OUT" ] && sed 's/^/# /' "$OUT"
done
expect_rc 1 "the folder given as //path" reports "//$T/c" s
ok "sarif: a leading // is no authority" $PY "$CHECK" sarif "$T/s.sarif" "$T/names"
[ -s "$OUT" ] && sed 's/^/# /' "$OUT"
unlike "$T/s.sarif" '"uri":"//' "... no uri starts with //"
like "$T/r.md" 'mailto&#58;pol&#8203;&#64;evil&#46;example' "markdown: the policy's name is written inert too"

# the checker itself: what it must refuse, it refuses
printf '| a | b | c | d | e |\n|---|---|---|---|---|\n| www.evil.example | a@b.example | c | d | e |\n' >"$T/linky.md"
fails "the checker sees GitHub's autolinks in plain Markdown" $PY "$CHECK" markdown "$T/linky.md" "$T/names"
printf '{"runs":[{"results":[{"locations":[{"physicalLocation":{"artifactLocation":{"uri":"javascript:alert(1).intoto.json"}}}]}]}]}' >"$T/bad.sarif"
fails "the checker sees a scheme in a uri" $PY "$CHECK" sarif "$T/bad.sarif" "$T/names"
printf '::error file=x::y\n::error file=a:b::c\n' >"$T/bad.gh"
fails "the checker sees a raw ':' in a property" $PY "$CHECK" github "$T/bad.gh" "$T/names"

# the audit's page and its SARIF, on a report whose names are the hostile ones
$PY - "$BOXCERT_SOURCE_DIR/fixtures/audit/example/report.json" "$T/audit.json" "$T/names" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
names = [l.replace("\\n", "\n").replace("\\r", "\r") for l in open(sys.argv[3], encoding="utf-8", errors="surrogateescape").read().split("\n") if l]
for i, s in enumerate(r["sessions"]):
    h = names[i % len(names)]
    s["name"] = h
    s["engineName"] = h
    if s.get("certificate"):
        s["certificate"] = "certs/" + h
    for f in s.get("findings", []):
        f["message"] = h
json.dump(r, open(sys.argv[2], "w", encoding="utf-8", errors="surrogateescape"), ensure_ascii=False)
PY
for f in html sarif; do
  expect_rc 1 "audit --format $f of hostile names renders" "$BOXCERT_BIN/boxcert" audit --from-json "$T/audit.json" --format "$f" --output "$T/audit.$f"
done
head -n 4 "$T/names" >"$T/names4"
ok "audit html: no URL, handler or element from data" $PY "$CHECK" html "$T/audit.html" "$T/names4"
[ -s "$OUT" ] && sed 's/^/# /' "$OUT"
ok "audit sarif: relative uris" env INERT_SOME=1 $PY "$CHECK" sarif "$T/audit.sarif" "$T/names4"
[ -s "$OUT" ] && sed 's/^/# /' "$OUT"

# --- a --seen file that cannot be written: every report says so, exit 3 -----------------------
mkdir -p "$T/open"
chmod 0777 "$T/open" # writable by others, no sticky bit: the seen file is never written there
expect_rc 3 "--seen cannot be written: exit 3" "$V" verify --at 2035-12-29T23:00:00Z --policy "$F/policy.yaml" "$GOOD" \
  --seen "$T/open/seen.jsonl" --report "json=$T/w.json" --report "junit=$T/w.xml" --report "sarif=$T/w.sarif" \
  --report "github=$T/w.gh" --report "markdown=$T/w.md" --output "$T/w.txt"
like "$ERR" "open/seen\.jsonl: .*writable by others" "... the error line names it"
for f in w.json w.xml w.sarif w.gh w.md w.txt; do
  like "$T/$f" "seen file could not be written" "... $f has its row"
done
like "$T/w.json" '"failed":1' "... json counts it failed"
like "$T/w.txt" "^FAIL .*open/seen\.jsonl" "... text: a FAIL row"
ok "... the passing certificate is still reported" grep -q '^PASS ' "$T/w.txt"
chmod 0755 "$T/open"
ok "the same run with a writable folder passes" "$V" verify --at 2035-12-29T23:00:00Z --policy "$F/policy.yaml" "$GOOD" \
  --seen "$T/open/seen.jsonl" --output "$T/w2.txt"
unlike "$T/w2.txt" "seen file could not be written" "... and has no such row"
done_testing
