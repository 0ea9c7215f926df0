# SPDX-License-Identifier: GPL-2.0-or-later
"""Distributions from what a run kept: percentiles on a nines axis,
from the JSON's hdr buckets, the log's samples or the linear histogram;
log-spaced bins and their counts."""

import math

import numpy as np

from .runs import InputError


# Percentiles marked on the distribution plots: label -> JSON key.
MARKS = (("min", None), ("p50", "50"), ("p99", "99"), ("p99.9", "99.9"),
         ("max", None))


def nines(p):
    """Percentile (0..100) -> position on the nines axis."""
    return -math.log10(max(1e-12, 1.0 - p / 100.0))


def rank_value(sorted_vals, p):
    """rant's percentile: the sample of rank ceil(p/100 n)."""
    n = len(sorted_vals)
    r = min(n, max(1, math.ceil(p / 100.0 * n)))
    return sorted_vals[r - 1]


def hdr_buckets(stats):
    hdr = (stats or {}).get("hdr") or {}
    return [tuple(b) for b in hdr.get("buckets", [])]


def hdr_percentile(buckets, p):
    """Percentile from hdr buckets: the high end of the bucket of rank
    ceil(p/100 n)."""
    n = sum(c for _, _, c in buckets)
    r = min(n, max(1, math.ceil(p / 100.0 * n)))
    cum = 0
    for _, hi, c in buckets:
        cum += c
        if cum >= r:
            return hi
    return buckets[-1][1]


def marks_of(stats):
    """min, p50, p99, p99.9, max as rant reported them (ns)."""
    pct = stats.get("percentiles", {})
    out = {}
    for name, key in MARKS:
        v = stats.get(name) if key is None else pct.get(key)
        if v is not None:
            out[name] = v
    return out


def curve_from_hdr(buckets):
    """Percentile curve as steps: from the percentile where each bucket
    starts, the bucket's high end (rant's rank rule), to 1 - 1/n."""
    n = sum(c for _, _, c in buckets)
    cum, pts = 0, []
    for _, hi, c in buckets:
        pts.append((100.0 * cum / n, hi))
        cum += c
    pts.append((max(pts[-1][0], 100.0 * (1.0 - 1.0 / n)), buckets[-1][1]))
    return pts


def curve_from_samples(vals):
    """Percentile curve from every sample, on a grid of the nines axis,
    by rant's rank rule."""
    s = np.sort(vals)
    n = len(s)
    top = math.log10(n) if n > 1 else 0.0
    steps = max(1, int(top * 200))
    p = 100.0 * (1.0 - 10 ** (-top * np.arange(steps + 1) / steps))
    rank = np.clip(np.ceil(p / 100.0 * n), 1, n).astype(np.int64)
    # the last step, to the maximum (rank n), ends the curve
    return list(zip(p.tolist(), s[rank - 1].tolist())) + \
        [(100.0 * (1.0 - 0.5 / n), int(s[-1]))]


def curve_from_linear(doc, stats):
    """Percentile curve from the linear histogram up to its overflow bound,
    then only the percentiles rant reported (exact above it)."""
    hist = doc.get("histogram") or {}
    n = stats.get("samples") or 0
    width = hist.get("bucket_ns", 1000)
    cum = hist.get("underflow", 0)
    pts = [(0.0, stats.get("min", 0))]
    for start, count in hist.get("buckets", []):
        cum += count
        if cum >= n:
            break
        pts.append((100.0 * cum / n, start + width - 1))
    covered = pts[-1][0]
    for key, v in sorted(stats.get("percentiles", {}).items(),
                         key=lambda kv: float(kv[0])):
        if float(key) > covered:
            pts.append((float(key), v))
    if "max" in stats and n:
        pts.append((max(pts[-1][0], 100.0 * (1.0 - 1.0 / n)), stats["max"]))
    return pts


def log_bins(lo, hi, per_decade=20):
    lo = max(lo, 1.0)
    hi = max(hi, lo * 1.001)
    a, b = math.floor(math.log10(lo) * per_decade), \
        math.ceil(math.log10(hi) * per_decade) + 1
    return [10 ** (k / per_decade) for k in range(a, b + 1)]


def bin_counts(edges, values, weights=None):
    """Counts of values (each weighing its weight) in bins with the given
    edges; values outside go to the first or last bin."""
    v = np.clip(np.asarray(values, dtype=np.float64), edges[0], edges[-1])
    counts, _ = np.histogram(v, bins=edges, weights=weights)
    return [int(round(c)) for c in counts]


def distribution(run, name=None):
    """What the distribution plot of one metric of one run is built from."""
    stats = run.stats(name)
    if stats is None:
        raise InputError(f"{run.path}: no metric {name or run.metric!r} "
                         f"(it has {', '.join(run.doc.get('metrics', {}))})"
                         "; choose one with --metric")
    name = name or run.metric
    buckets = hdr_buckets(stats)
    if buckets:
        src, curve = "hdr", curve_from_hdr(buckets)
        pairs = ([(lo + hi) / 2.0 for lo, hi, _ in buckets],
                 [c for _, _, c in buckets])
    elif run.log and name == run.metric:
        src, curve = "log", curve_from_samples(run.log["value_ns"])
        pairs = (run.log["value_ns"], None)
    elif (run.doc.get("histogram") or {}).get("metric") == name:
        src, curve = "histogram", curve_from_linear(run.doc, stats)
        pairs = None
    else:
        raise InputError(f"{run.path}: metric {name!r} has neither hdr "
                         "buckets nor a linear histogram; give its log with "
                         "--log or plot the main metric")
    d = {"run": run.label, "metric": name, "source": src,
         "label": stats.get("label", name), "samples": stats.get("samples"),
         "marks_ns": marks_of(stats),
         "curve": {"percentile": [p for p, _ in curve],
                   "value_ns": [v for _, v in curve]}}
    d["histogram"] = dist_histogram(run.doc, stats, pairs)
    return d


def dist_histogram(doc, stats, pairs):
    """Histogram to draw: the JSON's linear buckets (empty ones filled in),
    or values binned on a log axis (on a linear one where some are <= 0)."""
    if pairs is None:
        hist = doc["histogram"]
        width = hist.get("bucket_ns", 1000)
        have = {b[0]: b[1] for b in hist.get("buckets", [])}
        first, last = (min(have), max(have)) if have else (0, 0)
        starts = list(range(first, last + width, width)) if have else []
        return {"kind": "linear", "bucket_ns": width, "start_ns": starts,
                "counts": [have.get(x, 0) for x in starts],
                "overflow_ns": hist.get("overflow_ns"),
                "overflow": hist.get("overflow", 0)}
    values, weights = pairs
    lo, hi = float(np.min(values)), float(np.max(values))
    if lo <= 0:
        width = max(1.0, (hi - lo) / 100.0)
        edges = [lo + k * width for k in range(102)]
        return {"kind": "linear", "bucket_ns": width, "start_ns": edges[:-1],
                "counts": bin_counts(edges, values, weights),
                "overflow_ns": None, "overflow": 0}
    edges = log_bins(lo, hi)
    return {"kind": "log", "edges_ns": edges,
            "counts": bin_counts(edges, values, weights)}
