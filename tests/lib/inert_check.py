#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reports are inert in every consumer (tests/cli/reports_inert.sh).

inert_check.py FORMAT REPORT NAMES [CMARK]
  FORMAT  sarif, markdown, github, junit or html
  REPORT  the report file
  INERT_SOME=1: for sarif, one of NAMES carried is enough (the audit carries some)
  NAMES   a file of the hostile strings the report must carry (one per line, as UTF-8 with
          surrogateescape; \\n and \\r written as \\n and \\r), each of which must be inert

sarif:    every uri is a relative reference (no scheme, no authority: urllib reads neither)
          and percent-decodes to one of NAMES' paths.
markdown: GitHub's renderer (cmark-gfm with its table and autolink extensions, raw HTML
          allowed) makes no link and no element of data; each table row keeps its 5 cells.
github:   every line that starts with :: is one ::error whose properties hold no raw : , CR
          or LF, and whose file decodes to one of NAMES.
junit:    well-formed XML (xml.etree) read by junitparser, no "]]>", every classname's file
          decodes to one of NAMES.
html:     no href, src, action, formaction or style url() taken from data; no element or
          attribute named by data; no <script> but the page's own.
Prints one line per problem and exits 1 when there is one."""
import html.parser
import json
import os
import re
import subprocess
import sys
import unicodedata
import urllib.parse

fmt, report, names_file = sys.argv[1], sys.argv[2], sys.argv[3]
cmark = sys.argv[4] if len(sys.argv) > 4 else "cmark-gfm"
some = os.environ.get("INERT_SOME") == "1"  # sarif: one name carried is enough (the audit's)
raw = open(report, "rb").read()
names = []
for line in open(names_file, "rb").read().split(b"\n"):
    if line:
        names.append(line.replace(b"\\n", b"\n").replace(b"\\r", b"\r"))
problems = []


def bad(msg):
    problems.append(msg)


def unescape(s):
    """bx_unescape: \\\\ \\" \\xNN \\u{X} back to bytes."""
    out, i, b = bytearray(), 0, s.encode("utf-8", "surrogateescape")
    while i < len(b):
        c = b[i:i + 1]
        if c != b"\\":
            out += c
            i += 1
        elif b[i + 1:i + 2] in (b"\\", b'"'):
            out += b[i + 1:i + 2]
            i += 2
        elif b[i + 1:i + 2] == b"x":
            out.append(int(b[i + 2:i + 4], 16))
            i += 4
        elif b[i + 1:i + 3] == b"u{":
            j = b.index(b"}", i)
            out += chr(int(b[i + 3:j], 16)).encode("utf-8", "surrogatepass")
            i = j + 1
        else:
            raise ValueError("not an escape: %r" % b[i:i + 4])
    return bytes(out)


def known(path_bytes):
    return any(path_bytes.endswith(n) for n in names)


if fmt == "sarif":
    doc = json.loads(raw)
    uris = []

    def walk(v):
        if isinstance(v, dict):
            for k, x in v.items():
                if k == "uri" and isinstance(x, str):
                    uris.append(x)
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
    walk(doc)
    data_uris = [u for u in uris if not u.startswith("https://")]  # the rules' helpUri
    if not data_uris:
        bad("no uri from data in the report")
    for u in data_uris:
        sp = urllib.parse.urlsplit(u)
        if sp.scheme or sp.netloc:
            bad("uri %r reads as scheme %r authority %r" % (u, sp.scheme, sp.netloc))
        if ":" in u.split("/")[0] or u.startswith("//"):
            bad("uri %r is not a relative-path reference" % u)
        if not re.fullmatch(r"[A-Za-z0-9\-._~!$&'()*+,;=@/%]*", u):
            bad("uri %r holds a character RFC 3986 wants encoded" % u)
    seen = {urllib.parse.unquote_to_bytes(u) for u in data_uris}
    carried = [n for n in names if any(s.endswith(n) for s in seen)]
    for n in names:
        if n not in carried and not some:
            bad("no uri decodes to a path ending in %r" % n)
    if some and not carried:
        bad("no uri decodes to a path ending in any of the names")

