# SPDX-License-Identifier: GPL-2.0-or-later
"""rant-plot compare: several runs on one distribution plot and one
over-time plot."""

import math

import numpy as np

from .draw import (draw_histogram, draw_percentiles, fmt_us, new_figure,
    nines_axis, plt_module, set_value_scale, us_or_nan)
from .percentile import distribution, rank_value
from .outfile import save
from .overtime import loss_bins, series_of, step_ends, time_origin
from .runs import InputError


def interval_lines(run, nbins=100):
    """p50 and p99 per time bin of one run: from series, else the log."""
    if run.doc.get("series"):
        s = series_of(run)
        return {"source": "series", "t_s": [x["t_s"] for x in s],
                "end_s": s[-1]["end_s"] if s else None,
                "p50_ns": [x["p50"] for x in s],
                "p99_ns": [x["p99"] for x in s],
                "loss_pct": [x["loss_pct"] for x in s]}
    if not run.log:
        return None
    loss = loss_bins(run, nbins)
    edges = loss["edges_s"]
    ts = run.log["t_s"] - time_origin(run)
    idx = np.clip(np.searchsorted(edges, ts, side="right") - 1, 0, nbins - 1)
    order = np.argsort(idx, kind="stable")
    vals, idx = run.log["value_ns"][order], idx[order]
    out = {"source": "log", "t_s": [], "p50_ns": [], "p99_ns": [],
           "loss_pct": [], "end_s": edges[-1]}
    for k in range(nbins):
        lo, hi = np.searchsorted(idx, k), np.searchsorted(idx, k, "right")
        v = np.sort(vals[lo:hi])
        out["t_s"].append(edges[k])
        # an interval without a pong has no p50 (a gap in the line)
        out["p50_ns"].append(int(rank_value(v, 50)) if len(v) else None)
        out["p99_ns"].append(int(rank_value(v, 99)) if len(v) else None)
        out["loss_pct"].append(loss["loss_pct"][k])
    return out


def plot_compare_dist(runs, opts, path, dump):
    fig, (ah, ap) = new_figure(opts, 1, 2, layout="constrained")
    cmap = plt_module().get_cmap("tab10")
    entries, lo, top = [], None, 1.0
    for i, run in enumerate(runs):
        d = distribution(run, opts.metric)
        draw_histogram(ah, d["histogram"], color=cmap(i), label=run.label,
                       step=True)
        m = d["marks_ns"]
        draw_percentiles(ap, d, color=cmap(i), annotate=False,
                         label=f"{run.label}: p50 {fmt_us(m['p50'])}, "
                               f"p99 {fmt_us(m['p99'])}, "
                               f"max {fmt_us(m['max'])}")
        lo = min(min(d["curve"]["value_ns"]), lo if lo is not None else 1e30)
        top = max(top, math.log10(2 * max(d.get("samples") or 10, 10)))
        entries.append(d)
    what = entries[0]["label"] if len({e["metric"] for e in entries}) == 1 \
        else "each run's main metric"
    ah.set_xlabel(f"{what} (µs)")
    ah.set_title("histograms (count on a log axis)")
    ah.legend(fontsize=8)
    set_value_scale(ap, "y", lo)
    nines_axis(ap, top)
    ap.set_ylabel(f"{what} (µs)")
    ap.set_title("percentiles")
    ap.legend(fontsize=8, loc="upper left")
    fig.suptitle("compare: " + ", ".join(r.label for r in runs))
    dump.append({"kind": "compare-dist", "file": path, "runs": entries})
    return save(fig, path, opts)


def plot_compare_time(runs, opts, path, dump):
    lines = [(r, interval_lines(r)) for r in runs]
    lines = [(r, ln) for r, ln in lines if ln]
    if not lines:
        raise InputError("compare: no run has time data; give each run's "
                         "log with --log (in the order of the JSON files) "
                         "or JSONs with 'series'")
    fig, ax = new_figure(opts, layout="constrained")
    ax2 = ax.twinx()
    cmap = plt_module().get_cmap("tab10")
    for i, (run, ln) in enumerate(lines):
        c = cmap(i)
        end = ln.get("end_s")
        ax.plot(*step_ends(ln["t_s"], us_or_nan(ln["p50_ns"]), end), "-",
                color=c, label=f"{run.label} p50", drawstyle="steps-post")
        ax.plot(*step_ends(ln["t_s"], us_or_nan(ln["p99_ns"]), end), "--",
                color=c, label=f"{run.label} p99", drawstyle="steps-post")
        ax2.plot(*step_ends(ln["t_s"], ln["loss_pct"], end), ":", color=c,
                 lw=1, label=f"{run.label} loss %", drawstyle="steps-post")
    ax.set_yscale("log")
    ax.set_xlabel("time since the start of each run (s)")
    ax.set_ylabel("µs")
    ax2.set_ylabel("loss % (dotted)")
    ax2.set_ylim(0, max([5.0] + [max(ln["loss_pct"] or [0]) * 1.15
                                 for _, ln in lines]))
    ax2.grid(False)
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, fontsize=8, loc="upper right")
    fig.suptitle("compare over time: p50 and p99 per interval, loss %")
    dump.append({"kind": "compare-time", "file": path,
                 "runs": [{"run": r.label, **ln} for r, ln in lines]})
    return save(fig, path, opts)
