#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""No include cycle among rant's modules.

A module is a stem of src/ (run.c and run.h are "run"). X depends on Y
when X.c or X.h includes "Y.h". A cycle is a strongly connected set of
two or more modules (run.c calling report.h while report.h needs run.h
was one): each is printed, and the exit status is 1.
Usage: tests/check-cycles.py [SRCDIR]
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)\.h"', re.M)


def graph(src):
    deps = {}
    for name in sorted(os.listdir(src)):
        stem, ext = os.path.splitext(name)
        if ext not in ('.c', '.h'):
            continue
        with open(os.path.join(src, name), encoding='utf-8') as f:
            text = f.read()
        out = deps.setdefault(stem, set())
        for dep in INCLUDE.findall(text):
            if dep != stem and os.path.exists(os.path.join(src, dep + '.h')):
                out.add(dep)
    return deps


def cycles(deps):
    """Tarjan's strongly connected components of two or more modules."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(deps.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(deps):
        if v not in index:
            visit(v)
    return found


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else 'src'
    deps = graph(src)
    found = cycles(deps)
    for comp in found:
        edges = [f'{a} -> {b}' for a in comp for b in sorted(deps[a]) if b in comp]
        print('include cycle among ' + ', '.join(comp) + ': ' + '; '.join(edges))
    if not found:
        print(f'no include cycle among the {len(deps)} modules of {src}')
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())
