# SPDX-License-Identifier: GPL-2.0-or-later
"""rant-plot's command line: the subcommands, their options, the output
names, main()."""

import argparse
import json
import os
import sys

from .bloat import cmd_bloat, cmd_pings
from .compare import plot_compare_dist, plot_compare_time
from .dist import plot_dist
from .fleet import plot_fleet_heatmap, plot_fleet_paths
from .flow import plot_flow, plot_ports
from .outfile import fresh_path, make_folder, to_json, write_whole
from .overtime import plot_time
from .page import write_html
from .parts import component_names, plot_parts
from .runs import InputError, load_runs
from .sweep import plot_sweep, plot_sweep_overlay
from .trace import plot_trace


def out_path(opts, run_label, kind):
    ext = "svg" if opts.svg else "png"
    if opts.output:
        return opts.output
    name = f"{run_label.replace(os.sep, '-')}-{kind}.{ext}"
    make_folder(opts.out_dir)
    return os.path.join(opts.out_dir, name)


def cmd_single(fn, kind):
    def run_cmd(opts, dump):
        if len(opts.json) != 1 and opts.output:
            raise InputError(f"{kind}: -o names one file but {len(opts.json)}"
                             " runs were given; use --out-dir instead")
        return [fn(r, opts, out_path(opts, r.label, kind), dump)
                for r in load_runs(opts)]
    return run_cmd


def cmd_compare(opts, dump):
    runs = load_runs(opts)
    if len(runs) < 2:
        raise InputError("compare: give at least two JSON files")
    if opts.output:
        raise InputError("compare writes two files; use --out-dir, not -o")
    out = [plot_compare_dist(runs, opts, out_path(opts, "compare", "dist"),
                             dump)]
    if any(r.log or r.doc.get("series") for r in runs):
        out.append(plot_compare_time(runs, opts,
                                     out_path(opts, "compare", "time"), dump))
    else:
        print("rant-plot: compare: no over-time plot (no --log and no "
              "'series' in the JSONs)", file=sys.stderr)
    return out


def cmd_sweep(opts, dump):
    runs = load_runs(opts)
    path = out_path(opts, "sweep", "size")
    if not opts.output:
        path = fresh_path(path)
    if sum(1 for r in runs if r.doc.get("sizes")) >= 2:
        return [plot_sweep_overlay(runs, opts, path, dump)]
    return [plot_sweep(runs, opts, path, dump)]


def cmd_html(opts, dump):
    return [write_html(load_runs(opts), opts, opts.dir, dump)]


def cmd_all(opts, dump):
    """Every plot that the given runs allow, one file each."""
    if opts.output:
        raise InputError("all writes several files; use --out-dir, not -o")
    runs = load_runs(opts)
    out = []
    for r in runs:
        if not r.stats():
            print(f"rant-plot: {r.path}: no {r.metric} statistics (a sweep? "
                  "use rant-plot sweep)", file=sys.stderr)
            continue
        out.append(plot_dist(r, opts, out_path(opts, r.label, "dist"), dump))
        if r.log or r.doc.get("series"):
            out.append(plot_time(r, opts, out_path(opts, r.label, "time"),
                                 dump))
        if component_names(r):
            out.append(plot_parts(r, opts, out_path(opts, r.label, "parts"),
                                  dump))
    return out


def parse_size(text):
    try:
        w, h = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not WIDTHxHEIGHT in pixels, e.g. 1200x800") from None
    if not (200 <= w <= 8000 and 200 <= h <= 8000):
        raise argparse.ArgumentTypeError(
            f"{text}: each side must be 200 to 8000 pixels")
    return (w, h)


