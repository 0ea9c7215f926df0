#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The floor plan's checks on small trees written for each case.
tests/check-cycles.py: a clean tree passes; a planted circle of calls
(behind a shared header, through an inline function, through a table of
pointers), a call up a layer, an include cycle and an include up a layer
each fail, naming what they found; calls written in comments and strings,
a file's static function of another module's name, and a function made
static by a macro (#define STEP static inline) are no calls.
tests/check-length.py: a function of 81 lines, a file of 701 and a
folder of 6,001 fail, 80, 700 and 6,000 pass (two folders of 5,000 too:
a folder's own lines are counted). Run by make lint."""

import os
import subprocess
import sys
import tempfile

import tap

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, '..', 'check-cycles.py')
LENGTH = os.path.join(HERE, '..', 'check-length.py')

README = {
    'base': '# base: the bottom; may use nothing\n',
    'run': '# run: above base; may use base\n',
}

# Two modules of run/ and one of base/: a clean tree every case edits.
CLEAN = {
    'base/a.h': 'int a_get(void);\n',
    'base/a.c': '#include "a.h"\n\nint a_get(void)\n{\n\treturn 1;\n}\n',
    'run/api.h': 'int x_go(int n);\nint y_go(int n);\n',
    'run/x.c': ('#include "api.h"\n#include "a.h"\n\n'
                'static int helper(int n)\n{\n\treturn n + a_get();\n}\n\n'
                'int x_go(int n)\n{\n\treturn n ? y_go(n - 1) : helper(n);\n}\n'),
    'run/y.c': ('#include "api.h"\n\n'
                '/* y_go would call x_go( here, in a comment */\n'
                'int y_go(int n)\n{\n\tconst char *s = "x_go(n)";\n\n'
                '\treturn n + (s[0] == \'x\');\n}\n'),
}


def run(files):
    """check-cycles.py on a tree of README plus files: (status, output)."""
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, 'src')
        for folder, first in README.items():
            os.makedirs(os.path.join(src, folder))
            with open(os.path.join(src, folder, 'README.md'), 'w') as f:
                f.write(first)
        for path, text in files.items():
            with open(os.path.join(src, path), 'w') as f:
                f.write(text)
        p = subprocess.run([sys.executable, CHECK, src], capture_output=True, text=True)
        return p.returncode, p.stdout + p.stderr


def case(what, edits, status, *says):
    files = dict(CLEAN)
    files.update(edits)
    got, out = run(files)
    tap.ok(got == status and all(s in out for s in says),
           f'{what}: exit {status}' + (', says ' + ' | '.join(says) if says else ''), out)


case('clean tree (calls in comments and strings are none)', {}, 0,
     'no cycle of includes or calls')
case('circle of calls behind a shared header', {
    'run/y.c': '#include "api.h"\n\nint y_go(int n)\n{\n\treturn n ? x_go(n - 1) : 0;\n}\n',
}, 1, 'cycle among x, y', 'x -> y (calls x_go > y_go)', 'y -> x (calls y_go > x_go)')
case('circle through an inline function of a header', {
    'run/y.h': ('int y_go(int n);\n\nstatic inline int y_fast(int n)\n{\n'
                '\treturn x_go(n);\n}\n'),
    'run/x.c': ('#include "api.h"\n#include "y.h"\n\n'
                'int x_go(int n)\n{\n\treturn n ? y_fast(n - 1) : 0;\n}\n'),
}, 1, 'cycle among x, y', 'x -> y (includes y.h; calls x_go > y_fast)',
     'y -> x (calls y_fast > x_go)')
case('circle through a table of function pointers', {
    'run/y.c': ('#include "api.h"\n\nstatic int (*const tab[])(int) = { x_go };\n\n'
                'int y_go(int n)\n{\n\treturn n;\n}\n'),
}, 1, 'cycle among x, y', 'y -> x (calls (table) > x_go)')
case('a static function of another module\'s name is no call', {
    'run/y.c': ('#include "api.h"\n\nstatic int x_go(int n)\n{\n\treturn n;\n}\n\n'
                'int y_go(int n)\n{\n\treturn x_go(n);\n}\n'),
    'run/x.c': '#include "api.h"\n\nint x_go2(int n)\n{\n\treturn y_go(n);\n}\n',
}, 0)
case('a function made static by a macro is no other file\'s', {
    'run/y.c': ('#include "api.h"\n#define STEP static inline\n\n'
                'STEP int count(int n)\n{\n\treturn n;\n}\n\n'
                'int y_go(int n)\n{\n\treturn count(n);\n}\n'),
    'base/a.c': '#include "a.h"\n\nint a_get(void)\n{\n\tint count = 1;\n\n\treturn count;\n}\n',
}, 0)
case('a call up a layer (declared by hand, no include)', {
    'base/a.c': ('int x_go(int n);\n\nint a_get(void)\n{\n\treturn x_go(0);\n}\n'),
}, 1, 'base/a calls run/x (a_get > x_go): base/ may use nothing')
case('an include up a layer', {
    'base/a.c': '#include "a.h"\n#include "api.h"\n\nint a_get(void)\n{\n\treturn 1;\n}\n',
}, 1, 'includes run/api.h: base/ may use nothing')
case('an include cycle', {
    'run/x.h': '#include "y.h"\n',
    'run/y.h': '#include "x.h"\n',
}, 1, 'cycle among x, y', 'x -> y (includes y.h', 'y -> x (includes x.h)')
case('a folder without its README line', {'run/README.md': '# run\n'}, 1,
     'does not end in "may use ..."')



def judged(what, p, status, says):
    """check-length.py's run p: its exit status and what it said."""
    out = p.stdout + p.stderr
    tap.ok(p.returncode == status and all(s in out for s in says),
           f'check-length: {what}: exit {status}' + (', says ' + ' | '.join(says) if says else ''),
           out)


def length(what, text, status, *says):
    with tempfile.NamedTemporaryFile('w', suffix='.c') as f:
        f.write(text)
        f.flush()
        p = subprocess.run([sys.executable, LENGTH, f.name], capture_output=True, text=True)
    judged(what, p, status, says)


def function(name, lines):
    """A definition of name, lines long from its head to its brace."""
    return f'static int\n{name}(int n)\n{{\n' + '\tn++;\n' * (lines - 5) + '\treturn n;\n}\n'


length('a function of 80 lines', '/* a comment { */\n' + function('f', 80), 0)
length('a function of 81 lines', '\n' + function('f', 80) + '\n' + function('g', 81), 1,
       ':83: g() is 81 lines, over 80')
length('a file of 700 lines', '\n' * 700, 0)
length('a file of 701 lines', '\n' * 701, 1, '701 lines, over 700')


def folders(what, tree, status, *says):
    """check-length.py on a tree {folder: [lines of each file]} below src/."""
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for folder, files in tree.items():
            os.makedirs(os.path.join(d, 'src', folder))
            for i, lines in enumerate(files):
                paths.append(os.path.join(d, 'src', folder, f'm{i}.c'))
                with open(paths[-1], 'w') as f:
                    f.write('\n' * lines)
        p = subprocess.run([sys.executable, LENGTH] + paths, capture_output=True, text=True)
    judged(what, p, status, says)


folders('a folder of 6,000 lines', {'net': [600] * 10}, 0, 'no folder over 6000')
folders('a folder of 6,001 lines', {'net': [700] * 8 + [401]}, 1,
        '/src/net/: 6001 lines, over 6000')
folders('two folders of 5,000 lines', {'net': [500] * 10, 'print': [625] * 8}, 0,
        '2 folders')

sys.exit(tap.done())
