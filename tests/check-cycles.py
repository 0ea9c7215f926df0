#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The floor plan of src/ holds: folders by layer, no circle of includes
or calls between modules.

src/ holds one folder a layer. The first line of each folder's README.md
says what it holds and, after "may use", which folders below it its
files may include and call ("may use nothing" for the bottom one). A
module is a stem of a folder (src/run/run.c and src/run/run.h are
"run"); stems are unique across the folders. A function belongs to the
module whose .c defines it (not static), or whose .h defines it inline
(csrc.py reads the definitions: no compiler, no ctags). Two checks, each
violation printed:

- folders: a file includes a header of another folder, or calls (or
  takes the address of) a function of another folder, only when its
  folder's README names that folder (never up a layer, nor sideways
  between loops that sit side by side);
- cycles: X depends on Y when X.c or X.h includes "Y.h" or a function
  of X uses one of Y; a strongly connected set of two or more modules is
  a cycle, printed with its edges (the header, or the functions: caller
  > callee). A circle of calls hidden behind a shared header (X.h
  declares a function that Y.c defines) is a cycle too.

Exit status 1 on any violation. Usage: tests/check-cycles.py [SRCDIR]
"""
import os
import re
import sys

import csrc

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


def calls(texts):
    """{stem: {callee stem: {(caller, callee)}}}: the uses of other
    modules' functions (called or taken as a pointer) in each module's
    functions and tables; a caller "(table)" is a brace block at file level
    that is no function."""
    defs, parsed = {}, []
    for stem, files in texts.items():
        for path, text in files:
            blocks = csrc.blocks(csrc.strip(text), csrc.static_words(text))
            parsed.append((stem, blocks))
            for b in blocks:
                if b.name and (path.endswith('.h') or not b.static):
                    defs.setdefault(b.name, stem)
    uses = {}
    for stem, blocks in parsed:
        local = {b.name for b in blocks if b.name and b.static}
        out = uses.setdefault(stem, {})
        for b in blocks:
            for name in b.references():
                callee = defs.get(name)
                if callee and callee != stem and name not in local:
                    out.setdefault(callee, set()).add((b.name or '(table)', name))
    return uses


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


def upward_calls(layers, where, uses):
    """Calls into a folder the caller's README does not name."""
    bad = []
    for stem in sorted(uses):
        mine = where[stem]
        for callee in sorted(uses[stem]):
            theirs = where[callee]
            if theirs != mine and theirs not in layers[mine]:
                fns = ', '.join(f'{a} > {b}' for a, b in sorted(uses[stem][callee]))
                bad.append(f'{mine}/{stem} calls {theirs}/{callee} ({fns}): '
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


def edge(a, b, includes, uses):
    """How module a depends on b: its include, its calls."""
    how = []
    if b in includes.get(a, ()):
        how.append(f'includes {b}.h')
    if b in uses.get(a, {}):
        how.append('calls ' + ', '.join(f'{f} > {g}' for f, g in sorted(uses[a][b])))
    return f'{a} -> {b} ({"; ".join(how)})'


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else 'src'
    layers, bad = folders(src)
    where, texts, includes, dup = modules(src, layers)
    uses = calls(texts)
    bad += dup + upward(src, layers, where, texts) + upward_calls(layers, where, uses)
    deps = {m: set(includes.get(m, ())) | set(uses.get(m, ())) for m in where}
    for comp in cycles(deps):
        edges = [edge(a, b, includes, uses) for a in comp for b in sorted(deps[a]) if b in comp]
        bad.append('cycle among ' + ', '.join(comp) + ':\n  ' + '\n  '.join(edges))
    for line in bad:
        print(line)
    if not bad:
        ncalls = sum(len(v) for u in uses.values() for v in u.values())
        print(f'{len(where)} modules in {len(layers)} folders of {src}, {ncalls} calls '
              'between modules: none up a layer, no cycle of includes or calls')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
