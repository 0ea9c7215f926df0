#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The floor plan of src/ holds: folders by layer, no include cycle.

src/ holds one folder a layer. The first line of each folder's README.md
says what it holds and, after "may use", which folders below it its
files may include ("may use nothing" for the bottom one). A module is a
stem of a folder (src/run/run.c and src/run/run.h are "run"); stems are
unique across the folders. Two checks, each violation printed:

- folders: a file includes a header of another folder only when its
  folder's README names that folder (an include never goes up a layer,
  nor sideways between loops that sit side by side);
- cycles: X depends on Y when X.c or X.h includes "Y.h"; a strongly
  connected set of two or more modules is a cycle.

Exit status 1 on any violation. Usage: tests/check-cycles.py [SRCDIR]
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)\.h"', re.M)
MAY_USE = re.compile(r'\bmay use (.*?)\s*$')


def folders(src):
    """{folder: set of folders it may use} from each README's first line."""
    out, bad = {}, []
    for name in sorted(os.listdir(src)):
        path = os.path.join(src, name)
        if not os.path.isdir(path):
            continue
        readme = os.path.join(path, 'README.md')
        try:
            with open(readme, encoding='utf-8') as f:
                first = f.readline()
        except OSError:
            bad.append(f'{readme}: missing (its first line says what {name}/ holds and what it may use)')
            continue
        m = MAY_USE.search(first)
        if not m:
            bad.append(f'{readme}: the first line does not end in "may use ..."')
            continue
        words = m.group(1).replace(' and ', ', ').split(',')
        out[name] = {w.strip() for w in words if w.strip() and w.strip() != 'nothing'}
    for name, uses in out.items():
        for u in sorted(uses - set(out)):
            bad.append(f'{src}/{name}/README.md: may use "{u}", which is no folder of {src}')
    return out, bad


def modules(src, layers):
    """{stem: folder} and {stem: {included stems}}; duplicate stems reported."""
    where, texts, bad = {}, {}, []
    for folder in layers:
        for name in sorted(os.listdir(os.path.join(src, folder))):
            stem, ext = os.path.splitext(name)
            if ext not in ('.c', '.h'):
                continue
            if where.setdefault(stem, folder) != folder:
                bad.append(f'module {stem} is in {where[stem]}/ and {folder}/')
            with open(os.path.join(src, folder, name), encoding='utf-8') as f:
                texts.setdefault(stem, []).append((f'{folder}/{name}', f.read()))
    deps = {}
    for stem, files in texts.items():
        out = deps.setdefault(stem, set())
        for _, text in files:
            out.update(d for d in INCLUDE.findall(text) if d != stem and d in where)
    return where, texts, deps, bad


def upward(src, layers, where, texts):
    """Includes of a folder its README does not name."""
    bad = []
    for stem, files in sorted(texts.items()):
        mine = where[stem]
        for path, text in files:
            for dep in INCLUDE.findall(text):
                theirs = where.get(dep)
                if theirs and theirs != mine and theirs not in layers[mine]:
                    bad.append(f'{src}/{path} includes {theirs}/{dep}.h: '
                               f'{mine}/ may use {", ".join(sorted(layers[mine])) or "nothing"}')
    return bad


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
    layers, bad = folders(src)
    where, texts, deps, dup = modules(src, layers)
    bad += dup + upward(src, layers, where, texts)
    for comp in cycles(deps):
        edges = [f'{a} -> {b}' for a in comp for b in sorted(deps[a]) if b in comp]
        bad.append('include cycle among ' + ', '.join(comp) + ': ' + '; '.join(edges))
    for line in bad:
        print(line)
    if not bad:
        print(f'{len(deps)} modules in {len(layers)} folders of {src}: '
              'no include up a layer, no include cycle')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
