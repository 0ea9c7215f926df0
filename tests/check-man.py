#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The manual pages against rant's help: each subcommand's page
(rant-emit.8, ...) against rant SUB --help, rant.8 against rant --help.

usage: check-man.py [--rant PATH] [--man-dir DIR] [--help-text SUB=FILE ...]

A subcommand's page has the same options as its --help, with the same
letters and argument names, in the same groups and order, each entry with
its --help's range, default and needs. Every page's SYNOPSIS has each
usage line of its --help. rant.8, the overview, holds no option entry (an
option belongs in the page of each subcommand that takes it), names each
subcommand of rant --help in SUBCOMMANDS and its page in SEE ALSO. Each
page renders without a warning (groff -ww -man -z).

The help texts are the option table's (src/cfg/opttab.c) own rendering,
so no page can drift from the table unseen; --help-text reads one from
a file instead (SUB is rant for rant --help). A help text wrapped onto
lines of its own is read as one line. Each disagreement is one line naming
the page, the option and what differs; exit status 1 when there is one, 0
when none, 2 when an input cannot be read.
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


def compare(help_opts, man_entries, page="rant.8"):
    """The disagreements of a subcommand's --help options and its page's
    OPTIONS entries, each a line naming the option."""
    errs = []
    man = []
    for g, head, body in man_entries:
        m = MAN_HEAD.match(head)
        if not m:
            errs.append(f"{page}: under {g!r}, an entry whose head is not an option: {head!r}")
            continue
        man.append((g, m.group(1), m.group(2), m.group(3), body))
    hn = [h[2] for h in help_opts]
    mn = [m[2] for m in man]
    for name in hn:
        if name not in mn:
            errs.append(f"--{name}: in --help, not in {page}'s OPTIONS")
    for name in mn:
        if name not in hn:
            errs.append(f"--{name}: in {page}'s OPTIONS, not in --help")
    if [n for n in mn if n in hn] != [n for n in hn if n in mn] and not errs:
        errs.append(f"{page} lists the options in another order than --help: "
                    + " ".join(f"--{n}" for n in mn))
    mans = {m[2]: m for m in man}
    for group, short, name, arg, tail, who in help_opts:
        if name not in mans:
            continue
        mg, mshort, _, marg, body = mans[name]
        if mg != group:
            errs.append(f"--{name}: under {mg!r} in {page}, {group!r} in --help")
        if mshort != short:
            errs.append(f"--{name}: short option {mshort and '-' + mshort} in {page}, "
                        f"{short and '-' + short} in --help")
        if marg != arg:
            errs.append(f"--{name}: argument {marg} in {page}, {arg} in --help")
        if tail and f"({tail})" not in body:
            errs.append(f"--{name}: {page} does not say --help's ({tail})")
        mwho = WHO.search(body)
        mwho = mwho.group(1) if mwho else None
        if who and mwho != who:
            errs.append(f"--{name}: {page} does not mark it [{who}] as --help does")
        elif mwho and mwho != who:
            errs.append(f"--{name}: {page} marks it [{mwho}], --help does not")
    return errs


def parse_usage(text):
    """--help's usage lines ("usage: rant emit ..." and the lines under
    it), each without the comment two blanks after it."""
    out = []
    for line in text.splitlines():
        if line.startswith("usage: ") or (out and line.startswith("       rant ")):
            out.append(" ".join(re.split(r"  +", line[len("usage: "):].strip())[0].split()))
        elif out:
            break
    return out


def section(text, name):
    """The lines of a page's section .SH name, up to the next .SH."""
    out, on = [], False
    for ln in text.splitlines():
        if ln.startswith(".SH"):
            on = ln[3:].strip().strip('"') == name
        elif on:
            out.append(ln)
    return out


def parse_synopsis(text):
    """The SYNOPSIS's lines (ended by .br) as text, blanks between the
    words of macro lines as troff puts them."""
    out, cur = [], []
    for ln in section(text, "SYNOPSIS") + [".br"]:
        if ln.startswith(".br"):
            if cur:
                out.append(" ".join(" ".join(cur).split()))
            cur = []
        elif plain(ln).strip():
            cur.append(plain(ln).strip())
    return out


def check_synopsis(usage, man_text, page):
    syn = parse_synopsis(man_text)
    return [f"{page}: --help's usage line {u!r} is not in the SYNOPSIS" for u in usage
            if u not in syn]


SUBLINE = re.compile(r"^  ([a-z]+)  +\S")


