#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where a VM's test time went, from the .times files boot.sh writes.

Each line of a .times file is a serial port's line with the seconds since
QEMU started when it arrived. A test's time is from the result line
before it (or the port's first line) to its own result line, so the
first one also holds what ran before it on that port.
  test-times.py [--most N] FILE.times...
prints, for each file, the span of its results and its N slowest tests.
"""
import argparse
import re

RESULT = re.compile(r'^(?:# )*(not ok|ok) (\d+) (?:- )?(.*?)\s*$')


def times(path):
    """[(seconds, description)] of the results in a .times file, and the
    seconds of its first and last line"""
    results, first, last, prev = [], None, None, None
    with open(path, errors='replace') as f:
        for line in f:
            secs, _, text = line.rstrip('\r\n').partition(' ')
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
        print(f'{path}: {len(results)} results from {first}s to {last}s '
              f'after QEMU started; the slowest:')
        for secs, desc in sorted(results, key=lambda r: -r[0])[:args.most]:
            print(f'  {secs:5d}s  {desc[:90]}')


if __name__ == '__main__':
    main()
