#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print the compiler, sparse or coccicheck diagnostics of LOG that fall on lines the
series added (every line of a file it added counts), so that files the
series touches are held to "no new warnings" without owning the warnings
they already had."""
import re
import subprocess
import sys

log, src, base, head = sys.argv[1:5]
diag = re.compile(r'^(?:%s/)?([^:\s]+):(\d+):(?:\d+:)? (warning|error): ' % re.escape(src))
# coccicheck's reports: FILE:LINE:COL-COL: MESSAGE
cocci = re.compile(r'^(?:%s/)?([^:\s]+):(\d+):\d+-\d+: ' % re.escape(src))

added = {}
diff = subprocess.run(['git', '-C', src, 'diff', '-U0', base, head],
                      capture_output=True, text=True, check=True).stdout
path = None
for line in diff.splitlines():
    if line.startswith('+++ '):
        path = line[6:] if line.startswith('+++ b/') else None
        added.setdefault(path, set())
    m = re.match(r'^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@', line)
    if m and path:
        start, count = int(m.group(1)), int(m.group(2) or 1)
        added[path].update(range(start, start + count))

found = 0
with open(log, errors='replace') as f:
    for line in f:
        m = diag.match(line) or cocci.match(line)
        if m and int(m.group(2)) in added.get(m.group(1), ()):
            print(line.rstrip())
            found += 1
sys.exit(1 if found else 0)
