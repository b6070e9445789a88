#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where a VM's test time went, from the .times files boot.sh writes.

Each line of a .times file is a serial port's line with the seconds since
QEMU started when it arrived. A test's time is from the result line
before it (or the port's first line) to its own result line, so the
first one also holds what ran before it on that port. A console log
(FILE-console.log) is read the same way with its printk timestamps, the
seconds since the kernel started (boot.sh boots with printk.time=1):
there, the results are KUnit's, which runs at boot.
  test-times.py [--most N] FILE.times|FILE-console.log...
prints, for each file, the span of its results and its N slowest tests.
"""
import argparse
import re

RESULT = re.compile(r'^(?:# )*(not ok|ok) (\d+) (?:- )?(.*?)\s*$')
PRINTK = re.compile(r'^\[\s*(\d+)\.\d+\] ?(.*)$')


def times(path):
    """[(seconds, description)] of the results in a .times file, and the
    seconds of its first and last line"""
    results, first, last, prev = [], None, None, None
    console = path.endswith('-console.log')
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\r\n')
            if console:
                m = PRINTK.match(line)
                if not m:
                    continue
                secs, text = m.group(1), m.group(2).lstrip(' ')
            else:
                secs, _, text = line.partition(' ')
            if not secs.isdigit():
                continue
            secs = int(secs)
            if first is None:
                first = prev = secs
            last = secs
            m = RESULT.match(text.replace('\r', ''))
            if m:
                results.append((secs - prev, m.group(3)))
                prev = secs
    return results, first, last


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--most', type=int, default=8)
    ap.add_argument('files', nargs='+')
    args = ap.parse_args()
    for path in args.files:
        results, first, last = times(path)
        if first is None:
            print(f'{path}: no output')
            continue
        since = 'the kernel' if path.endswith('-console.log') else 'QEMU'
        print(f'{path}: {len(results)} results from {first}s to {last}s '
              f'after {since} started; the slowest:')
        for secs, desc in sorted(results, key=lambda r: -r[0])[:args.most]:
            print(f'  {secs:5d}s  {desc[:90]}')


if __name__ == '__main__':
    main()
