# SPDX-License-Identifier: Apache-2.0
"""The audit's HTML page as headless Chromium lays it out (tests/engine/audit_html.sh).

usage: /usr/bin/python3 html_render_check.py CHROMIUM PAGE REPORT_JSON OUT_DIR NAME

Chromium is driven over the DevTools protocol on a pipe (--remote-debugging-pipe: file
descriptors 3 and 4, no network, no extra package). At 900 and 1400 px wide, and with the
print media at 794 px (A4), the page is measured as rendered: every session of REPORT_JSON
has a row that is shown, in the order of severity; no element reaches past the page's width
or is clipped (scrollWidth beyond clientWidth under an overflow that hides); the page
does not scroll sideways. The page's own script (allowed by its hash in the
Content-Security-Policy, nothing else) shows the filter and sorts: typing a session's name
leaves its row alone, "violations" the rows that are violations, a click on Session sorts
by name. A full-page screenshot is taken at each width (OUT_DIR/NAME-900.png,
NAME-1400.png) and decoded: its size is the page's, and it is not blank. Prints TAP.
"""
import base64
import json
import os
import select
import struct
import subprocess
import sys
import tempfile
import time
import zlib

CHROMIUM, PAGE, REPORT, OUT, NAME = sys.argv[1:6]
n = failed = 0


def check(cond, name, detail=""):
    global n, failed
    n += 1
    print(("ok" if cond else "not ok") + f" {n} - {NAME}: {name}")
    if not cond:
        failed += 1
        for line in str(detail).splitlines()[:14]:
            print("#   " + line)
    sys.stdout.flush()
    return cond


