#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/check-man.py (TAP, run by prove): the pages (rant.8, rant-SUB.8)
and ./rant's help agree, and each mismatch planted in a copy of either
fails with a line naming the page and the option: an option dropped or
added, another argument name, letter, default (a subcommand's own too),
range, group, order, a mark; a usage line missing from a SYNOPSIS; an
option entry left in rant.8; a subcommand without its page or SEE ALSO;
a page that groff warns about."""

import os
import re
import shutil
import subprocess
import sys
import tempfile

from tap import done, ok, skip

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.join(HERE, "..", "..")
CHECK = os.path.join(TOP, "tests", "check-man.py")
RANT = os.path.join(TOP, "rant")
PY = "/usr/bin/python3"
PAGES = ["rant.8"] + [f"rant-{s}.8" for s in ("emit", "reflect", "probe", "read", "watch", "sockets", "trace")]


def read(name):
    with open(os.path.join(TOP, name)) as f:
        return f.read()


def check(pages=None, helps=None, drop=()):
    """check-man.py over copies of the pages, pages {name: text} replacing
    some, drop left out, helps {sub: text} read instead of rant's."""
    with tempfile.TemporaryDirectory() as d:
        for p in PAGES:
            if p not in drop:
                shutil.copy(os.path.join(TOP, p), d)
        for name, text in (pages or {}).items():
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        args = [PY, CHECK, "--rant", RANT, "--man-dir", d]
        for sub, text in (helps or {}).items():
            p = os.path.join(d, f"help-{sub}.txt")
            with open(p, "w") as f:
                f.write(text)
            args += ["--help-text", f"{sub}={p}"]
        r = subprocess.run(args, capture_output=True, text=True)
        return r.returncode, r.stdout + r.stderr


def planted(what, want, **kw):
    rc, out = check(**kw)
    ok(rc == 1 and want in out, f"fails: {what}", f"exit {rc}, wanted {want!r}:\n{out}")


def sub(text, old, new, count=1):
    assert old in text, old
    return text.replace(old, new, count)


def entry(man, name):
    return re.search(r"\.TP\n\.BR? [^\n]*\\-\\-%s\b[^\n]*\n.*?(?=\.TP|\.SS|\.SH)" % name.replace("-", r"\\-"),
                     man, re.S).group(0)


def main():
    if not os.access(RANT, os.X_OK):
        skip(1, "rant is not built (make)")
        return done()
    emit, probe, top = read("rant-emit.8"), read("rant-probe.8"), read("rant.8")
    rc, out = check()
    ok(rc == 0 and out.count("agree") == len(PAGES), "every page agrees with its --help", out)

    planted("an option missing from rant-emit.8",
            "--cork: in --help, not in rant-emit.8's OPTIONS",
            pages={"rant-emit.8": emit.replace(entry(emit, "cork"), "")})
    planted("an option rant-emit.8 has and --help not",
            "--frobnicate: in rant-emit.8's OPTIONS, not in --help",
            pages={"rant-emit.8": sub(emit, ".SS Other\n",
                                      ".SS Other\n.TP\n.B \\-\\-frobnicate\nFrobnicate.\n")})
    planted("another argument name", "--port: argument PORT in rant-emit.8, N in --help",
            pages={"rant-emit.8": sub(emit, '.BI \\-\\-port " N"', '.BI \\-\\-port " PORT"')})
    planted("another short letter", "--count: short option -k in rant-emit.8, -c in --help",
            pages={"rant-emit.8": sub(emit, '.BI \\-c ", " \\-\\-count " N"',
                                      '.BI \\-k ", " \\-\\-count " N"')})
    planted("another default", "--port: rant-emit.8 does not say --help's (1 to 65535; default 12345;",
            pages={"rant-emit.8": sub(emit, "(1 to 65535; default 12345;", "(1 to 65535; default 12346;")})
    planted("another range", "--warmup-timeout: rant-emit.8 does not say --help's (0.1 to 3600; default 10)",
            pages={"rant-emit.8": sub(emit, "(0.1 to 3600; default 10)", "(0.1 to 600; default 10)")})
    planted("the emitter's default in the probe's page",
            "--port: rant-probe.8 does not say --help's (1 to 65535; default 80)",
            pages={"rant-probe.8": sub(probe, "(1 to 65535; default 80)", "(1 to 65535; default 12345)")})
    planted("a mark on an option of a subcommand's page", "--json: rant-emit.8 marks it [emit]",
            pages={"rant-emit.8": sub(emit, "in the source.\n.TP\n.BI \\-\\-pcap",
                                      "in the source. [emit]\n.TP\n.BI \\-\\-pcap")})
    planted("an option under another group", "--one-way: under 'Other' in rant-emit.8, 'Clocks' in --help",
            pages={"rant-emit.8": sub(emit, ".TP\n.B \\-\\-one\\-way\n",
                                      ".SS Other\n.TP\n.B \\-\\-one\\-way\n")})
    nd, qa = entry(emit, "nodelay"), entry(emit, "quickack")
    planted("two options swapped", "rant-emit.8 lists the options in another order than --help",
            pages={"rant-emit.8": emit.replace(nd + qa, qa + nd)})

    # a SYNOPSIS without one of --help's usage lines
    syn = ".B rant probe request\n.B \\-i\n.I IFACE\n.IR ADDR : PORT\n"
    planted("a usage line missing from rant-probe.8's SYNOPSIS",
            "rant-probe.8: --help's usage line 'rant probe request -i IFACE ADDR:PORT "
            "--request FILE --response-bytes N' is not in the SYNOPSIS",
            pages={"rant-probe.8": sub(probe, syn, syn.replace("ADDR : PORT", "ADDR"))})
    planted("a usage line missing from rant.8's SYNOPSIS",
            "rant.8: --help's usage line 'rant help SUBCOMMAND' is not in the SYNOPSIS",
            pages={"rant.8": sub(top, ".B rant help\n.I SUBCOMMAND\n.br\n", "")})

    # the overview: no option entries, every subcommand with its page
    planted("an option entry left in rant.8",
            "--cork: an option entry in rant.8's OPTIONS; it belongs in rant-emit.8, rant-reflect.8",
            pages={"rant.8": sub(top, "work everywhere.\n",
                                 "work everywhere.\n.SS TCP\n" + entry(emit, "cork"))})
    planted("a subcommand's page missing", "rant-watch.8: missing", drop=("rant-watch.8",))
    planted("rant.8's SEE ALSO without a subcommand's page",
            "rant.8: SEE ALSO does not name rant-read(8)",
            pages={"rant.8": sub(top, ".BR rant\\-read (8),\n.BR rant\\-watch", ".BR rant\\-watch")})
    planted("rant.8's SUBCOMMANDS without a subcommand",
            "rant.8: the subcommand probe has no entry in SUBCOMMANDS",
            pages={"rant.8": sub(top, ".TP\n.B probe\n", ".TP\n.B probing\n")})
    planted("a page groff warns about", "rant-read.8: groff warns:",
            pages={"rant-read.8": sub(read("rant-read.8"), ".SH OPTIONS\n", ".SH OPTIONS\n.XYZZY\n")})

    # and the other way: --help changed, the page not
    help_emit = subprocess.run([RANT, "emit", "--help"], capture_output=True, text=True).stdout
    planted("--help with another argument name",
            "--trace-instance: argument NAME in rant-emit.8, INST in --help",
            helps={"emit": sub(help_emit, "--trace-instance NAME", "--trace-instance INST")})
    planted("--help with another default",
            "--log-buffer: rant-emit.8 does not say --help's (1024 to 67108864; default 1048576; needs -l)",
            helps={"emit": sub(help_emit, "(1024 to 67108864;\n                             default 524288; needs -l)",
                               "(1024 to 67108864;\n                             default 1048576; needs -l)")})
    planted("--help with a usage line the SYNOPSIS lacks",
            "rant-emit.8: --help's usage line 'rant emit -i IFACE --paths N ADDR [options]'",
            helps={"emit": sub(help_emit, "       rant emit -i IFACE --targets",
                               "       rant emit -i IFACE --paths N ADDR [options]\n"
                               "       rant emit -i IFACE --targets")})
    help_top = subprocess.run([RANT, "--help"], capture_output=True, text=True).stdout
    planted("rant --help with a subcommand no page has", "rant-tracer.8: missing",
            helps={"rant": sub(help_top, "Subcommands:\n",
                               "Subcommands:\n  tracer    a subcommand\n            rant tracer\n"),
                   "tracer": help_emit})
    return done()


if __name__ == "__main__":
    sys.exit(main())
