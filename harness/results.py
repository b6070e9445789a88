#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge a `boot.sh check` run from its logs.

KUnit reports in KTAP on the console while the kernel boots; the
kselftests report in KTAP on the second serial port. Every leaf result
(a test case, not a suite) counts. The run fails on any `not ok`, a plan
that does not match its results, a kernel report (oops, BUG, WARNING,
KASAN, lockdep, ...) anywhere in the console log, a guest whose CPU count
is not the one asked for, a missing result, or a timeout. A test that
asks for stack dumps (sysrq 'l', fault injection) brackets them with
BACKTRACES lines on the console; a "Call Trace:" or an allocation
failure between them is no report; a "Call Trace:" after a report's
first line is that report's. The last line
printed is `N passed, N failed` (with `, N skipped` when any were).
"""
import argparse
import re
import sys

TIMESTAMP = re.compile(r'^\[\s*\d+\.\d+\]\s?')
RESULT = re.compile(r'^(not ok|ok) (\d+)\b ?(?:- )?(.*?)\s*'
                    r'(?:#\s*((?:SKIP|TODO|XFAIL|exit=|UNRESOLVED|error)\b.*))?$')
PLAN = re.compile(r'^1\.\.(\d+)')
REPORTS = re.compile(
    r'(Oops|BUG:|WARNING:|Kernel panic|general protection fault|'
    r'UBSAN:|unreferenced object|INFO: task .* blocked|'
    r'soft lockup|hard LOCKUP|detected (?:expedited )?stalls|'
    r'self-detected stall|kthread starved|kthread timer wakeup|'
    r'page allocation failure|vmalloc error|invoked oom-killer|'
    r'unchecked MSR access|Call Trace:)')
# The lines of a stack dump between its report's first line and its
# "Call Trace:" (dump_stack(), show_regs(), sched_show_task())
DUMP = re.compile(
    r'^(CPU: \d|Tainted: |Hardware name: |RIP: |Code: |RSP: |R[A-Z0-9]{2}: |'
    r'FS: |CS: |CR2: |DR[0-7]: |PKRU: |Workqueue: |NMI backtrace for cpu|'
    r'Sending NMI from|task:|\s+hardirqs |\s+softirqs |\s+csw/system|'
    r'\s+\d+-\.\.\.|\s+\(t=|Modules linked in:|Stack:|\?)')
# A dump's "Call Trace:" comes this many lines after its report's first
# line at most; a "Call Trace:" with no report before it is reported by
# the line that introduced its dump
DUMP_LINES = 40
# the lines around each report that --reports writes, and how many
CONTEXT_AFTER = 14
CONTEXT_REPORTS = 3
# Tests that cause stack dumps on purpose bracket them with these lines
# on the console: sysrq 'l' backtraces, and the allocation failure
# reports (warn_alloc()) of fault injection.
ASKED = ('Call Trace:', 'vmalloc error', 'page allocation failure')
BACKTRACES = (('ktp selftest: sysrq backtraces begin',
               'ktp selftest: sysrq backtraces end'),
              ('ktp selftest: fault injection begin',
               'ktp selftest: fault injection end'))


def strip(line):
    """Return (depth, text) of a KTAP line: each leading '# ' of kselftest
    nesting and each 4 spaces of KUnit indentation is one level."""
    line = TIMESTAMP.sub('', line.rstrip('\r\n'))
    depth = 0
    while True:
        if line.startswith('# ') and (RESULT.match(line[2:].lstrip(' ')) or
                                      PLAN.match(line[2:].lstrip(' ')) or
                                      line[2:].startswith('# ') or
                                      line[2:].startswith('    ')):
            line = line[2:]
            depth += 1
        elif line.startswith('    '):
            line = line[4:]
            depth += 1
        else:
            return depth, line


class Ktap:
    def __init__(self, name):
        self.name = name
        self.passed = self.failed = 0
        self.failures = []
        self.skips = []
        self.errors = []
        self.plans = {}		# depth -> [expected, seen]
        self.fail_mark = {}	# depth -> failures counted before its subtests

    def feed(self, raw):
        depth, text = strip(raw)
        # a parameterized KUnit case gives no plan for its parameters:
        # its "# Subtest:" line says that the result one level up is a
        # parent's
        if text.startswith('# Subtest:') and depth > 0:
            self.fail_mark.setdefault(depth - 1, self.failed)
            return
        m = PLAN.match(text)
        if m:
            self.plans[depth] = [int(m.group(1)), 0]
            if depth > 0:
                self.fail_mark.setdefault(depth - 1, self.failed)
            return
        m = RESULT.match(text)
        if not m:
            return
        ok, _, desc, directive = m.groups()
        directive = (directive or '').strip()
        self.close_plan(depth + 1, desc)
        if depth in self.plans:
            self.plans[depth][1] += 1
        mark = self.fail_mark.pop(depth, None)
        if mark is not None:
            # a suite or a kselftest program: its cases were counted
            if ok == 'not ok' and self.failed == mark:
                self.errors.append('%s: %s failed: %s' % (self.name, desc, directive))
            return
        if directive.upper().startswith('SKIP'):
            self.skips.append(desc)
        elif ok == 'ok':
            self.passed += 1
        else:
            self.failed += 1
            self.failures.append(desc)

    def close_plan(self, depth, desc):
        plan = self.plans.pop(depth, None)
        if plan and plan[0] != plan[1]:
            self.errors.append('%s: %s planned %d results but gave %d'
                               % (self.name, desc or 'top level', plan[0], plan[1]))

    def finish(self):
        for depth in sorted(self.plans):
            self.close_plan(depth, None)
        if self.passed + self.failed + len(self.skips) == 0:
            self.errors.append('%s: no results' % self.name)


def dump_start(console, i):
    """the line before the dump whose "Call Trace:" is console[i]"""
    j = i - 1
    while j > 0 and i - j < DUMP_LINES and \
            DUMP.match(TIMESTAMP.sub('', console[j])):
        j -= 1
    return j


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--console', required=True)
    ap.add_argument('--kselftest', required=True)
    ap.add_argument('--qemu-rc', required=True)
    ap.add_argument('--smp', type=int, required=True)
    ap.add_argument('--no-kunit', action='store_true',
                    help='the run had KUnit off (kunit.enable=0)')
    ap.add_argument('--expected-skips', action='append', default=[],
                    help='file of "description-prefix<TAB>reason" lines '
                         '(more than one: all of their lines)')
    ap.add_argument('--reports',
                    help='write the console lines around the first kernel '
                         'reports to this file')
    ap.add_argument('--require', action='append', default=[],
                    help='a line the console must have (e.g. a kmemleak scan)')
    args = ap.parse_args()

    problems = []
    with open(args.console, errors='replace') as f:
        console = f.read().splitlines()
    try:
        with open(args.kselftest, errors='replace') as f:
            kself = f.read().splitlines()
    except FileNotFoundError:
        kself = []
    rc = open(args.qemu_rc).read().strip()
    if rc == '124' or rc == '137':
        problems.append('QEMU timed out')

    kunit = Ktap('KUnit')
    in_kernel = True
    asked = False
    last_report = -DUMP_LINES - 1
    report_at = []
    for i, line in enumerate(console):
        for begin, end in BACKTRACES:
            if begin in line:
                asked = True
            elif end in line:
                asked = False
        if 'KTP-HARNESS:' in line:
            in_kernel = False
            m = re.search(r'cpus=(\d+)', line)
            if m and int(m.group(1)) != args.smp:
                problems.append('guest has %s CPUs, QEMU was given %d'
                                % (m.group(1), args.smp))
        elif in_kernel:
            kunit.feed(line)
        m = REPORTS.search(line)
        if not m or (asked and m.group(1) in ASKED):
            continue
        if m.group(1) != 'Call Trace:':
            last_report = i
            report_at.append(i)
            problems.append('kernel report: ' + TIMESTAMP.sub('', line).strip())
        elif i - last_report > DUMP_LINES:
            # a dump no report line names: say what came before it
            first = dump_start(console, i)
            report_at.append(first)
            problems.append('kernel report: Call Trace: after "%s"'
                            % TIMESTAMP.sub('', console[first]).strip()[:120])
    if args.reports:
        with open(args.reports, 'w') as f:
            end = 0
            for i in report_at[:CONTEXT_REPORTS]:
                if i < end:
                    continue
                end = i + CONTEXT_AFTER
                f.write('-- %s, line %d\n' % (args.console, i + 1))
                for line in console[max(i - 2, 0):i + CONTEXT_AFTER]:
                    f.write(TIMESTAMP.sub('', line.rstrip('\r\n'))[:160] + '\n')
    if not args.no_kunit:
        kunit.finish()
    elif kunit.passed + kunit.failed + len(kunit.skips):
        problems.append('KUnit ran, but the run was to have it off')
    if not any('cpus=' in l for l in console):
        problems.append('the guest never reached /init')
    if not any('KTP-HARNESS: done' in l for l in console):
        problems.append('the guest did not finish (crash or timeout)')
    for r in args.require:
        if not any(r in l for l in console):
            problems.append('the console lacks "%s"' % r)

    ksft = Ktap('kselftest')
    for line in kself:
        ksft.feed(line)
    ksft.finish()

    expected = []
    for path in args.expected_skips:
        with open(path) as f:
            expected += [l.rstrip('\n').split('\t', 1) for l in f
                         if l.strip() and not l.startswith('#')]
    unexpected_skips = 0
    for t in (kunit, ksft):
        print('%-10s %d passed, %d failed, %d skipped'
              % (t.name + ':', t.passed, t.failed, len(t.skips)))
        for f in t.failures:
            print('  not ok: ' + f)
        for d in t.skips:
            why = [r for p, r in expected if d.startswith(p)]
            if why:
                print('  skipped: %s (cannot run here: %s)' % (d, why[0]))
            else:
                print('  skipped: %s (can run here: counts as not done)' % d)
                unexpected_skips += 1
        problems += t.errors
    for p in problems:
        print('FAIL: ' + p)

    passed = kunit.passed + ksft.passed
    failed = kunit.failed + ksft.failed + len(problems)
    skipped = len(kunit.skips) + len(ksft.skips)
    line = '%d passed, %d failed' % (passed, failed)
    if skipped:
        line += ', %d skipped' % skipped
    if unexpected_skips:
        print('FAIL: %d skipped that can run here' % unexpected_skips)
    print(line)
    return 1 if failed or unexpected_skips else 0


if __name__ == '__main__':
    sys.exit(main())
