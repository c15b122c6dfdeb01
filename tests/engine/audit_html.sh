#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The audit's HTML page in a real browser, and every format rendered from a fixed report
# (fixtures/audit/example/report.json, a real run made fit for the docs) through the
# hidden --from-json path: the committed docs/audit-example.html is its rendering;
# headless Chromium shows one row per session and the summary's counts, and paints a
# page that is not blank; hostile strings stay text. Needs no engine.
. "$(dirname "$0")/../lib/testlib.sh"
PY=/usr/bin/python3
FIX=$BOXCERT_SOURCE_DIR/fixtures/audit/example/report.json
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
render() { "$BOXCERT" audit --from-json "$@"; }

check_schema report "$FIX"
expect_rc 1 "the example renders as html (its violations: exit 1)" render "$FIX" --format html \
  --output "$T/example.html"
ok "docs/audit-example.html is the rendering of the fixture" \
  cmp "$T/example.html" "$BOXCERT_SOURCE_DIR/docs/audit-example.html"
for f in text json junit sarif github; do
  expect_rc 1 "the example renders as $f" render "$FIX" --format "$f" --output "$T/example.$f"
done
ok "json round-trips unchanged" $PY -c 'import json,sys; assert json.load(open(sys.argv[1])) == json.load(open(sys.argv[2]))' "$FIX" "$T/example.json"
like "$T/example.text" '^NONCOMPLIANT agent-slow-11 [0-9a-f]{12} cert [0-9a-f]{12} \[late\]$' "text: the late row"
like "$T/example.text" '^ORPHAN +5d0c7e21' "text: the orphan"
ok "junit parses" $PY -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$T/example.junit"
like "$T/example.github" '^::error title=audit.orphan::' "github: the orphan"
like "$T/example.github" '^::warning file=certs/stale-key.intoto.json,title=audit.rejected::certificate rejected' "github: the rejected certificate"

# Self-contained: nothing fetched; nothing run but the page's own script, allowed by its hash.
like "$T/example.html" '<meta http-equiv="Content-Security-Policy" content="default-src .none.; style-src .unsafe-inline.; script-src .sha256-[A-Za-z0-9+/]{43}=.">' "html: a CSP that forbids every external asset and every script but one"
unlike "$T/example.html" '(src|href|action)=|<link|@import|url\(' "html: no external asset"
is "$($PY - "$T/example.html" <<'PY'
import base64, hashlib, re, sys
s = open(sys.argv[1]).read()
scripts = re.findall(r"<script>(.*?)</script>", s, re.S)
csp = re.search(r"script-src 'sha256-([^']+)'", s).group(1)
print(len(re.findall(r"<script", s)), len(scripts),
      scripts and base64.b64encode(hashlib.sha256(scripts[0].encode()).digest()).decode() == csp)
PY
)" "1 1 True" "html: one inline script, the one the CSP's hash allows"

# Hostile strings where a certificate or an engine could put them.
$PY - "$FIX" "$T/hostile.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
evil = '</td></tr><script>document.title="pwned"</script><img src=x onerror="document.title=1">\x1b[31m&amp;'
r["sessions"][0]["name"] = evil
r["sessions"][0]["findings"].append({"rule": "containment.mounts", "status": "fail", "expected": evil,
                                     "observed": {"x": evil}, "message": evil})
r["orphans"][0]["id"] = evil
json.dump(r, open(sys.argv[2], "w"))
PY
expect_rc 1 "a report with hostile strings renders" render "$T/hostile.json" --format html --output "$T/hostile.html"
unlike "$T/hostile.html" '<img|<script>document' "hostile: no element smuggled in"
is "$(grep -o '<script' "$T/hostile.html" | wc -l)" "1" "hostile: no script but the page's own"
unlike "$T/hostile.html" $'\e' "hostile: no raw escape character"
like "$T/hostile.html" '&lt;/td&gt;&lt;/tr&gt;&lt;script&gt;document.title=&quot;pwned&quot;' "hostile: shown as text"

# A document that is not an audit report: a usage error.
echo '{"version":1,"results":[]}' >"$T/verify.json"
expect_rc 2 "--from-json refuses a verify report" render "$T/verify.json"

