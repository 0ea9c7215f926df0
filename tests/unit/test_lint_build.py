#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""make lint's build with -Werror (lint-werror, the Makefile's LINT_SRCS
into LINT_DIR) on planted sources: a clean file builds; an unused
variable, a format that does not match its argument and a function
without a prototype each fail the build, naming the warning. Run by
make lint."""

import os
import subprocess
import tempfile

import tap

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')

CLEAN = '#include <stdio.h>\n\nvoid planted(void);\n\nvoid planted(void)\n{\n\tputs("x");\n}\n'


def build(what, text, status, *says):
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, 'planted.c')
        with open(src, 'w') as f:
            f.write(text)
        p = subprocess.run(['make', '-s', '-C', TOP, f'LINT_DIR={d}/out', f'LINT_SRCS={src}',
                            'lint-werror'], capture_output=True, text=True)
        out = p.stdout + p.stderr
        built = os.path.exists(os.path.join(d, 'out', 'planted.o'))
    got = 0 if p.returncode == 0 and built else 1
    tap.ok(got == status and all(s in out for s in says),
           f'{what}: ' + ('builds' if status == 0 else 'fails') +
           (', says ' + ' | '.join(says) if says else ''), out)


build('a clean file', CLEAN, 0, '1 objects, no compiler warning')
build('an unused variable', CLEAN.replace('\tputs', '\tint unused;\n\n\tputs'), 1,
      'planted.c', '-Werror=unused-variable')
build('a format that does not match', CLEAN.replace('puts("x")', 'printf("%s\\n", 1)'), 1,
      '-Werror=format=')
build('a function without a prototype', CLEAN.replace('void planted(void);\n\n', ''), 1,
      '-Werror=missing-prototypes')

raise SystemExit(tap.done())