EPILOG = """\
inputs: the JSON summary of rant -j FILE, and where given the log of
rant -l FILE (--log, once per JSON, in the same order). Distributions come
from the JSON's hdr buckets when present, else from the log, else from the
JSON's linear histogram (whose tail above -o is then only the reported
percentiles). Times are drawn in µs.

examples:
  rant-plot dist emit.json                       emit-dist.png
  rant-plot time emit.json --log emit.log        emit-time.png
  rant-plot parts emit.json                      emit-parts.png (needs rant -s)
  rant-plot parts emit.json --violin             the same, with each shape
  rant-plot all emit.json --log emit.log -d out  every plot of one run
  rant-plot compare 3mb.json 30kb.json --log 3mb.log --log 30kb.log
  rant-plot sweep m72.json m1024.json m8972.json   (or one sweep JSON)
  rant-plot fleet fleet.json --log fleet.log     fleet-fleet.png (--targets)
  rant-plot paths fleet.json                     fleet-paths.png (--paths N)
  rant-plot html report/ a.json b.json           report/index.html
  rant-plot flow read.json                       read-flow.png (rant --read -j)
  rant-plot ports read.json                      read-ports.png
  rant-plot trace trace.json                     trace-trace.png (rant trace -j)
  rant-plot pings d1.json d2.json --log d1.log --log d2.log -o run.png
  rant-plot bloat out/study.json -d out          out/bloat-page.png

exit status: 0 written, 1 bad input or usage (one line on stderr)."""


def add_common(p, many=True):
    p.add_argument("json", nargs="+" if many else 1, metavar="RUN.json",
                   help="JSON summary written by rant -j")
    p.add_argument("--log", action="append", metavar="FILE",
                   help="transaction log of rant -l, once per JSON in order "
                        "('-' for a JSON without one)")
    p.add_argument("--label", action="append", metavar="TEXT",
                   help="name of a run in titles and legends, once per JSON "
                        "in order (default: the file name)")
    p.add_argument("--metric", metavar="NAME",
                   help="metric of the distribution plots (default: rtt "
                        "emitting, response reflecting)")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write the picture to FILE (one run, one plot)")
    p.add_argument("-d", "--out-dir", default=".", metavar="DIR",
                   help="folder for the pictures (default: .); files are "
                        "named RUN-KIND.png")
    p.add_argument("--svg", action="store_true", help="SVG instead of PNG")
    p.add_argument("--size", type=parse_size, default=(1200, 700),
                   metavar="WxH", help="picture size in pixels "
                                       "(default 1200x700)")
    p.add_argument("--violin", action="store_true",
                   help="parts: draw each component's shape (from its hdr "
                        "buckets) around its box")
    p.add_argument("--bins", type=int, default=60, metavar="N",
                   help="fleet: time bins of the heatmap (default 60)")
    p.add_argument("--flow", type=int, metavar="N",
                   help="flow: the Nth flow of the JSON (0: the worst)")
    p.add_argument("--dump-data", metavar="FILE",
                   help="also write the numbers each plot was drawn from "
                        "(JSON, ns) to FILE")


class Parser(argparse.ArgumentParser):
    """Usage errors in one line, exit 1 (as bad input)."""

    def error(self, message):
        print(f"{self.prog}: {message}; see {self.prog} --help",
              file=sys.stderr)
        sys.exit(1)


