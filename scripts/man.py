#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The manual pages of the commands, made from their --help (the one source), plus the
hand-written sections of man/extra/PAGE (EXAMPLES, SEE ALSO, ...).

    man.py BIN_DIR OUT_DIR      write OUT_DIR/boxcert.1 and OUT_DIR/boxcert-CMD.1

`make man` writes them into man/ (committed, so a build needs no Python);
tests/cli/man.sh checks the committed pages are the ones made from the binaries' --help and
that `man --warnings` has nothing to say about any page.

A --help text is read as: the usage lines (up to the first blank line) are the SYNOPSIS;
prose up to the first indented item is the DESCRIPTION; indented items ("  --key PUB   text",
continuation lines indented further) are OPTIONS (a tag starting with -) or COMMANDS; a
line after them starting "Environment:" or "Exit:" opens ENVIRONMENT or EXIT STATUS, any
other such "Word:" line is a paragraph of NOTES.
"""
import os
import re
import subprocess
import sys

VERSION_RE = re.compile(r"^boxcert (\d+\.\d+\.\d+)$")
SECTIONS = {"Environment": "ENVIRONMENT", "Exit": "EXIT STATUS", "Exit codes": "EXIT STATUS"}


# Non-ASCII characters of the docs as groff names them (the pages are plain ASCII).
GLYPHS = {"\u2026": "...", "\u2016": "||", "\u2264": "\\(<=", "\u2265": "\\(>=", "\u2212": "\\-",
          "\u222a": "\\(cu", "\u2229": "\\(ca", "\u2208": "\\(mo", "\u2209": "\\(nm",
          "\u21d2": "\\(rA", "\u00d7": "\\(mu", "\u2192": "\\(->", "\u2014": "\\(em",
          "\u2013": "\\(en", "\u00b7": "\\(pc", "\u2019": "'", "\u201c": "\\(lq", "\u201d": "\\(rq",
          "\u2286": "\\(ib", "\u2260": "\\(!=", "\u00a7": "\\(sc", "\u2227": "\\(AN",
          "\u2228": "\\(OR", "\u00ac": "\\(no", "\u2205": "\\(es", "\u221e": "\\(if"}


def esc(s):
    """roff text: backslashes, minus signs, and a leading dot or quote."""
    s = s.replace("\\", "\\e").replace("-", "\\-")
    for u, r in GLYPHS.items():
        s = s.replace(u, r)
    if s[:1] in (".", "'"):
        s = "\\&" + s
    return s


def bold_options(s):
    """esc(s) with each --option and -x in bold."""
    out = esc(s)
    return re.sub(r"(?<![\w\\])((?:\\-){1,2}[a-z][a-z0-9]*(?:\\-[a-z0-9]+)*)", r"\\fB\1\\fR", out)


def parse(text):
    lines = text.rstrip("\n").split("\n")
    i = 0
    synopsis = []
    while i < len(lines) and lines[i].strip():
        line = lines[i]
        if line.startswith("usage: "):
            synopsis.append(line[len("usage: "):].strip())
        elif re.match(r"^ {7}\S", line):
            synopsis.append(line.strip())
        else:
            synopsis[-1] += " " + line.strip()
        i += 1
    while i < len(lines) and not lines[i].strip():
        i += 1
    desc, items, tail = [], [], []
    para = []
    while i < len(lines) and not re.match(r"^  \S", lines[i]):
        if not lines[i].strip():
            if para:
                desc.append(" ".join(para))
            para = []
        elif re.match(r"^[a-z]+:$", lines[i]):  # "commands:": the items follow
            pass
        elif re.match(r"^[a-z]+: ", lines[i]) and para:
            desc.append(" ".join(para))
            para = [lines[i].strip()]
        else:
            para.append(lines[i].strip())
        i += 1
    if para:
        desc.append(" ".join(para))
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^  (\S(?:.*?\S)?)(?: {2,}(\S.*))?$", line)
        if re.match(r"^ {4,}\S", line) and items:
            if items[-1][1]:
                items[-1][1] += " " + line.strip()
            else:
                items[-1][1] = line.strip()
        elif m:
            items.append([m.group(1), m.group(2) or ""])
        elif line.strip():
            break
        i += 1
    section = None
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^([A-Z][A-Za-z ]*?)(?: \([^)]*\))?: ", line)
        if m:
            section = SECTIONS.get(m.group(1), "NOTES")
            body = line[len(m.group(1)) + 2:] if m.group(1) in SECTIONS else line
            tail.append([section, [body.strip()]])
        elif tail:
            tail[-1][1].append(line.strip())
        elif line.strip():
            desc.append(line.strip())
        i += 1
    return synopsis, desc, items, tail


def page(name, summary, version, date, text, extra):
    synopsis, desc, items, tail = parse(text)
    out = [
        '.\\" SPDX-License-Identifier: Apache-2.0',
        '.\\" Made by scripts/man.py from the --help of "%s" and man/extra/%s: do not edit.'
        % (name.replace("-", " ", 1) if name != "boxcert" else name, name + ".1"),
        '.TH %s 1 "%s" "boxcert %s" "User Commands"' % (name.upper().replace("-", "\\-"), date,
                                                      version),
        ".SH NAME",
        "%s \\- %s" % (esc(name), esc(summary)),
        ".SH SYNOPSIS",
    ]
    for n, s in enumerate(synopsis):
        if n:
            out.append(".br")
        words = s.split(" ", 2)
        # "boxcert verify ARGS": the command in bold, the rest as it is
        cmd = words[:2] if len(words) > 1 and re.match(r"^[a-z]+$", words[1]) else words[:1]
        rest = s[len(" ".join(cmd)):].strip()
        out.append(".B %s" % esc(" ".join(cmd)))
        if rest:
            out.append(bold_options(rest))
    out.append(".SH DESCRIPTION")
    for n, p in enumerate(desc):
        if n:
            out.append(".PP")
        out.append(bold_options(p))
    groups = [("COMMANDS", [it for it in items if not it[0].startswith("-")]),
              ("OPTIONS", [it for it in items if it[0].startswith("-")])]
    for title, group in groups:
        if not group:
            continue
        out.append(".SH " + title)
        for tag, body in group:
            out.append(".TP")
            if tag.startswith("-"):
                parts = re.split(r"(, )", tag)
                rendered = ""
                for p in parts:
                    if p == ", ":
                        rendered += ", "
                        continue
                    opt, _, arg = p.partition(" ")
                    rendered += "\\fB%s\\fR" % esc(opt) + (" \\fI%s\\fR" % esc(arg) if arg else "")
                out.append(rendered)
            else:
                out.append(".B %s" % esc(tag))
            out.append(bold_options(body))
    for title in ("ENVIRONMENT", "EXIT STATUS", "NOTES"):
        paras = [" ".join(b) for s, b in tail if s == title]
        if paras:
            out.append(".SH " + title)
            for n, p in enumerate(paras):
                if n:
                    out.append(".PP")
                out.append(bold_options(p))
    if extra:
        out.append(extra.rstrip("\n"))
    return "\n".join(out) + "\n"


def md_inline(s):
    """Markdown inline text as roff: links as their text, `code` and **bold** in bold."""
    s = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", s)
    parts = re.split(r"(`[^`]*`|\*\*[^*]+\*\*)", s)
    out = ""
    for p in parts:
        if p.startswith("`") and p.endswith("`") and len(p) > 1:
            out += "\\fB" + esc(p[1:-1]) + "\\fR"
        elif p.startswith("**") and p.endswith("**") and len(p) > 4:
            out += "\\fB" + esc(p[2:-2]) + "\\fR"
        else:
            out += esc(p.replace("\\|", "|"))
    if out.startswith("\\&") is False and out[:1] in (".", "'"):
        out = "\\&" + out
    return out


def md_sections(path, wanted):
    """The sections of a Markdown file whose headings match wanted (regexes), as roff:
    ## headings are .SH, ### .SS; paragraphs, bullet lists, tables (one .TP per row: the
    first cell the tag) and fenced code (.nf)."""
    lines = open(path).read().split("\n")
    out, on, i, para = [], False, 0, []

    def flush():
        if para:
            out.append(md_inline(" ".join(para)))
            para.clear()

    while i < len(lines):
        line = lines[i]
        h = re.match(r"^(#{2,3}) (.*)$", line)
        if h:
            flush()
            title = re.sub(r"^[0-9a-z]+\. ", "", h.group(2))
            if len(h.group(1)) == 2:
                on = any(re.search(w, h.group(2)) for w in wanted)
                if on:
                    out.append(".SH " + esc(title.upper()))
            elif on:
                out.append(".SS " + md_inline(title))
            i += 1
            continue
        if not on:
            i += 1
            continue
        if line.startswith("```"):
            flush()
            out += [".PP", ".nf", ".RS"]
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                out.append(esc(lines[i]) if lines[i] else "")
                i += 1
            out += [".RE", ".fi"]
        elif line.startswith("|"):
            flush()
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            if not all(re.match(r"^-+$", c) for c in cells) and not (
                    i + 1 < len(lines) and re.match(r"^\|[-| ]+\|$", lines[i + 1])):
                out += [".TP", md_inline(cells[0]), md_inline("; ".join(c for c in cells[1:] if c))]
        elif re.match(r"^\s*[-*] ", line):
            flush()
            item = [re.sub(r"^\s*[-*] ", "", line)]
            while i + 1 < len(lines) and re.match(r"^\s{2,}\S", lines[i + 1]) and not re.match(
                    r"^\s*[-*] ", lines[i + 1]):
                i += 1
                item.append(lines[i].strip())
            out += [".IP \\(bu 2", md_inline(" ".join(item))]
        elif not line.strip():
            flush()
            if out and out[-1] not in (".PP",) and not out[-1].startswith(".SH"):
                out.append(".PP")
        else:
            para.append(line.strip())
        i += 1
    flush()
    while out and out[-1] == ".PP":
        out.pop()
    # no .PP right after a heading
    return "\n".join(l for n, l in enumerate(out)
                     if not (l == ".PP" and n and out[n - 1].startswith((".SH", ".SS")))) + "\n"


def page5(name, summary, version, date, doc, wanted, extra):
    return "\n".join([
        '.\\" SPDX-License-Identifier: Apache-2.0',
        '.\\" Made by scripts/man.py from %s and man/extra/%s.5: do not edit.' % (doc, name),
        '.TH %s 5 "%s" "boxcert %s" "File Formats"' % (name.upper().replace("-", "\\-"), date,
                                                     version),
        ".SH NAME",
        "%s \\- %s" % (esc(name), esc(summary)),
    ]) + "\n" + extra + md_sections(doc, wanted)


def main():
    bin_dir, out_dir = sys.argv[1], sys.argv[2]
    src = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    boxcert = os.path.join(bin_dir, "boxcert")
    env = dict(os.environ, LC_ALL="C")
    for k in list(env):
        if k.startswith("BOXCERT_"):
            del env[k]

    def run(*args):
        return subprocess.run([boxcert, *args], check=True, capture_output=True, text=True,
                              env=env).stdout

    version = run("version", "--format", "text").split("\n")[0].split(" ")[1]
    # the date of the version's changelog entry, so a page changes only with the version
    changelog = open(os.path.join(src, "packaging", "changelog")).read()
    m = re.search(r"^ -- .*?  \w+, (\d+) (\w+) (\d+)", changelog, re.M)
    months = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()
    date = "%s-%02d-%02d" % (m.group(3), months.index(m.group(2)) + 1, int(m.group(1)))
    top = run("--help")
    commands = re.findall(r"^  ([a-z]+) +(\S.*)$", top, re.M)
    os.makedirs(out_dir, exist_ok=True)

    def extra(name):
        p = os.path.join(src, "man", "extra", name)
        return open(p).read() if os.path.exists(p) else ""

    pages = [("boxcert", "containment certificates for Docker sandbox sessions", top)]
    pages += [("boxcert-" + c, s, run(c, "--help")) for c, s in commands]
    for name, summary, text in pages:
        with open(os.path.join(out_dir, name + ".1"), "w") as f:
            f.write(page(name, summary, version, date, text, extra(name + ".1")))
    fives = [("boxcert-policy", "the policy file boxcert verify, audit and ledger read",
              "docs/policy.md", [r"^The file$", r"^Keys$"]),
             ("boxcert-certificate", "the certificate boxcert collect writes",
              "docs/certificate.md", [r"^1\. ", r"^2\. ", r"^4\. ", r"^5\. "])]
    for name, summary, doc, wanted in fives:
        body = page5(name, summary, version, date, os.path.join(src, doc), wanted,
                     extra(name + ".5"))
        with open(os.path.join(out_dir, name + ".5"), "w") as f:
            f.write(body.replace(src + "/", ""))


if __name__ == "__main__":
    main()
