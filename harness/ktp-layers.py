#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Whether KTP's files call one another in layers, without a circle.

A file's header declares what the file defines, nothing of another
file's (checked: each prototype of X.h is defined in X.c, by name).
Then "A uses B" is "A includes B's header", and the compiler, with
-Werror=implicit-function-declaration, makes every call of A to B go
through such an include. This prints the graph of those includes
between KTP's files and its cycles (strongly connected components of
more than one file), and exits 1 if there is one.
  ktp-layers.py DIR [FILE...]   (DIR: kernel/trace/ktp of a tree; FILEs:
                                 the KTP files to look at, relative to
                                 DIR, default all of DIR)
"""
import os
import re
import sys

INCLUDE = re.compile(r'^#include "([^"]+)"', re.M)
PROTO = re.compile(r'^[a-z_][\w \*]*?\b(ktp_\w+|trace_ktp\w*)\((?:[^;{]*?)\);', re.M)


def unit(name):
    """The unit a file belongs to: ktp_lex.c and ktp_lex.h are ktp_lex,
    ../trace_ktp.c and trace_ktp.h are trace_ktp."""
    return os.path.splitext(os.path.basename(name))[0]


def main():
    top = sys.argv[1]
    names = sys.argv[2:] or sorted(f for f in os.listdir(top)
                                   if re.match(r'(ktp_|trace_ktp)\w*\.[ch]$', f))
    units = {unit(n) for n in names}
    text = {n: open(os.path.join(top, n)).read() for n in names}
    edges = {u: set() for u in units}
    bad = 0
    for n, s in text.items():
        for inc in INCLUDE.findall(s):
            v = unit(os.path.basename(inc))
            if v in units and v != unit(n):
                edges[unit(n)].add(v)
        if n.endswith('.h'):
            defs = next((t for m, t in text.items()
                         if m.endswith('.c') and unit(m) == unit(n)), '')
            for fn in PROTO.findall(s):
                if not re.search(r'^[^\s#][^;]*\b' + fn + r'\(', defs, re.M):
                    print(f'{n}: declares {fn}(), which {unit(n)}.c does not define')
                    bad = 1
    # Tarjan's strongly connected components
    index, low, stack, on, sccs = {}, {}, [], set(), []

    def visit(u):
        index[u] = low[u] = len(index)
        stack.append(u)
        on.add(u)
        for v in sorted(edges[u]):
            if v not in index:
                visit(v)
                low[u] = min(low[u], low[v])
            elif v in on:
                low[u] = min(low[u], index[v])
        if low[u] == index[u]:
            comp = []
            while True:
                v = stack.pop()
                on.discard(v)
                comp.append(v)
                if v == u:
                    break
            sccs.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for u in sorted(units):
        if u not in index:
            visit(u)
    for u in sorted(units):
        print(f'{u}: {" ".join(sorted(edges[u])) or "-"}')
    cycles = [c for c in sccs if len(c) > 1]
    for c in cycles:
        print('cycle: ' + ' '.join(c))
    if not cycles:
        # sccs come out callees first: a bottom-up order
        print('no cycle; bottom up: ' + ' '.join(c[0] for c in sccs))
    return 1 if cycles or bad else 0


if __name__ == '__main__':
    sys.exit(main())
