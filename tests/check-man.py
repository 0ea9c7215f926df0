#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""rant.8's OPTIONS against rant help --all: the same options, letters and
argument names, in the same groups and order, each entry with --help's
range, default and needs, and its mark of the subcommands that take it
([emit], [reflect, probe], ...; none when all do).

usage: check-man.py [--rant PATH | --help-text FILE] [--man FILE]

rant help --all is the option table's (src/cfg/opttab.c) own rendering of
every option, each subcommand's --help a part of it, so the manual page
cannot drift from the table unseen. A help text wrapped onto lines of its
own is read as one line. Each disagreement is one
line naming the option and what differs; exit status 1 when there is
one, 0 when none, 2 when an input cannot be read.
"""

import argparse
import os
import re
import subprocess
import sys

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))

# "  -p, --busy-poll-us US      help" or "      --block                help"
HELP_OPT = re.compile(r"^  (?:-(\w), |    )--([a-z0-9-]+)(?: (\S+))?  +(.*)$")
HELP_GROUP = re.compile(r"^(\S.*):$")
# the last "(...)" of a help line, when it is the table's tail
TAIL = re.compile(r"\(((?:-?[\d.]+ to -?[\d.]+(?:;|(?=\)))|default |needs )[^()]*)\)$")
SUBS = ("emit", "reflect", "probe", "read", "watch", "trace", "sockets")
WHO = re.compile(r" \[((?:%s)(?:, (?:%s))*)\]$" % ("|".join(SUBS), "|".join(SUBS)))
# a wrapped help text's next line: under the text, not an option's head
CONT = re.compile(r"^ {20,}\S")


def unwrap(text):
    """--help's lines with each wrapped help text joined onto its option's."""
    out = []
    for line in text.splitlines():
        if CONT.match(line) and out and HELP_OPT.match(out[-1]):
            out[-1] += " " + line.strip()
        else:
            out.append(line)
    return out


def parse_help(text):
    """[(group, short, long, arg, tail, who)] in --help's order."""
    out, group = [], None
    started = False
    for line in unwrap(text):
        m = HELP_GROUP.match(line)
        if m:
            group, started = m.group(1), True
            continue
        m = HELP_OPT.match(line)
        if not m or not started:
            continue
        short, name, arg, rest = m.groups()
        who = WHO.search(rest)
        if who:
            rest = rest[:who.start()]
        elif re.search(r" \[[a-z, ]+\]$", rest):
            # a mark with a word SUBS lacks would hide the tail from the check
            sys.exit(f"check-man: --{name}: its mark names a subcommand check-man does not know: {rest}")
        tail = TAIL.search(rest)
        out.append((group, short, name, arg, tail.group(1) if tail else None,
                    who.group(1) if who else None))
    return out


def troff_args(s):
    """The arguments of a macro line, quotes honoured."""
    args, cur, q, i = [], "", False, 0
    while i < len(s):
        c = s[i]
        if c == '"':
            q = not q
        elif c == " " and not q:
            if cur:
                args.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    if cur:
        args.append(cur)
    return args


ESCAPES = [(r"\-", "-"), (r"\(em", "-"), (r"\(en", "-"), (r"\(mu", "x"),
           (r"\(*m", "u"), (r"\(lq", '"'), (r"\(rq", '"'), (r"\(dq", '"'),
           (r"\(sc", "S"), (r"\e", "\\"), (r"\&", ""), (r"\ ", " "), (r"\|", "")]


def plain(s):
    """A line of troff as text: escapes resolved, fonts dropped, a macro
    line's arguments joined as the macro prints them."""
    if s.startswith(".\\\""):
        return ""
    if s.startswith("."):
        mac, _, rest = s.partition(" ")
        if mac in (".B", ".I", ".SM"):
            s = rest.strip('"')
        elif mac in (".BI", ".BR", ".IB", ".IR", ".RB", ".RI"):
            s = "".join(troff_args(rest))
        else:
            return ""
    s = re.sub(r"\\f[BIRP]|\\f\(..|\\s[-+]?\d", "", s)
    for a, b in ESCAPES:
        s = s.replace(a, b)
    return s


