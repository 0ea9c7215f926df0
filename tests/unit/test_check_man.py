#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/check-man.py (TAP, run by prove): rant.8 and ./rant help --all agree,
and each mismatch planted in a copy of either (an option dropped or
added, another argument name, letter, default, group, order, a missing
[emit]) fails with a line naming the option."""

import os
import re
import subprocess
import sys
import tempfile

from tap import done, ok, skip

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.join(HERE, "..", "..")
CHECK = os.path.join(TOP, "tests", "check-man.py")
RANT = os.path.join(TOP, "rant")
MAN = os.path.join(TOP, "rant.8")
PY = "/usr/bin/python3"


def check(man_text=None, help_text=None):
    with tempfile.TemporaryDirectory() as d:
        args = [PY, CHECK]
        if man_text is not None:
            p = os.path.join(d, "rant.8")
            with open(p, "w") as f:
                f.write(man_text)
            args += ["--man", p]
        if help_text is not None:
            p = os.path.join(d, "help.txt")
            with open(p, "w") as f:
                f.write(help_text)
            args += ["--help-text", p]
        r = subprocess.run(args, capture_output=True, text=True)
        return r.returncode, r.stdout + r.stderr


def planted(what, text, want, man=True):
    rc, out = check(man_text=text) if man else check(help_text=text)
    ok(rc == 1 and want in out, f"fails: {what}", f"exit {rc}, wanted {want!r}:\n{out}")


def sub(text, old, new, count=1):
    assert old in text, old
    return text.replace(old, new, count)


def main():
    if not os.access(RANT, os.X_OK):
        skip(1, "rant is not built (make)")
        return done()
    with open(MAN) as f:
        man = f.read()
    help_text = subprocess.run([RANT, "help", "--all"], capture_output=True, text=True).stdout
    rc, out = check()
    ok(rc == 0 and "agree on" in out, "rant.8 and --help agree", out)

    # an option gone from the page: its whole entry
    entry = re.search(r"\.TP\n\.B \\-\\-cork\n.*?(?=\.TP)", man, re.S).group(0)
    planted("an option missing from rant.8", man.replace(entry, ""),
            "--cork: in --help, not in rant.8's OPTIONS")
    planted("an option rant.8 has and --help not",
            sub(man, ".SS Other\n", ".SS Other\n.TP\n.B \\-\\-frobnicate\nFrobnicate.\n"),
            "--frobnicate: in rant.8's OPTIONS, not in --help")
    planted("another argument name", sub(man, '.BI \\-\\-port " N"', '.BI \\-\\-port " PORT"'),
            "--port: argument PORT in rant.8, N in --help")
    planted("another short letter",
            sub(man, '.BI \\-c ", " \\-\\-count " N"', '.BI \\-k ", " \\-\\-count " N"'),
            "--count: short option -k in rant.8, -c in --help")
    planted("another default", sub(man, "(1 to 65535; default 12345;", "(1 to 65535; default 12346;"),
            "--port: rant.8 does not say --help's (1 to 65535; default 12345;")
    planted("another range", sub(man, "(0.1 to 3600; default 10) [emit, probe]",
                                 "(0.1 to 600; default 10) [emit, probe]"),
            "--warmup-timeout: rant.8 does not say --help's (0.1 to 3600; default 10)")
    planted("[emit, probe] left out", sub(man, "(1 to 1000000; default 100000) [emit, probe]",
                                          "(1 to 1000000; default 100000)"),
            "--timeout: rant.8 does not mark it [emit, probe]")
    planted("a subcommand left out of the mark",
            sub(man, "(1 to 1000000; default 100000) [emit, probe]",
                "(1 to 1000000; default 100000) [emit]"),
            "--timeout: rant.8 does not mark it [emit, probe]")
    planted("a mark on an option every subcommand takes",
            sub(man, "in the source.\n.TP\n.BI \\-\\-pcap", "in the source. [emit]\n.TP\n.BI \\-\\-pcap"),
            "--json: rant.8 marks it [emit], --help does not")
    planted("an option under another group", sub(man, ".SS Clocks\n", ".SS Clocks\n", 1)
            .replace(".TP\n.B \\-\\-one\\-way\n", ".SS Other\n.TP\n.B \\-\\-one\\-way\n"),
            "--one-way: under 'Other' in rant.8, 'Clocks' in --help")
    nd = re.search(r"\.TP\n\.B \\-\\-nodelay\n.*?(?=\.TP)", man, re.S).group(0)
    qa = re.search(r"\.TP\n\.B \\-\\-quickack\n.*?(?=\.TP)", man, re.S).group(0)
    planted("two options swapped", man.replace(nd + qa, qa + nd),
            "rant.8 lists the options in another order than --help")
    # and the other way: --help changed, the page not
    planted("--help with another argument name",
            sub(help_text, "--trace-instance NAME", "--trace-instance INST"),
            "--trace-instance: argument NAME in rant.8, INST in --help", man=False)
    planted("--help with another default",
            sub(help_text, "(1024 to 67108864;\n                             default 524288; needs -l)",
                "(1024 to 67108864;\n                             default 1048576; needs -l)"),
            "--log-buffer: rant.8 does not say --help's (1024 to 67108864; default 1048576; needs -l)",
            man=False)
    return done()


if __name__ == "__main__":
    sys.exit(main())