# Headless Chromium: rows and counts as rendered, and a page that is not blank.
if [ ! -x "$CHROMIUM" ]; then
  skip_one "no $CHROMIUM (scripts/deps.sh installs chromium)"
  done_testing
fi
chrome() { # chrome PROFILE ARGS...: headless, offline, a profile of its own
  local profile=$1; shift
  timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$T/$profile" "$@" 2>>"$T/chromium.log"
}
ok "chromium renders the page (dump-dom)" bash -c "$(declare -f chrome); T='$T'; CHROMIUM='$CHROMIUM'; chrome p1 --dump-dom 'file://$T/example.html' > '$T/dom.html'"
$PY - "$T/dom.html" "$FIX" >"$T/dom.txt" <<'PY'
import json, sys
from html.parser import HTMLParser
fix = json.load(open(sys.argv[2]))

class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.counts, self.tags, self.cur, self.title, self.in_title = [], {}, set(), None, "", False
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.add(tag)
        if tag == "tr" and "session" in (a.get("class") or "").split():
            self.rows.append((a.get("data-verdict"), a.get("data-flags")))
        if a.get("id", "").startswith("count-"):
            self.cur = a["id"][6:]
        self.in_title = tag == "title"
    def handle_data(self, d):
        if self.cur:
            self.counts[self.cur] = int(d)
            self.cur = None
        if self.in_title:
            self.title += d
    def handle_endtag(self, tag):
        self.in_title = False

p = P()
p.feed(open(sys.argv[1]).read())
s = fix["summary"]
want = [(x["verdict"], " ".join(x["flags"])) for x in fix["sessions"]]
print("rows", len(p.rows), len(want), sorted(p.rows) == sorted(want))
for k in ("compliant", "noncompliant", "unattested", "missing", "unreachable", "late", "leftover",
          "duplicate", "orphans", "violations"):
    print("count", k, p.counts.get(k), s[k])
print("script", "img" in p.tags)
print("title", p.title)
PY
sed 's/^/# /' "$T/dom.txt"
like "$T/dom.txt" '^rows 11 11 True$' "the browser shows one row per session, with its verdict and flags"
for k in compliant noncompliant unattested missing unreachable late leftover duplicate orphans violations; do
  like "$T/dom.txt" "^count $k ([0-9]+) \\1$" "the browser shows the $k count of the summary"
done
like "$T/dom.txt" '^script False$' "no image element in the rendered page"
like "$T/dom.txt" '^title boxcert audit: 11 sessions, 8 violations$' "the page's title"

ok "chromium renders the hostile page" bash -c "$(declare -f chrome); T='$T'; CHROMIUM='$CHROMIUM'; chrome p2 --dump-dom 'file://$T/hostile.html' > '$T/hostile-dom.html'"
is "$($PY -c 'import sys,re; d=open(sys.argv[1]).read(); print(len(re.findall(r"<script", d)), len(re.findall(r"<img", d)), "pwned" in re.search(r"<title>(.*?)</title>", d, re.S).group(1))' "$T/hostile-dom.html")" \
  "1 0 False" "hostile: the browser built no script but the page's own, no image, and the title is untouched"

ok "chromium takes a screenshot" bash -c "$(declare -f chrome); T='$T'; CHROMIUM='$CHROMIUM'; chrome p3 --screenshot='$T/shot.png' --window-size=1200,900 'file://$T/example.html'"
# Decode the PNG (zlib and the five scanline filters; no imaging library) and count the
# distinct pixel values: a blank or broken page has one or two.
$PY - "$T/shot.png" >"$T/png.txt" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, ihdr = 8, b"", None
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        ihdr = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
w, h, depth, ctype, _, _, interlace = ihdr
assert depth == 8 and interlace == 0 and ctype in (2, 6), ihdr
bpp = 3 if ctype == 2 else 4
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
colours = set()
i = 0
for y in range(h):
    f = raw[i]; line = bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp):
        colours.add(bytes(line[x:x + bpp]))
    prev = line
print("size", w, h)
print("colours", len(colours))
PY
sed 's/^/# /' "$T/png.txt"
like "$T/png.txt" '^size 1200 900$' "the screenshot is 1200x900"
ok "the screenshot is not uniform (many distinct colours: text, badges, tiles)" \
  bash -c "[ \$(sed -n 's/^colours //p' '$T/png.txt') -gt 50 ]"
done_testing