elif fmt == "markdown":
    out = subprocess.run([cmark, "--unsafe", "-e", "table", "-e", "autolink", "-e", "strikethrough",
                          "-e", "tagfilter"], input=raw, capture_output=True, check=True).stdout
    page = out.decode("utf-8", "replace")
    allowed = {"h3", "p", "table", "thead", "tbody", "tr", "th", "td", "code", "br", "strong"}

    class P(html.parser.HTMLParser):
        def __init__(self):
            super().__init__()
            self.cells = None

        def handle_starttag(self, tag, attrs):
            if tag not in allowed:
                bad("the rendered summary has a <%s> element" % tag)
            for k, v in attrs:
                bad("the rendered summary has an attribute %s=%r on <%s>" % (k, v, tag))
            if tag == "tr":
                self.cells = 0
            if tag in ("td", "th") and self.cells is not None:
                self.cells += 1

        def handle_endtag(self, tag):
            if tag == "tr" and self.cells != 5:
                bad("a table row has %s cells, not 5" % self.cells)
    P().feed(page)
    if "<a " in page or "href" in page:
        bad("the rendered summary links: %s" % page[max(0, page.find("<a ") - 80):page.find("<a ") + 200])
    text = re.sub(r"<[^>]*>", "", page)
    import html as h
    text = h.unescape(text).replace("\u200b", "")
    for n in names:
        try:
            ns = n.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if any(unicodedata.category(c) in ("Cc", "Cf") for c in ns):
            continue  # written with the human escaping, \xNN or \u{XXXX}
        if ns.replace("\\", "\\\\") not in text:
            bad("the rendered summary does not show %r" % ns)

elif fmt == "github":
    text = raw.decode("utf-8", "surrogateescape")
    files = []
    for line in text.split("\n"):
        if not line.startswith("::"):
            continue
        m = re.fullmatch(r"::(error|warning|notice) ((?:[a-z]+=[^:,\r]*)(?:,[a-z]+=[^:,\r]*)*)::([^\r]*)", line)
        if not m:
            bad("a workflow command that is not one annotation: %r" % line[:200])
            continue
        props = dict(p.split("=", 1) for p in m.group(2).split(","))
        if "file" in props:
            v = props["file"].replace("%3A", ":").replace("%2C", ",").replace("%0D", "\r") \
                .replace("%0A", "\n").replace("%25", "%")
            files.append(unescape(v))
    if not files:
        bad("no annotation names a file")
    for n in names:
        if not any(f.endswith(n) for f in files):
            bad("no annotation's file decodes to a path ending in %r" % n)

elif fmt == "junit":
    import xml.etree.ElementTree as ET
    import junitparser
    if b"]]>" in raw:
        bad("the report holds ]]>")
    root = ET.fromstring(raw)
    junitparser.JUnitXml.fromfile(report)
    files = []
    for tc in root.iter("testcase"):
        cn = tc.get("classname") or ""
        files.append(unescape(cn.rsplit(" ", 1)[0] if re.search(r" [0-9a-f]{12}$", cn) else cn))
    for n in names:
        if not any(f.endswith(n) for f in files):
            bad("no test case's classname decodes to a path ending in %r" % n)

elif fmt == "html":
    page = raw.decode("utf-8")
    markers = [n.decode("utf-8", "replace") for n in names]

    class P(html.parser.HTMLParser):
        def handle_starttag(self, tag, attrs):
            for k, v in attrs:
                v = v or ""
                if k in ("href", "src", "action", "formaction", "xlink:href", "srcset", "poster"):
                    bad("<%s %s=%r>: a URL in the page" % (tag, k, v))
                if k.startswith("on"):
                    bad("<%s %s=...>: an event handler" % (tag, k))
                if "url(" in v.replace(" ", "").lower():
                    bad("<%s %s=%r>: a url() in the page" % (tag, k, v))
            if tag in ("a", "iframe", "object", "embed", "img", "form", "base", "link", "meta") \
                    and tag != "meta":
                bad("the page has a <%s> element" % tag)
    P().feed(page)
    if page.count("<script") > 1:
        bad("the page has %d scripts" % page.count("<script"))
    for m in markers:
        if "<" in m and m in page:
            bad("a name reached the page raw: %r" % m)
else:
    sys.exit("unknown format " + fmt)

for p in problems:
    print(p)
sys.exit(1 if problems else 0)
