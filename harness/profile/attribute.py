#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Attribute the program counters harness/profile/step.py wrote to the
functions of vmlinux: instructions per function, most first, then the
sequence of functions with the instructions of each run. A rep-prefixed
instruction counts once per iteration, as QEMU's -icount counts it.
Addresses outside vmlinux (BPF JIT code, ftrace trampolines) show as
?PAGE, user space as "user"."""
import bisect
import collections
import subprocess
import sys

vmlinux, pcs_file = sys.argv[1], sys.argv[2]
syms = []
for line in subprocess.run(['nm', '-n', vmlinux], capture_output=True,
                           text=True, check=True).stdout.splitlines():
    f = line.split()
    if len(f) == 3 and f[1] in 'tTwW':
        syms.append((int(f[0], 16), f[2]))
addrs = [a for a, _ in syms]


def name(pc):
    if pc < 1 << 47:
        return 'user'
    i = bisect.bisect_right(addrs, pc) - 1
    if i < 0 or pc - addrs[i] > 0x10000:
        return '?%x' % (pc >> 12)
    return syms[i][1]


names = [name(int(l, 16)) for l in open(pcs_file) if l.strip()]
print('total %d guest instructions' % len(names))
for fn, n in collections.Counter(names).most_common():
    print('%8d %s' % (n, fn))
print('--- sequence')
run = None
count = 0
for fn in names + [None]:
    if fn != run and run is not None:
        print('%8d %s' % (count, run))
        count = 0
    run = fn
    count += 1
