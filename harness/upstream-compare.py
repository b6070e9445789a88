#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare upstream's ftrace selftests on the patched and unpatched kernel.

make check runs tools/testing/selftests/ftrace (ftracetest -K, the
directories guest-init's run_upstream() names) on the patched test kernel
and on the same tree without KTP's patches, built with the same
configuration (harness/static-checks.sh). Each test must end as it ends
on the unpatched kernel: a test that fails there for want of something
QEMU or the small test kernel lacks (a network stack, a dynamically
linked shell) may fail here too, but nothing else may. Both runs must
have finished, with the same tests, but for those a fix of the series
makes pass (harness/upstream-fixed): the unpatched run leaves them out,
and each must pass on the patched kernel.

The last line is `N passed, N failed` as results.py writes it: all of
this is one test of make check.
"""
import argparse
import collections
import re
import sys

RESULT = re.compile(r'^(not ok|ok) (\d+) (.*?)(?: # (\S+).*)?$')
TOTALS = re.compile(r'^# Totals: ')


def read_results(path):
    """{(description, occurrence): result} of one run, and whether it ended."""
    results = {}
    seen = collections.Counter()
    ended = False
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\r\n')
            if TOTALS.match(line):
                ended = True
            m = RESULT.match(line)
            if not m:
                continue
            status, _, desc, directive = m.groups()
            seen[desc] += 1
            result = status.upper() + (' # ' + directive.upper() if directive else '')
            results[(desc, seen[desc])] = result
    return results, ended


def read_fixed(path, testdir):
    """{description: what the base does} of the tests the series fixes."""
    fixed = {}
    with open(path) as f:
        for line in f:
            if line.startswith('#') or not line.strip():
                continue
            test, why = line.rstrip('\n').split('\t', 1)
            with open('%s/%s' % (testdir, test)) as tc:
                desc = [l.split(':', 1)[1].strip() for l in tc
                        if l.startswith('# description:')]
            fixed[desc[0]] = why
    return fixed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--patched', required=True)
    ap.add_argument('--unpatched', required=True)
    ap.add_argument('--fixed', required=True, help='harness/upstream-fixed')
    ap.add_argument('--testdir', required=True,
                    help="the tree's tools/testing/selftests/ftrace/test.d")
    args = ap.parse_args()
    fixed = read_fixed(args.fixed, args.testdir)

    problems = []
    runs = {}
    for name, path in (('patched', args.patched), ('unpatched', args.unpatched)):
        try:
            runs[name] = read_results(path)
        except OSError as e:
            problems.append('%s kernel: no results (%s)' % (name, e))
    if not problems:
        patched, p_ended = runs['patched']
        unpatched, u_ended = runs['unpatched']
        for name, results, ended in (('patched', patched, p_ended),
                                     ('unpatched', unpatched, u_ended)):
            if not results or not ended:
                problems.append('%s kernel: the run did not finish (%d results)' %
                                (name, len(results)))
        for desc in fixed:
            if (desc, 1) not in patched:
                problems.append('"%s", which the series fixes, did not run on the '
                                'patched kernel' % desc)
        for key in sorted(set(patched) | set(unpatched)):
            got, want = patched.get(key, 'missing'), unpatched.get(key, 'missing')
            if key[0] in fixed:
                if got != 'OK' or want != 'missing':
                    problems.append('"%s", which the series fixes: %s on the patched '
                                    'kernel, %s unpatched (want OK, and left out)' %
                                    (key[0], got, want))
                continue
            if got != want:
                problems.append('"%s": %s on the patched kernel, %s unpatched' %
                                (key[0], got, want))
        tally = collections.Counter(patched.values())
        print('upstream ftrace selftests: %d tests; on the patched kernel %s' %
              (len(patched), ', '.join('%s %d' % kv for kv in sorted(tally.items()))))
        for key in sorted(patched):
            if patched[key] != 'OK' and patched.get(key) == unpatched.get(key):
                print('  as on the unpatched kernel: %s: %s' % (key[0], patched[key]))
        for desc, why in sorted(fixed.items()):
            print('  fixed by the series: %s: %s on the patched kernel; unpatched, %s' %
                  (desc, patched.get((desc, 1), 'missing'), why))

    for p in problems:
        print('FAIL: ' + p)
    print('%d passed, %d failed' % (0 if problems else 1, 1 if problems else 0))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