def parse_man(text):
    """[(group, head, body)] of rant.8's OPTIONS: each .TP entry under
    its .SS, head its first line as text, body the rest up to the next
    entry, subsection or section."""
    out, group, on, entry = [], None, False, None
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        ln = lines[i]
        if ln.startswith(".SH"):
            on = ln.split(None, 1)[1:] == ["OPTIONS"]
            group = None
        elif on and ln.startswith(".SS"):
            group = ln[4:].strip().strip('"')
            entry = None
        elif on and ln.startswith(".TP") and group:
            i += 1
            entry = [group, plain(lines[i]).strip(), []]
            out.append(entry)
        elif on and entry is not None and not ln.startswith(".PP"):
            entry[2].append(plain(ln))
        elif on and ln.startswith(".PP"):
            entry = None
        i += 1
    return [(g, h, " ".join(" ".join(b).split())) for g, h, b in out]


MAN_HEAD = re.compile(r"^(?:-(\w), )?--([a-z0-9-]+)(?: (\S+))?$")


def compare(help_opts, man_entries):
    errs = []
    man = []
    for g, head, body in man_entries:
        m = MAN_HEAD.match(head)
        if not m:
            errs.append(f"rant.8: under {g!r}, an entry whose head is not an option: {head!r}")
            continue
        man.append((g, m.group(1), m.group(2), m.group(3), body))
    hn = [h[2] for h in help_opts]
    mn = [m[2] for m in man]
    for name in hn:
        if name not in mn:
            errs.append(f"--{name}: in --help, not in rant.8's OPTIONS")
    for name in mn:
        if name not in hn:
            errs.append(f"--{name}: in rant.8's OPTIONS, not in --help")
    if [n for n in mn if n in hn] != [n for n in hn if n in mn] and not errs:
        errs.append("rant.8 lists the options in another order than --help: "
                    + " ".join(f"--{n}" for n in mn))
    mans = {m[2]: m for m in man}
    for group, short, name, arg, tail, who in help_opts:
        if name not in mans:
            continue
        mg, mshort, _, marg, body = mans[name]
        if mg != group:
            errs.append(f"--{name}: under {mg!r} in rant.8, {group!r} in --help")
        if mshort != short:
            errs.append(f"--{name}: short option {mshort and '-' + mshort} in rant.8, "
                        f"{short and '-' + short} in --help")
        if marg != arg:
            errs.append(f"--{name}: argument {marg} in rant.8, {arg} in --help")
        if tail and f"({tail})" not in body:
            errs.append(f"--{name}: rant.8 does not say --help's ({tail})")
        mwho = WHO.search(body)
        mwho = mwho.group(1) if mwho else None
        if who and mwho != who:
            errs.append(f"--{name}: rant.8 does not mark it [{who}] as --help does")
        elif mwho and mwho != who:
            errs.append(f"--{name}: rant.8 marks it [{mwho}], --help does not")
    return errs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rant", default=os.path.join(TOP, "rant"),
                    help="the binary whose help --all to read (default: %(default)s)")
    ap.add_argument("--help-text", metavar="FILE",
                    help="read help --all's text from FILE instead")
    ap.add_argument("--man", default=os.path.join(TOP, "rant.8"),
                    help="the manual page (default: %(default)s)")
    a = ap.parse_args()
    try:
        if a.help_text:
            with open(a.help_text) as f:
                help_text = f.read()
        else:
            help_text = subprocess.run([a.rant, "help", "--all"], capture_output=True,
                                       text=True, check=True).stdout
        with open(a.man) as f:
            man_text = f.read()
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"check-man: {e}", file=sys.stderr)
        return 2
    help_opts = parse_help(help_text)
    man_entries = parse_man(man_text)
    if not help_opts or not man_entries:
        print(f"check-man: no options found in {'--help' if not help_opts else a.man}",
              file=sys.stderr)
        return 2
    errs = compare(help_opts, man_entries)
    for e in errs:
        print(f"check-man: {e}", file=sys.stderr)
    if not errs:
        print(f"check-man: rant.8 and --help agree on {len(help_opts)} options in "
              f"{len({h[0] for h in help_opts})} groups")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
