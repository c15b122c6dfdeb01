#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The README's tutorial as one bash script: every `$ ` command of its ```console blocks, in
order, verbatim (with its `\\` continuation lines and here-document bodies). Each must exit
0; the script stops at the first that does not, naming its README line.

    readme.py README.md > tutorial.sh
"""
import re
import sys

lines = open(sys.argv[1]).read().split("\n")
out = ["set -u", "cd \"${TUTORIAL_DIR:-.}\" || exit 1"]
i, in_block = 0, False
while i < len(lines):
    line = lines[i]
    if line.startswith("```"):
        in_block = line.strip() == "```console" and not in_block
        i += 1
        continue
    if in_block and line.startswith("$ "):
        start, cmd = i + 1, [line[2:]]
        heredoc = re.search(r"<<-?'?([A-Z]+)'?", line)
        while cmd[-1].endswith("\\") and i + 1 < len(lines):
            i += 1
            cmd.append(lines[i])
        if heredoc:
            while i + 1 < len(lines):
                i += 1
                cmd.append(lines[i])
                if lines[i] == heredoc.group(1):
                    break
        text = "\n".join(cmd)
        out.append("printf '%%s\\n' %s" % ("'README.md:%d: $ " % start +
                                           cmd[0].replace("'", "'\\''") + "'"))
        out.append(text)
        out.append("rc=$?; [ $rc -eq 0 ] || { echo \"README.md:%d: exit $rc\"; exit 1; }" % start)
    i += 1
out.append("echo 'README: every example ran'")
print("\n".join(out))
