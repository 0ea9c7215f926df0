#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""No function over 80 lines, no file over 700: each one longer printed
with its length (a function's lines: from its head's first to its closing
brace; csrc.py finds them). Exit status 1 when any is.

Usage: tests/check-length.py FILE...
"""
import sys

import csrc

MAX_FUNCTION = 80
MAX_FILE = 700


def main():
    bad = nfn = 0
    for path in sys.argv[1:]:
        with open(path, encoding='utf-8') as f:
            text = f.read()
        lines = text.count('\n')
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
    if not bad:
        print(f'{len(sys.argv) - 1} files, {nfn} functions: no file over {MAX_FILE} '
              f'lines, no function over {MAX_FUNCTION}')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
