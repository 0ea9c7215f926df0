#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""No function over 80 lines, no file over 700, no folder over 6,000
(the lines of the files given that sit in it, as `cat src/net/*.[ch] |
wc -l` counts them): each one longer printed with its length (a
function's lines: from its head's first to its closing brace; csrc.py
finds them). Exit status 1 when any is.

Usage: tests/check-length.py FILE...
"""
import os
import sys

import csrc

MAX_FUNCTION = 80
MAX_FILE = 700
MAX_FOLDER = 6000


def folders(sizes):
    """The folders over MAX_FOLDER lines, from {path: lines}: each printed."""
    total = {}
    for path, lines in sizes.items():
        folder = os.path.dirname(path) or '.'
        total[folder] = total.get(folder, 0) + lines
    for folder, lines in sorted(total.items()):
        if lines > MAX_FOLDER:
            print(f'{folder}/: {lines} lines, over {MAX_FOLDER}: move whole modules of one '
                  'concern into a folder of their own (a layer of doc/layout.md)')
    return sum(lines > MAX_FOLDER for lines in total.values()), len(total)


def main():
    bad = nfn = 0
    sizes = {}
    for path in sys.argv[1:]:
        with open(path, encoding='utf-8') as f:
            text = f.read()
        lines = sizes[path] = text.count('\n')
        if lines > MAX_FILE:
            print(f'{path}: {lines} lines, over {MAX_FILE}: split the file by concern')
            bad += 1
        for b in csrc.blocks(csrc.strip(text)):
            if not b.name:
                continue
            nfn += 1
            if b.lines() > MAX_FUNCTION:
                print(f'{path}:{b.first}: {b.name}() is {b.lines()} lines, '
                      f'over {MAX_FUNCTION}: split it into steps')
                bad += 1
    nbig, nfolders = folders(sizes)
    bad += nbig
    if not bad:
        print(f'{nfolders} folders, {len(sys.argv) - 1} files, {nfn} functions: no folder '
              f'over {MAX_FOLDER} lines, no file over {MAX_FILE}, no function over '
              f'{MAX_FUNCTION}')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
