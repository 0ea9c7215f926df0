#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/check-unused.py on small trees written for each case: a clean
tree passes (a function called from another file, one taken as a pointer
in a table, one called by a macro); a planted function no one calls
fails, and so do one called only by itself, one called only by a dead
one, one only a test calls that tests/unit/test-only.txt does not name,
and a name the list keeps that src/ calls now or that is gone. A
function named in a comment or a string, or declared in a header, is
not called. Run by make lint."""

import os
import subprocess
import sys
import tempfile

import tap

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, '..', 'check-unused.py')

CLEAN = {
    'src/base/a.h': ('int a_get(void);\nint a_cb(int n);\nint a_mac(void);\n'
                     '#define A_TWICE() (a_mac() * 2)\n'),
    'src/base/a.c': ('#include "a.h"\n\nint a_get(void)\n{\n\treturn 1;\n}\n\n'
                     'int a_cb(int n)\n{\n\treturn n;\n}\n\n'
                     'int a_mac(void)\n{\n\treturn 2;\n}\n'),
    'src/run/x.c': ('#include "a.h"\n\nstatic int (*const tab[])(int) = { a_cb };\n\n'
                    'int x_go(int n)\n{\n\t/* a_dead( in a comment */\n'
                    '\tconst char *s = "a_dead()";\n\n'
                    '\treturn n + a_get() + tab[0](n) + A_TWICE() + (s[0] == \'a\');\n}\n'),
    'main.c': 'int x_go(int n);\n\nint main(void)\n{\n\treturn x_go(0);\n}\n',
    'tests/test_a.c': '#include "a.h"\n\nint main(void)\n{\n\treturn a_get();\n}\n',
    'test-only.txt': '# none yet\n',
}


def run(files):
    with tempfile.TemporaryDirectory() as d:
        for path, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(d, path)), exist_ok=True)
            with open(os.path.join(d, path), 'w') as f:
                f.write(text)
        p = subprocess.run([sys.executable, CHECK, '--src', os.path.join(d, 'src'),
                            '--main', os.path.join(d, 'main.c'),
                            '--tests', os.path.join(d, 'tests'),
                            '--test-only', os.path.join(d, 'test-only.txt')],
                           capture_output=True, text=True)
        return p.returncode, p.stdout + p.stderr


def case(what, edits, status, *says):
    files = dict(CLEAN)
    files.update(edits)
    got, out = run(files)
    tap.ok(got == status and all(s in out for s in says),
           f'{what}: exit {status}' + (', says ' + ' | '.join(says) if says else ''), out)


DEAD = '\n\nint a_dead(int n)\n{\n\treturn n;\n}\n'
case('clean tree (a call, a table\'s pointer, a macro\'s call)', {}, 0,
     '4 functions of', 'each called')
case('a function no one calls (named in a comment, a string, a header)', {
    'src/base/a.c': CLEAN['src/base/a.c'] + DEAD,
    'src/base/a.h': CLEAN['src/base/a.h'] + 'int a_dead(int n);\n',
}, 1, 'a_dead() is called by no one')
case('a function only itself calls', {
    'src/base/a.c': CLEAN['src/base/a.c'] +
    '\n\nint a_dead(int n)\n{\n\treturn n ? a_dead(n - 1) : 0;\n}\n',
}, 1, 'a_dead() is called by no one')
case('a function only a dead one calls', {
    'src/base/a.c': CLEAN['src/base/a.c'] + DEAD +
    '\n\nint a_deader(int n)\n{\n\treturn a_dead(n);\n}\n',
}, 1, 'a_dead() is called by no one', 'a_deader() is called by no one')
case('a function only a test calls, not on the list', {
    'src/base/a.c': CLEAN['src/base/a.c'] + DEAD,
    'tests/test_a.c': '#include "a.h"\n\nint main(void)\n{\n\treturn a_dead(a_get());\n}\n',
}, 1, 'a_dead() is called only by', 'test-only.txt')
case('a function only a test calls, on the list', {
    'src/base/a.c': CLEAN['src/base/a.c'] + DEAD,
    'tests/test_a.c': '#include "a.h"\n\nint main(void)\n{\n\treturn a_dead(a_get());\n}\n',
    'test-only.txt': 'a_dead\t# test_a: what it reads\n',
}, 0, '1 by the tests alone')
case('a listed name src/ calls now', {
    'test-only.txt': 'a_get\t# test_a\n',
}, 1, 'test-only.txt:1: a_get is no test-only helper (src/ calls it now)')
case('a listed name that is gone', {
    'test-only.txt': '# a comment\na_gone\t# test_a\n',
}, 1, 'test-only.txt:2: a_gone is no test-only helper (no function of that name is left)')

sys.exit(tap.done())
