#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""No function of src/ that no one calls.

A function defined non-static in a .c of src/ must be used (called, or
taken as a pointer: in a table, as a callback) somewhere else: in another
function of src/ or rant.c, a table, a header's inline function or a
macro's body. A use from inside its own definition (recursion) is none,
and neither is a use from a function that is itself unused: the check
runs until nothing more falls, so a dead function's only callee is
named too. Static functions are the compiler's (-Wunused-function, an
error in the lint build).

Test-only helpers: a function that only tests/unit calls (an accessor a
test reads a module's state by, a name for a code, a parser step a test
feeds) is kept when tests/unit/test-only.txt names it, one a line with
what the tests take it for after '#'. One the tests alone call that the
list does not name is reported, so that a helper that outlived its
callers in src/ does not hide behind its test; a name the list keeps
that src/ calls now, or that is gone, is reported too, so that the list
stays exact. Declarations, comments, strings and #include lines are no
uses (csrc.py reads the C as the floor-plan checks do).

Exit status 1 on any function reported. Usage:
tests/check-unused.py [--src DIR] [--main FILE] [--tests DIR]
[--test-only FILE] (defaults: src, rant.c, tests/unit,
tests/unit/test-only.txt)
"""
import argparse
import os
import re
import sys

import csrc

_IDENT = re.compile(r'[A-Za-z_]\w*')
_DEFINE = re.compile(r'^[ \t]*#[ \t]*define[ \t]+(\w+)((?:[^\n]*\\\n)*[^\n]*)', re.M)
_COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)


def read(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


def c_files(top):
    out = []
    for root, _, names in sorted(os.walk(top)):
        out += [os.path.join(root, n) for n in sorted(names) if n.endswith(('.c', '.h'))]
    return out


class Source:
    """One file: its blocks and where each identifier is used (line, the
    block it is in: a function's name, '' for a table or file level)."""

    def __init__(self, path):
        self.path = path
        self.text = read(path)
        stripped = csrc.strip(self.text)
        self.blocks = csrc.blocks(stripped, csrc.static_words(self.text))
        self.header = path.endswith('.h')
        self.uses = []          # (identifier, enclosing function or '')
        lines = {}
        for b in self.blocks:
            for ln in range(b.first, b.last + 1):
                lines[ln] = b
        for m in _IDENT.finditer(stripped):
            ln = stripped.count('\n', 0, m.start()) + 1
            b = lines.get(ln)
            if self.header and b is None:
                continue        # a declaration
            if b is not None and b.name == m.group(0) and ln == b.first:
                continue        # the definition's own head
            self.uses.append((m.group(0), b.name or '' if b else ''))
        for m in _DEFINE.finditer(_COMMENT.sub(' ', self.text)):
            self.uses += [(w, '') for w in _IDENT.findall(m.group(2))]

    def defined(self):
        """Functions this .c defines that are not static."""
        if self.header:
            return []
        return [b for b in self.blocks if b.name and not b.static]


def test_only_list(path):
    """{name: line number} of the list (see the module's doc)."""
    out = {}
    if not path or not os.path.exists(path):
        return out
    for i, line in enumerate(read(path).split('\n'), 1):
        name = line.split('#', 1)[0].strip()
        if name:
            out[name] = i
    return out


def check(src, main, tests, listed_path):
    sources = [Source(p) for p in c_files(src)]
    if main:
        sources.append(Source(main))
    test_sources = [Source(p) for p in c_files(tests)] if tests else []
    defs = {}
    for s in sources:
        for b in s.defined():
            if b.name != 'main':    # the program's root
                defs.setdefault(b.name, s.path)
    # who uses each function: the enclosing function's name, '' (file
    # level: always live); the tests' uses apart
    used_by, test_used = {}, set()
    for s in sources:
        for name, by in s.uses:
            if name in defs:
                used_by.setdefault(name, set()).add(by)
    for s in test_sources:
        for name, _ in s.uses:
            if name in defs:
                test_used.add(name)
    dead = set()
    while True:
        more = {f for f in defs if f not in dead and f not in test_used and
                not any(by == '' or (by != f and by not in dead)
                        for by in used_by.get(f, ()))}
        if not more:
            break
        dead |= more
    test_only = sorted(f for f in defs if f in test_used and
                       not any(by == '' or (by != f and by not in dead)
                               for by in used_by.get(f, ())))
    listed = test_only_list(listed_path)
    bad = [f'{defs[f]}: {f}() is called by no one: remove it' for f in sorted(dead)]
    for f in test_only:
        if f not in listed:
            bad.append(f'{defs[f]}: {f}() is called only by {tests}: remove it, or name it '
                       f'in {listed_path} with what the tests take it for')
    for f in sorted(set(listed) - set(test_only)):
        why = 'src/ calls it now' if f in defs else 'no function of that name is left'
        bad.append(f'{listed_path}:{listed[f]}: {f} is no test-only helper ({why}): '
                   'take it off the list')
    return defs, test_only, bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--src', default='src')
    ap.add_argument('--main', default='rant.c')
    ap.add_argument('--tests', default='tests/unit')
    ap.add_argument('--test-only', default='tests/unit/test-only.txt')
    a = ap.parse_args()
    defs, test_only, bad = check(a.src, a.main, a.tests, a.test_only)
    for line in bad:
        print(line)
    if not bad:
        print(f'{len(defs)} functions of {a.src}: each called, '
              f'{len(test_only)} by the tests alone (each in {a.test_only})')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