def parse_subcommands(text):
    """The subcommands rant --help lists, in its order."""
    out, on = [], False
    for line in text.splitlines():
        if line == "Subcommands:":
            on = True
        elif on and not line.strip():
            break
        elif on and SUBLINE.match(line):
            out.append(SUBLINE.match(line).group(1))
    return out


def check_overview(subs, man_text, page, takers):
    """rant.8: no option entry, each subcommand in SUBCOMMANDS and its page
    in SEE ALSO."""
    errs = []
    opts = section(man_text, "OPTIONS")
    for i, ln in enumerate(opts[:-1]):
        m = MAN_HEAD.match(plain(opts[i + 1]).strip()) if ln.startswith(".TP") else None
        if m:
            where = ", ".join(f"rant-{s}.8" for s in takers.get(m.group(2), []))
            errs.append(f"--{m.group(2)}: an option entry in {page}'s OPTIONS; it belongs in "
                        f"{where or 'the page of each subcommand that takes it'}")
    heads = [plain(ln).strip() for ln in section(man_text, "SUBCOMMANDS")]
    see = " ".join(plain(ln) for ln in section(man_text, "SEE ALSO"))
    for s in subs:
        if s not in heads:
            errs.append(f"{page}: the subcommand {s} has no entry in SUBCOMMANDS")
        if f"rant-{s}(8)" not in see:
            errs.append(f"{page}: SEE ALSO does not name rant-{s}(8)")
    return errs


def groff_warnings(path, page):
    """groff's warnings (-ww) on the page, each a line; none when groff is
    missing (man-db needs it: make deps)."""
    try:
        r = subprocess.run(["groff", "-ww", "-man", "-z", path], capture_output=True, text=True)
    except OSError:
        return []
    return [f"{page}: groff warns: {ln}" for ln in (r.stdout + r.stderr).splitlines()]


def help_of(a, sub):
    """The help text of sub ("rant": rant --help), from --help-text or rant."""
    if sub in a.texts:
        with open(a.texts[sub]) as f:
            return f.read()
    argv = [a.rant, "--help"] if sub == "rant" else [a.rant, sub, "--help"]
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout


def check_all(a):
    """[(page, errors, options, groups)] of rant.8 and each subcommand's page."""
    overview = help_of(a, "rant")
    subs = parse_subcommands(overview)
    if not subs:
        raise ValueError("rant --help lists no subcommand")
    out, takers = [], {}
    for sub in subs:
        page = f"rant-{sub}.8"
        text = help_of(a, sub)
        opts = parse_help(text)
        for o in opts:
            takers.setdefault(o[2], []).append(sub)
        path = os.path.join(a.man_dir, page)
        if not os.path.exists(path):
            out.append((page, [f"{page}: missing: rant {sub} --help has no page"], 0, 0))
            continue
        with open(path) as f:
            man_text = f.read()
        if not opts:
            raise ValueError(f"no options found in rant {sub} --help")
        errs = compare(opts, parse_man(man_text), page)
        errs += check_synopsis(parse_usage(text), man_text, page)
        errs += groff_warnings(path, page)
        out.append((page, errs, len(opts), len({o[0] for o in opts})))
    path = os.path.join(a.man_dir, "rant.8")
    with open(path) as f:
        man_text = f.read()
    errs = check_overview(subs, man_text, "rant.8", takers)
    errs += check_synopsis(parse_usage(overview), man_text, "rant.8")
    errs += groff_warnings(path, "rant.8")
    return [("rant.8", errs, 0, 0)] + out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rant", default=os.path.join(TOP, "rant"),
                    help="the binary whose help to read (default: %(default)s)")
    ap.add_argument("--man-dir", default=TOP,
                    help="the folder of rant.8 and rant-SUB.8 (default: %(default)s)")
    ap.add_argument("--help-text", metavar="SUB=FILE", action="append", default=[],
                    help="read rant SUB --help's text (SUB rant: rant --help) from FILE")
    a = ap.parse_args()
    a.texts = dict(t.split("=", 1) for t in a.help_text)
    try:
        pages = check_all(a)
    except (OSError, ValueError, subprocess.CalledProcessError) as e:
        print(f"check-man: {e}", file=sys.stderr)
        return 2
    bad = False
    for page, errs, nopts, ngroups in pages:
        for e in errs:
            print(f"check-man: {e}", file=sys.stderr)
        bad = bad or bool(errs)
        if not errs and nopts:
            print(f"check-man: {page} and --help agree on {nopts} options in {ngroups} groups")
        elif not errs:
            print(f"check-man: {page} agrees with rant --help")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
