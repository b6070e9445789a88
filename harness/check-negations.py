#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Refuse a negated command ("! cmd") that asserts nothing in the selftests.

ftracetest sources each test case under set -e, and set -e does not apply
to a pipeline negated with "!": "! grep -q x f" alone on a line passes
whatever grep finds (sh -ec '! true; echo reached' prints reached). A
test asserts that a command fails with "if cmd; then exit_fail; fi".

This reads each .tc file under a test.d directory, each "functions" file
and each file a test sources from test.d (". $FTRACETEST_ROOT/test.d/..."),
parses it as POSIX shell and prints FILE:LINE and the line of every "!"
pipeline that is a statement whose status set -e ignores. A "!" is fine
  - in the condition of an if, elif, while or until, and in a pipeline
    of an && or || list other than the last (a condition);
  - as the last command of a test (its status is the test's result);
  - as the last command of a ( subshell ) that is itself a statement
    (a subshell that fails fails the test; a { group }, an if or a loop
    does not: POSIX set -e, rule 3);
and a "!" that is no command is no concern: in [ ... ] or test, in
quoted strings (awk programs), here-documents, comments and command
substitutions. A "!" last in a function body is refused: whether the
function's status is checked depends on each call.

Usage: check-negations.py [DIR|FILE...]
  DIR: a test.d directory (default: the project's
  tools/testing/selftests/ktp/test.d); FILE: one file, a test if it ends
  in .tc. Exit 1 if any negation asserts nothing, 2 on a parse error.
       check-negations.py --self-test
  Checks the checker on known good and bad snippets.
"""

import bisect
import re
import sys
from pathlib import Path


class ParseError(Exception):
    def __init__(self, pos, msg):
        super().__init__(msg)
        self.pos = pos


# ---------------------------------------------------------------- lexer

OPS = ('&&', '||', ';;', ';', '&', '|', '(', ')')
REDIRS = ('<<-', '<<', '>>', '<&', '>&', '<>', '>|', '<', '>')
META = ' \t\n;&|()<>'


class Tok:
    def __init__(self, kind, text, pos):
        self.kind = kind        # WORD, OP, REDIR, IONUM, NL, EOF
        self.text = text
        self.pos = pos

    def __repr__(self):
        return '%s(%r)' % (self.kind, self.text)


class Lexer:
    def __init__(self, src):
        self.s = src
        self.n = len(src)
        self.toks = []
        self.heredocs = []      # (delimiter, strip tabs) awaiting a newline

    def err(self, pos, msg):
        raise ParseError(pos, msg)

    def skip_sq(self, k):
        """k at a single quote: past the closing one"""
        e = self.s.find("'", k + 1)
        if e < 0:
            self.err(k, 'unterminated single quote')
        return e + 1

    def skip_backtick(self, k):
        k += 1
        while k < self.n and self.s[k] != '`':
            k += 2 if self.s[k] == '\\' else 1
        if k >= self.n:
            self.err(k, 'unterminated backquote')
        return k + 1

    def skip_dq(self, k):
        """k at a double quote: past the closing one"""
        start = k
        k += 1
        while k < self.n and self.s[k] != '"':
            c = self.s[k]
            if c == '\\':
                k += 2
            elif self.s.startswith('$(', k):
                k = self.skip_cmdsub(k)
            elif self.s.startswith('${', k):
                k = self.skip_brace(k, True)
            elif c == '`':
                k = self.skip_backtick(k)
            else:
                k += 1
        if k >= self.n:
            self.err(start, 'unterminated double quote')
        return k + 1

    def skip_brace(self, k, in_dq):
        """k at "${": past its "}" """
        start = k
        depth = 1
        k += 2
        while k < self.n:
            c = self.s[k]
            if c == '\\':
                k += 2
            elif c == "'" and not in_dq:
                k = self.skip_sq(k)
            elif c == '"':
                k = self.skip_dq(k)
            elif c == '`':
                k = self.skip_backtick(k)
            elif self.s.startswith('$(', k):
                k = self.skip_cmdsub(k)
            elif self.s.startswith('${', k):
                depth += 1
                k += 2
            elif c == '}':
                depth -= 1
                k += 1
                if depth == 0:
                    return k
            else:
                k += 1
        self.err(start, 'unterminated ${')

    def skip_cmdsub(self, k):
        """k at "$(" (or "$(("): past the matching ")" """
        start = k
        depth = 1
        k += 2
        while k < self.n:
            c = self.s[k]
            if c == '\\':
                k += 2
            elif c == "'":
                k = self.skip_sq(k)
            elif c == '"':
                k = self.skip_dq(k)
            elif c == '`':
                k = self.skip_backtick(k)
            elif c == '#' and self.s[k - 1] in ' \t\n(':
                e = self.s.find('\n', k)
                k = self.n if e < 0 else e
            elif c == '(':
                depth += 1
                k += 1
            elif c == ')':
                depth -= 1
                k += 1
                if depth == 0:
                    return k
            else:
                k += 1
        self.err(start, 'unterminated $(')

    def word(self, i):
        """a word starting at i: (raw text, end)"""
        k = i
        while k < self.n and self.s[k] not in META:
            c = self.s[k]
            if c == '\\':
                k += 2
            elif c == "'":
                k = self.skip_sq(k)
            elif c == '"':
                k = self.skip_dq(k)
            elif c == '`':
                k = self.skip_backtick(k)
            elif self.s.startswith('$(', k):
                k = self.skip_cmdsub(k)
            elif self.s.startswith('${', k):
                k = self.skip_brace(k, False)
            else:
                k += 1
        # a line continuation inside a word joins its two halves
        return self.s[i:k].replace('\\\n', ''), min(k, self.n)

    def heredoc_bodies(self, i):
        """i just past a newline: skip the pending here-documents"""
        for delim, strip in self.heredocs:
            while True:
                if i >= self.n:
                    self.err(i, 'here-document without its delimiter ' + delim)
                e = self.s.find('\n', i)
                e = self.n if e < 0 else e
                line = self.s[i:e]
                i = e + 1
                if (line.lstrip('\t') if strip else line) == delim:
                    break
        self.heredocs = []
        return i

    def run(self):
        s, i = self.s, 0
        want_delim = None       # after << or <<-: strip tabs?
        while i < self.n:
            c = s[i]
            if s.startswith('\\\n', i):
                i += 2
            elif c in ' \t':
                i += 1
            elif c == '\n':
                self.toks.append(Tok('NL', '\n', i))
                i = self.heredoc_bodies(i + 1) if self.heredocs else i + 1
            elif c == '#':
                e = s.find('\n', i)
                i = self.n if e < 0 else e
            else:
                op = next((o for o in REDIRS if s.startswith(o, i)), None)
                if op:
                    self.toks.append(Tok('REDIR', op, i))
                    if op in ('<<', '<<-'):
                        want_delim = op == '<<-'
                    i += len(op)
                    continue
                op = next((o for o in OPS if s.startswith(o, i)), None)
                if op:
                    self.toks.append(Tok('OP', op, i))
                    i += len(op)
                    continue
                text, e = self.word(i)
                if text.isdigit() and e < self.n and s[e] in '<>':
                    self.toks.append(Tok('IONUM', text, i))
                else:
                    self.toks.append(Tok('WORD', text, i))
                    if want_delim is not None:
                        delim = re.sub(r'[\'"\\]', '', text)
                        self.heredocs.append((delim, want_delim))
                        want_delim = None
                i = e
        if self.heredocs:
            self.err(self.n, 'here-document without its delimiter')
        self.toks.append(Tok('EOF', '', self.n))
        return self.toks


# ---------------------------------------------------------------- parser

class Node:
    def __init__(self, kind, **kw):
        self.kind = kind
        self.__dict__.update(kw)


LIST_END = ('then', 'else', 'elif', 'fi', 'do', 'done', 'esac', '}')


class Parser:
    def __init__(self, toks):
        self.t = toks
        self.i = 0

    def peek(self):
        return self.t[self.i]

    def take(self):
        tok = self.t[self.i]
        self.i += 1
        return tok

    def is_op(self, *ops):
        tok = self.peek()
        return tok.kind == 'OP' and tok.text in ops

    def is_rw(self, *words):
        """an unquoted reserved word, in command position"""
        tok = self.peek()
        return tok.kind == 'WORD' and tok.text in words

    def expect_rw(self, word):
        if not self.is_rw(word):
            raise ParseError(self.peek().pos, 'expected "%s"' % word)
        self.take()

    def expect_op(self, op):
        if not self.is_op(op):
            raise ParseError(self.peek().pos, 'expected "%s"' % op)
        self.take()

    def skip_nl(self):
        while self.peek().kind == 'NL':
            self.take()

    def program(self):
        body = self.list()
        if self.peek().kind != 'EOF':
            raise ParseError(self.peek().pos, 'unexpected ' + repr(self.peek().text))
        return body

    def list(self):
        items = []
        self.skip_nl()
        while not (self.peek().kind == 'EOF' or self.is_op(')', ';;') or
                   self.is_rw(*LIST_END)):
            ao = self.and_or()
            items.append(ao)
            if self.is_op(';', '&'):
                ao.background = self.take().text == '&'
                self.skip_nl()
            elif self.peek().kind == 'NL':
                self.skip_nl()
            else:
                break
        return Node('list', items=items)

    def and_or(self):
        pipes = [self.pipeline()]
        while self.is_op('&&', '||'):
            self.take()
            self.skip_nl()
            pipes.append(self.pipeline())
        return Node('and_or', pipes=pipes, background=False)

    def pipeline(self):
        neg, pos = False, None
        while self.is_rw('!'):
            pos = self.take().pos
            neg = not neg
        cmds = [self.command()]
        while self.is_op('|'):
            self.take()
            self.skip_nl()
            cmds.append(self.command())
        return Node('pipeline', negated=neg, pos=pos, cmds=cmds)

    def redirects(self):
        while self.peek().kind in ('REDIR', 'IONUM'):
            if self.take().kind == 'REDIR':
                if self.peek().kind != 'WORD':
                    raise ParseError(self.peek().pos, 'redirection without a word')
                self.take()

    def command(self):
        tok = self.peek()
        if self.is_op('('):
            self.take()
            body = self.list()
            self.expect_op(')')
            node = Node('subshell', body=body)
        elif self.is_rw('{'):
            self.take()
            body = self.list()
            self.expect_rw('}')
            node = Node('group', body=body)
        elif self.is_rw('if'):
            node = self.if_clause()
        elif self.is_rw('while', 'until'):
            self.take()
            cond = self.list()
            self.expect_rw('do')
            body = self.list()
            self.expect_rw('done')
            node = Node('loop', cond=cond, body=body)
        elif self.is_rw('for'):
            node = self.for_clause()
        elif self.is_rw('case'):
            node = self.case_clause()
        elif tok.kind == 'WORD' and self.t[self.i + 1].kind == 'OP' and \
                self.t[self.i + 1].text == '(':
            self.take()
            self.expect_op('(')
            self.expect_op(')')
            self.skip_nl()
            return Node('function', body=self.command())
        else:
            return self.simple()
        self.redirects()
        return node

    def simple(self):
        start = self.peek()
        words = 0
        while self.peek().kind in ('WORD', 'REDIR', 'IONUM'):
            if self.peek().kind == 'WORD':
                self.take()
                words += 1
            else:
                self.redirects()
        if not words and self.peek() is start:
            raise ParseError(start.pos, 'expected a command, not ' + repr(start.text))
        return Node('simple')

    def if_clause(self):
        self.take()
        conds, bodies = [self.list()], []
        self.expect_rw('then')
        bodies.append(self.list())
        while self.is_rw('elif'):
            self.take()
            conds.append(self.list())
            self.expect_rw('then')
            bodies.append(self.list())
        if self.is_rw('else'):
            self.take()
            bodies.append(self.list())
        self.expect_rw('fi')
        return Node('if', conds=conds, bodies=bodies)

    def for_clause(self):
        self.take()
        if self.peek().kind != 'WORD':
            raise ParseError(self.peek().pos, 'for without a name')
        self.take()
        self.skip_nl()
        if self.is_rw('in'):
            self.take()
            while self.peek().kind == 'WORD':
                self.take()
        if self.is_op(';'):
            self.take()
        self.skip_nl()
        self.expect_rw('do')
        body = self.list()
        self.expect_rw('done')
        return Node('for', body=body)

    def case_clause(self):
        self.take()
        if self.peek().kind != 'WORD':
            raise ParseError(self.peek().pos, 'case without a word')
        self.take()
        self.skip_nl()
        self.expect_rw('in')
        self.skip_nl()
        bodies = []
        while not self.is_rw('esac'):
            if self.is_op('('):
                self.take()
            if self.peek().kind != 'WORD':
                raise ParseError(self.peek().pos, 'case pattern expected')
            self.take()
            while self.is_op('|'):
                self.take()
                self.take()
            self.expect_op(')')
            bodies.append(self.list())
            if self.is_op(';;'):
                self.take()
                self.skip_nl()
            elif not self.is_rw('esac'):
                raise ParseError(self.peek().pos, 'expected ";;" or "esac"')
        self.take()
        return Node('case', bodies=bodies)


# ---------------------------------------------------------------- checks

def check_list(node, exempt, tail, found):
    """exempt: set -e is ignored here; tail: the status of the list's
    last command is checked (the test's result, or a subshell's)"""
    for k, ao in enumerate(node.items):
        last = k == len(node.items) - 1
        check_and_or(ao, exempt, tail and last and not ao.background, found)


def check_and_or(ao, exempt, tail, found):
    for k, p in enumerate(ao.pipes):
        last = k == len(ao.pipes) - 1
        # a pipeline before && or || is a condition
        p_exempt = exempt or not last
        if p.negated and not p_exempt and not tail:
            found.append(p.pos)
        # set -e is ignored within a negated pipeline
        inner = p_exempt or p.negated
        for j, c in enumerate(p.cmds):
            check_command(c, inner, j == len(p.cmds) - 1 and not ao.background,
                          found)


def check_command(c, exempt, status_used, found):
    if c.kind == 'subshell':
        check_list(c.body, exempt, status_used, found)
    elif c.kind == 'group':
        check_list(c.body, exempt, False, found)
    elif c.kind == 'if':
        for cond in c.conds:
            check_list(cond, True, False, found)
        for body in c.bodies:
            check_list(body, exempt, False, found)
    elif c.kind == 'loop':
        check_list(c.cond, True, False, found)
        check_list(c.body, exempt, False, found)
    elif c.kind == 'for':
        check_list(c.body, exempt, False, found)
    elif c.kind == 'case':
        for body in c.bodies:
            check_list(body, exempt, False, found)
    elif c.kind == 'function':
        # called as a statement, a function runs under set -e
        check_command(c.body, False, False, found)


def negations(src, is_test):
    """the 1-based lines of the negations that assert nothing"""
    nls = [m.start() for m in re.finditer('\n', src)]
    line = lambda pos: bisect.bisect_left(nls, pos) + 1
    try:
        tree = Parser(Lexer(src).run()).program()
    except ParseError as e:
        raise ParseError(line(e.pos), str(e)) from None
    found = []
    check_list(tree, False, is_test, found)
    return sorted(set(line(p) for p in found))


def sourced(tc, root):
    """the files under root a test sources"""
    pat = r'^\s*(?:\.|source)\s+"?\$\{?FTRACETEST_ROOT\}?/test\.d/([^\s"]+)"?\s*$'
    return [root / m for m in re.findall(pat, tc.read_text(), re.M)]


def files_of(root):
    tcs = sorted(root.rglob('*.tc'))
    more = set(root.rglob('functions'))
    for tc in tcs:
        more.update(sourced(tc, root))
    # upstream's helpers (test.d/functions links to the ftrace
    # selftests') are not ours to check
    more = sorted(p for p in more if not p.is_symlink())
    return [(p, True) for p in tcs] + [(p, False) for p in more]


def check_files(files):
    bad = 0
    for path, is_test in files:
        src = path.read_text()
        try:
            lines = negations(src, is_test)
        except ParseError as e:
            print('%s:%d: cannot parse: %s' % (path, e.pos, e))
            return 2
        text = src.split('\n')
        for n in lines:
            print('%s:%d: %s' % (path, n, text[n - 1].strip()))
            bad += 1
    if bad:
        print('check-negations: %d negated command%s nothing under '
              'set -e: write "if CMD; then exit_fail; fi"'
              % (bad, ' asserts' if bad == 1 else 's assert'))
        return 1
    print('check-negations: no negated command outside a condition in %d '
          'selftest files' % len(files))
    return 0


# ---------------------------------------------------------------- self-test

# (name, is a test, source, lines to be refused)
CASES = [
    ('bare negation', True, '! grep -q x f\necho done\n', [1]),
    ('last command of a test', True, 'echo x\n! grep -q x f\n', []),
    ('last command of a sourced file', False, 'echo x\n! grep -q x f\n', [2]),
    ('after &&', True, 'true && ! grep x f\necho\n', [1]),
    ('after ||', True, 'a ||\n\t! b\nc\n', [2]),
    ('before && or ||', True, '! a && b\n! a || exit_fail\nc\n', []),
    ('if condition', True,
     'if ! grep -q x f; then\n\texit_fail\nfi\nc\n', []),
    ('elif and while and until', True,
     'if a; then :; elif ! b; then :; fi\nwhile ! c; do :; done\n'
     'until ! d; do :; done\ne\n', []),
    ('condition over continued lines', True,
     'if [ 1 ] ||\n   ! echo "$l" | grep -q y; then\n\texit_fail\nfi\nz\n', []),
    ('negation continued on the next line', True,
     'x && \\\n\t! grep q f\ny\n', [2]),
    ('in an if body', True, 'if a; then\n\t! b\nfi\nc\n', [2]),
    ('in a loop body', True,
     'for f in a b; do\n\t! su nobody -c "cat $f"\ndone\nc\n', [2]),
    ('in a brace group', True, '{ ! a; }\nb\n', [1]),
    ('last in a subshell', True, '(! printf x >> f) 2> /dev/null\nb\n', []),
    ('in a subshell, not last', True, '( ! a; b )\nc\n', [1]),
    ('subshell in a condition', True, 'if ( ! a; b ); then :; fi\nc\n', []),
    ('last in a function', False, 'f() {\n\t! grep x "$1"\n}\n', [2]),
    ('function with a condition', False,
     'w() {\n\twhile ! grep -q " $1: " trace; do\n\t\tsleep 1\n\tdone\n}\n', []),
    ('test and [', True, '[ ! -f x ]\ntest ! -d y\nz\n', []),
    ('quoted and commented', True,
     "echo '! x'\necho \"! y\" # ! z\n# ! w\necho \\!\nv\n", []),
    ('awk program', True,
     "awk '\n!match($0, /x/) { next }\n{ if (!f(1)) bad = 1 }\n"
     "END { exit bad }' trace\necho\n", []),
    ('here-document', True,
     'cat <<EOF > f\n! grep x\nEOF\ncat <<-\'E\' |\n\t! y\n\tE\n\tsort\nz\n', []),
    ('command substitution', True,
     'x=$(! a; b)\ny="$(f ")" ! g)"\nz\n', []),
    ('case', True,
     'case "$e" in\n*"busy"*) ;;\n\'\' | *[!0-9]*)\n\t! a\n\t;;\nesac\nb\n',
     [4]),
    ('background', True, '! a &\nb\n', [1]),
    ('after a here-document', True, 'cat <<EOF\nx\nEOF\n! y\nz\n', [4]),
]


def self_test():
    bad = 0
    for name, is_test, src, want in CASES:
        try:
            got = negations(src, is_test)
        except ParseError as e:
            got = 'parse error at line %d: %s' % (e.pos, e)
        if got != want:
            print('self-test "%s": refused %s, expected %s' % (name, got, want))
            bad += 1
    if bad:
        return 1
    print('check-negations --self-test: %d cases' % len(CASES))
    return 0


def main(argv):
    if argv[1:] == ['--self-test']:
        return self_test()
    args = argv[1:] or [Path(__file__).resolve().parent.parent /
                        'tools/testing/selftests/ktp/test.d']
    files = []
    for a in map(Path, args):
        if a.is_dir():
            files += files_of(a)
        elif a.is_file():
            files.append((a, a.suffix == '.tc'))
        else:
            print('check-negations: no such file or directory: %s' % a)
            return 2
    return check_files(files)


if __name__ == '__main__':
    sys.exit(main(sys.argv))