def build_parser():
    ap = Parser(
        prog="rant-plot", description="Pictures of rant's JSON summaries and "
        "logs: distributions, latency over time, where the time goes, "
        "comparisons, size sweeps, and one HTML page with all of them.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", metavar="COMMAND", required=True)
    kinds = (
        ("dist", cmd_single(plot_dist, "dist"), "histogram (log count) and "
         "percentiles on a nines axis, min/p50/p99/p99.9/max marked"),
        ("time", cmd_single(plot_time, "time"), "the main metric over time "
         "(per transaction from --log, or per interval from 'series'), "
         "breaches and lost pings marked, loss %% on a second axis"),
        ("parts", cmd_single(plot_parts, "parts"), "where the time goes: "
         "box plots of the -s components and a stacked bar per breach"),
        ("all", cmd_all, "dist, time and parts of each run, where its data "
         "allows"),
        ("compare", cmd_compare, "several runs on one distribution plot and "
         "one over-time plot"),
        ("fleet", cmd_single(plot_fleet_heatmap, "fleet"), "a fleet "
         "(rant --targets): targets by time, each cell its p99 (colour, log "
         "scale), the worst targets on top; needs the fleet's --log"),
        ("paths", cmd_single(plot_fleet_paths, "paths"), "a fleet over "
         "--paths: each path's p50 (dot) to p99 (tick) of its worst targets, the "
         "paths the diagnosis named in red, loss %% beside"),
        ("flow", cmd_single(plot_flow, "flow"), "rant --read/--watch: one "
         "flow's most held exchange, segment by segment each way with the "
         "ACKs and the stall marked (--flow N: the Nth of the JSON's flows, "
         "0 the worst; default the worst that was held)"),
        ("ports", cmd_single(plot_ports, "ports"), "rant --read/--watch: the "
         "distribution of exchange latency (--metric: another) per server "
         "port, each with what held it"),
        ("trace", cmd_single(plot_trace, "trace"), "rant trace: each "
         "path's RTT by hop (p50, min to max), and a heatmap of paths by "
         "hops coloured by the p50's increment; the delay step marked"),
        ("pings", cmd_pings, "destinations pinged over time, as the "
         "origin's Ping-exp drew them: each ping's round trip against time, "
         "a colour a destination (a JSON each, or a fleet's targets), its "
         "lost pings marked at the top; one picture of every run given "
         "(-o FILE)"),
        ("sweep", cmd_sweep, "p50 and p99 against payload size, with the "
         "fitted line (offset and ns per byte); two sweep runs or more "
         "overlaid on a log2 axis, a colour each (--label), cliffs and "
         "fragmentation marked; never over a file already there (-2, -3 "
         "...) unless -o names it"),
    )
    for name, fn, text in kinds:
        p = sub.add_parser(name, help=text,
                           description=text.replace("%%", "%"))
        add_common(p)
        p.set_defaults(fn=fn)
    sub.choices["pings"].add_argument("--title", metavar="TEXT",
                                      help="the picture's title")
    text = ("the bufferbloat study of tools/bufferbloat.sh on one page: a "
            "panel a run (the queues by rows, the loads by columns, one "
            "range of round trips), and each run's p50, p99 and loss side "
            "by side: DIR/bloat-page.png")
    p = sub.add_parser("bloat", help=text, description=text)
    p.add_argument("study", nargs=1, metavar="STUDY.json",
                   help="the study.json tools/bufferbloat.sh wrote")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write the page to FILE")
    p.add_argument("-d", "--out-dir", default=".", metavar="DIR",
                   help="folder for bloat-page.png (default: .)")
    p.add_argument("--svg", action="store_true", help="SVG instead of PNG")
    p.add_argument("--size", type=parse_size, default=(1400, 1000),
                   metavar="WxH", help="page size in pixels (default "
                                       "1400x1000)")
    p.add_argument("--title", metavar="TEXT", help="the page's title")
    p.add_argument("--dump-data", metavar="FILE",
                   help="also write the numbers the page was drawn from "
                        "(JSON, ns) to FILE")
    p.set_defaults(fn=cmd_bloat)
    p = sub.add_parser("html", help="one self-contained page (pictures "
                       "embedded) with every plot of the runs and their "
                       "summaries: DIR/index.html",
                       description="one self-contained HTML page")
    p.add_argument("dir", metavar="DIR", help="folder for index.html")
    add_common(p)
    p.set_defaults(fn=cmd_html)
    return ap


def main(argv=None):
    opts = build_parser().parse_args(argv)
    dump = []
    try:
        written = opts.fn(opts, dump)
    except InputError as e:
        print(f"rant-plot: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"rant-plot: {e.filename or ''}: {e.strerror}; check the path "
              "and its permissions", file=sys.stderr)
        return 1
    if opts.dump_data:
        write_whole(opts.dump_data, json.dumps({"plots": dump}, indent=1,
                                               default=to_json))
    for path in written:
        print(path)
    return 0
