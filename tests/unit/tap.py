# SPDX-License-Identifier: GPL-2.0-or-later
"""TAP (version 13) for the Python tests of tests/unit, as tap.h is for the
C ones: ok() prints "ok N - what" (on failure, the diagnostic's last lines
as "# " lines on stderr), skip() records skipped tests, done() prints the
plan and returns the exit status. prove runs the tests as executables;
Python finds this module beside them."""

import sys

_run = 0
_failed = 0


def ok(cond, what, diag=""):
    global _run, _failed
    _run += 1
    print(f"{'ok' if cond else 'not ok'} {_run} - {what}")
    if not cond:
        _failed += 1
        for line in str(diag).splitlines()[-15:]:
            print(f"# {line}", file=sys.stderr)
    return cond


def skip(count, why):
    global _run
    for _ in range(count):
        _run += 1
        print(f"ok {_run} # skip {why}")


def done():
    print(f"1..{_run}")
    return 1 if _failed else 0
