#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where each KTP kselftest that did not pass stopped.

ftracetest keeps the log of every test that did not pass, and the guest
sends those logs to a serial port ($tag-testlogs.log). make check prints
only its results; CI shows the end of that. This prints, for each test
marked [FAIL] or [UNRESOLVED] in the given logs, its name and the last
lines of its shell trace, so that the end of make check's output says
which command failed, and with what.

usage: failed-logs.py [--lines N] LOG...
"""

import argparse
import re
import sys

RESULT = re.compile(r'^\[\d+\] (.*)\t\[([A-Z]+)\]$')
# ftracetest's results that are not a pass (nor an accepted skip)
NOT_PASSED = ('FAIL', 'UNRESOLVED', 'UNTESTED')
# ftracetest's summary, which follows the last test's trace
SUMMARY = re.compile(r'^# of (passed|failed):')


def failed_tests(path):
    """(name, trace lines) of each test that did not pass, in order"""
    tests = []
    current = None
    try:
        with open(path, errors='replace') as f:
            lines = f.read().replace('\r', '').split('\n')
    except OSError:
        return tests
    for line in lines:
        m = RESULT.match(line)
        if m:
            # a test's trace follows its result and ends at the next
            # test's result, whatever that is
            current = None
            if m.group(2) in NOT_PASSED:
                current = (m.group(1), [])
                tests.append(current)
        elif line.startswith('==== ') or SUMMARY.match(line):
            current = None
        elif current is not None:
            current[1].append(line)
    return tests


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--lines', type=int, default=12)
    ap.add_argument('logs', nargs='+')
    args = ap.parse_args()
    for path in args.logs:
        for name, trace in failed_tests(path):
            trace = [l for l in trace if l.strip()]
            print('-- %s (%s)' % (name, path.rsplit('/', 1)[-1]))
            for line in trace[-args.lines:]:
                print('   ' + line[:200])
    return 0


if __name__ == '__main__':
    sys.exit(main())
