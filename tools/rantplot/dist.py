# SPDX-License-Identifier: GPL-2.0-or-later
"""rant-plot dist: one run's distribution, its histogram (log count)
and its percentiles on a nines axis, min/p50/p99/p99.9/max marked."""

import math

from .draw import (draw_histogram, draw_percentiles, fmt_us, new_figure,
    nines_axis, set_value_scale, us)
from .percentile import distribution
from .outfile import save


def plot_dist(run, opts, path, dump):
    d = distribution(run, opts.metric)
    fig, (ah, ap) = new_figure(opts, 1, 2, layout="constrained")
    draw_histogram(ah, d["histogram"])
    h = d["histogram"]
    top = h.get("overflow_ns") if h["kind"] == "linear" else None
    for name, v in d["marks_ns"].items():
        if name in ("p50", "p99", "p99.9") and (top is None or v <= top):
            ah.axvline(us(v), color="crimson", ls=":", lw=1)
            ah.text(us(v), 0.98, f" {name}", color="crimson", fontsize=8,
                    transform=ah.get_xaxis_transform(), va="top",
                    rotation=90)
    if top and h["start_ns"]:
        ah.set_xlim(us(h["start_ns"][0]), us(top))
    ah.set_xlabel(f"{d['label']} (µs)")
    ah.set_title("histogram (count on a log axis)")
    if d["histogram"]["kind"] == "linear" and d["histogram"].get("overflow"):
        h = d["histogram"]
        ah.text(0.98, 0.9, f"{h['overflow']} above {fmt_us(h['overflow_ns'])}"
                " (not in the buckets)", transform=ah.transAxes, ha="right",
                fontsize=9)
    draw_percentiles(ap, d)
    set_value_scale(ap, "y", min(d["curve"]["value_ns"]))
    nines_axis(ap, math.log10(2 * max(d.get("samples") or 10, 10)))
    ap.set_ylabel(f"{d['label']} (µs)")
    ap.set_title(f"percentiles (from {source_text(d['source'])})")
    if d["source"] == "histogram":
        ap.text(0.98, 0.03, "the JSON's linear histogram stops at "
                f"{fmt_us(d['histogram']['overflow_ns'])}:\nabove it only "
                "the reported percentiles\n(give --log, or a JSON with hdr "
                "buckets,\nfor the whole tail)", transform=ap.transAxes,
                va="bottom", ha="right", fontsize=8, color="dimgray")
    fig.suptitle(f"{run.label}: {d['label']}, {d['samples']} samples")
    dump.append({"kind": "dist", "file": path, **d})
    return save(fig, path, opts)


def source_text(src):
    return {"hdr": "the JSON's hdr buckets", "log": "every row of the log",
            "histogram": "the JSON's linear histogram"}[src]