class Browser:
    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="bx-chrome-")
        cmd_r, self.cmd_w = os.pipe()   # we write commands, Chromium reads fd 3
        self.res_r, res_w = os.pipe()   # Chromium writes fd 4, we read
        def fds():  # in the child: the pipe's ends as 3 and 4, whatever numbers they had
            a, b_ = os.dup(cmd_r), os.dup(res_w)
            os.dup2(a, 3)
            os.dup2(b_, 4)
        self.p = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--hide-scrollbars", "--remote-debugging-pipe", f"--user-data-dir={self.profile}",
             "about:blank"],
            preexec_fn=fds, pass_fds=(3, 4), stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(OUT, NAME + "-chromium.log"), "ab"))
        os.close(cmd_r)
        os.close(res_w)
        self.buf, self.id, self.events, self.session = b"", 0, [], None

    def _read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.time()
            if left <= 0 or not select.select([self.res_r], [], [], left)[0]:
                raise TimeoutError("no reply from chromium")
            chunk = os.read(self.res_r, 1 << 20)
            if not chunk:
                raise EOFError("chromium closed the pipe")
            self.buf += chunk
        msg, _, self.buf = self.buf.partition(b"\0")
        return json.loads(msg)

    def send(self, method, params=None, session=True, timeout=60):
        self.id += 1
        m = {"id": self.id, "method": method, "params": params or {}}
        if session and self.session:
            m["sessionId"] = self.session
        os.write(self.cmd_w, json.dumps(m).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            r = self._read(deadline)
            if r.get("id") == self.id:
                if "error" in r:
                    raise RuntimeError(f"{method}: {r['error']}")
                return r.get("result", {})
            self.events.append(r)

    def wait_event(self, method, timeout=60):
        deadline = time.time() + timeout
        while True:
            for i, e in enumerate(self.events):
                if e.get("method") == method:
                    return self.events.pop(i)
            self.events.append(self._read(deadline))

    def close(self):
        try:
            self.send("Browser.close", session=False, timeout=10)
        except Exception:  # noqa: BLE001 - it is going away either way
            pass
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
        subprocess.run(["rm", "-rf", self.profile])


def png_facts(data, max_rows=700):
    """(width, height, distinct colours in its first max_rows rows) of an 8-bit RGB(A) PNG,
    decoded by hand."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        ln, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + ln]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + ln
    w, h, depth, ctype, _, _, interlace = ihdr
    assert depth == 8 and interlace == 0 and ctype in (2, 6), ihdr
    bpp = 3 if ctype == 2 else 4
    stride = w * bpp
    raw = zlib.decompressobj().decompress(idat, (stride + 1) * min(h, max_rows))
    prev, colours, i = bytearray(stride), set(), 0
    for y in range(min(h, max_rows)):
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], (prev[x - bpp] if x >= bpp else 0)
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        if y % 4 == 0:
            for x in range(0, stride, bpp * 3):
                colours.add(bytes(line[x:x + 3]))
        prev = line
    return w, h, len(colours)


MEASURE = r"""(() => {
  const W = document.documentElement.clientWidth;
  const out = {width: W, scrollWidth: document.documentElement.scrollWidth, rows: [], past: [], clipped: []};
  for (const tr of document.querySelectorAll('#sessions > tbody > tr.session')) {
    const r = tr.getBoundingClientRect(), st = getComputedStyle(tr);
    out.rows.push({verdict: tr.dataset.verdict, violation: tr.dataset.violation, rank: Number(tr.dataset.rank),
                   name: tr.dataset.name, shown: r.width > 0 && r.height > 0 && st.display !== 'none' &&
                   st.visibility !== 'hidden', left: r.left, right: r.right, height: r.height});
  }
  const describe = e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
      (e.className && typeof e.className === 'string' ? '.' + e.className.split(' ').join('.') : '') +
      ' "' + (e.textContent || '').trim().slice(0, 40) + '"';
  for (const e of document.body.querySelectorAll('*')) {
    const r = e.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(e).display === 'none') continue;
    if (e.closest('[hidden]')) continue;
    if (r.right > W + 0.5 || r.left < -0.5) out.past.push(describe(e) + ' ' + Math.round(r.left) + '..' + Math.round(r.right));
    const s = getComputedStyle(e);
    const hides = v => v === 'hidden' || v === 'clip' || v === 'auto' || v === 'scroll';
    if ((hides(s.overflowX) && e.scrollWidth > e.clientWidth + 1) ||
        (hides(s.overflowY) && e.scrollHeight > e.clientHeight + 1))
      out.clipped.push(describe(e));
  }
  out.controls = !document.getElementById('controls').hidden;
  out.controlsDrawn = getComputedStyle(document.getElementById('controls')).display !== 'none';
  out.height = Math.ceil(document.documentElement.scrollHeight);
  return JSON.stringify(out);
})()"""


def evaluate(b, expr):
    r = b.send("Runtime.evaluate", {"expression": expr, "returnByValue": True})
    if "exceptionDetails" in r:
        raise RuntimeError(json.dumps(r["exceptionDetails"])[:400])
    return r["result"].get("value")


report = json.load(open(REPORT))
want = len(report["sessions"])
ORDER = ["noncompliant", "unattested", "missing", "unreachable"]
b = Browser()
try:
    targets = b.send("Target.getTargets", session=False)["targetInfos"]
    page = next(t for t in targets if t["type"] == "page")
    b.session = b.send("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True},
                       session=False)["sessionId"]
    b.send("Page.enable")
    b.send("Runtime.enable")
    for width, media in ((900, "screen"), (1400, "screen"), (794, "print")):
        what = f"{width} px" + (" (print)" if media == "print" else "")
        b.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": 1000, "deviceScaleFactor": 1,
                                                       "mobile": False})
        b.send("Emulation.setEmulatedMedia", {"media": media})
        b.send("Page.navigate", {"url": "file://" + os.path.abspath(PAGE)})
        b.wait_event("Page.loadEventFired")
        m = json.loads(evaluate(b, MEASURE))
        rows = m["rows"]
        check(len(rows) == want and all(r["shown"] for r in rows),
              f"{what}: every session has a row, shown", f"{len(rows)} rows of {want}: {rows[:2]}")
        check(all(r["left"] >= -0.5 and r["right"] <= m["width"] + 0.5 for r in rows),
              f"{what}: every row within the page's width", [r for r in rows if r["right"] > m["width"]][:2])
        check(m["scrollWidth"] <= m["width"], f"{what}: the page does not scroll sideways",
              f"scrollWidth {m['scrollWidth']} > {m['width']}")
        check(not m["past"], f"{what}: no element reaches past the page's edge", "\n".join(m["past"][:8]))
        check(not m["clipped"], f"{what}: nothing clipped", "\n".join(m["clipped"][:8]))
        ranks = [r["rank"] for r in rows]
        groups = [ORDER.index(r["verdict"]) if r["verdict"] in ORDER else 4 + (r["violation"] != "1")
                  for r in rows]
        check(ranks == sorted(ranks) and groups == sorted(groups),
              f"{what}: rows in the order of severity (violations first)", [(r["verdict"], r["rank"]) for r in rows])
        if media == "print":
            check(m["controls"] and not m["controlsDrawn"], f"{what}: the filter is not printed",
                  f"script ran {m['controls']}, drawn {m['controlsDrawn']}")
            continue
        check(m["controls"], f"{what}: the page's own script runs (the filter is shown): the CSP allows it")
        # a full-page screenshot, decoded
        b.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": m["height"],
                                                       "deviceScaleFactor": 1, "mobile": False})
        shot = base64.b64decode(b.send("Page.captureScreenshot", {"format": "png"})["data"])
        path = os.path.join(OUT, f"{NAME}-{width}.png")
        open(path, "wb").write(shot)
        w, h, colours = png_facts(shot)
        check(w == width and h == m["height"] and colours > 50,
              f"{what}: a full-page screenshot ({w}x{h}, {colours} colours sampled), not blank",
              f"page {width}x{m['height']}")
        b.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": 1000, "deviceScaleFactor": 1,
                                                       "mobile": False})
    # the filter and the sorting, as a reviewer uses them (1400 px, screen)
    some = report["sessions"][-1]["name"]
    got = json.loads(evaluate(b, """(() => {
      const f = document.getElementById('filter'), v = document.getElementById('verdict-filter');
      const shown = () => [...document.querySelectorAll('#sessions > tbody > tr')].filter(r => !r.hidden)
                           .map(r => r.dataset.name);
      f.value = %s; f.dispatchEvent(new Event('input'));
      const byName = shown();
      f.value = ''; f.dispatchEvent(new Event('input'));
      v.value = 'violations'; v.dispatchEvent(new Event('change'));
      const viol = shown();
      v.value = 'all'; v.dispatchEvent(new Event('change'));
      const th = [...document.querySelectorAll('#sessions thead th')].find(t => t.dataset.key === 'name');
      th.querySelector('button').click();
      const sorted = shown();
      th.querySelector('button').click();
      const reversed = shown();
      return JSON.stringify({byName, viol, sorted, reversed, text: document.getElementById('shown').textContent});
    })()""" % json.dumps(some)))
    check(got["byName"] == [some], "the filter by a session's name leaves its row alone", got["byName"])
    viol = [s["name"] for s in report["sessions"]
            if s["verdict"] != "compliant" or any(f["status"] == "fail" and f["rule"].startswith("audit.")
                                                   for f in s["findings"])]
    check(sorted(got["viol"], key=str) == sorted(viol, key=str), "'violations' shows the violations only",
          f"{got['viol']} != {viol}")
    names = [s["name"] or "" for s in report["sessions"]]
    check(got["sorted"] == sorted(names) and got["reversed"] == sorted(names, reverse=True),
          "a click on Session sorts by name, a second click the other way", got["sorted"])
    check(got["text"] == f"{want} of {want} sessions shown", "the count of the rows shown", got["text"])
finally:
    b.close()
print(f"1..{n}")
sys.exit(1 if failed else 0)
