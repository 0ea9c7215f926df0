#!/usr/bin/env python3
"""Recompute a rant run's statistics from its full log and compare them
with its JSON summary (and its text summary), value by value.

Usage: logcheck.py [--text FILE] [--strict] LOG JSON [COLUMN METRIC]

With COLUMN METRIC, one latency column of the log (RTT or RESPONSE) is
checked against one JSON metric (rtt or response). Without, every metric
in the JSON is, each computed from the log's stamp columns as rant
computes it (so a run with -s checks all of its components); a metric the
log's columns cannot give is an error.

For each metric: samples, min, max and their seqs exactly; every
percentile against the exact nearest-rank value of the log's samples (rank
ceil(p/100*n)) by rant's documented precision (doc/measurements.md, src/stats/hist.h):
within 0.1% of it, and equal to it when it is below 2048 ns in magnitude;
the "hdr" buckets ascend, are no wider than 3 significant digits allow,
and each holds exactly the log's samples in [lo, hi].

--strict also requires each percentile to be exactly what src/stats/hist.h
promises: the top of the log-linear bucket of the exact value, clamped to
max. That value depends on the samples alone, not on -b or -o.

--text FILE also checks the text summary in FILE: every row of the metric
table (samples, min, the percentiles, max) and the "Histogram Summary"
percentiles, against the same log values by the same rule.

Exits 1 and says what differs.
"""
import argparse
import json
import sys
from decimal import ROUND_CEILING, Decimal

PCTS = ["50", "90", "95", "99", "99.9", "99.99", "99.999"]
EXACT_BELOW = 2048      # magnitudes with 1 ns buckets
SUB_HALF = 1024         # buckets per power of two above that

# metric -> (a, b, c, d): value = (a - b) - (c - d); wire points have no
# suffix here (the log says _HW or _KN). rtt and response come from their
# latency column where the log has one.
FORMULAS = {
    "rtt": ("T4", "T1", None, None),
    "response": ("T3", "T2", None, None),
    "network": ("T4", "T1", "T3", "T2"),
    "rtt_sw": ("T4_SW", "T1_SW", None, None),
    "emit_tx": ("T1", "T1_SW", None, None),
    "reflect_rx": ("T2_SW", "T2", None, None),
    "reflect_proc": ("T3_SW", "T2_SW", None, None),
    "reflect_tx": ("T3", "T3_SW", None, None),
    "emit_rx": ("T4_SW", "T4", None, None),
    "emit_queue": ("T1", "T1_SCHED", None, None),
    "reflect_queue": ("T3", "T3_SCHED", None, None),
    "owd_fwd": ("T2", "T1", None, None),
    "owd_back": ("T4", "T3", None, None),
}
LATENCY_COLUMN = {"rtt": "RTT", "response": "RESPONSE"}


def stamp_ns(text):
    """A log stamp "seconds.nanoseconds" in ns, exactly."""
    neg = text.startswith("-")
    sec, _, frac = text.lstrip("-").partition(".")
    v = int(sec) * 1000000000 + int(frac.ljust(9, "0"))
    return -v if neg else v


def read_log(path):
    with open(path) as f:
        names = f.readline().split()
        f.readline()
        rows = [line.split() for line in f]
    return names, rows


def column_of(names, point):
    """The log column of a point: T1_SW as is, a wire point T1 as T1_HW or T1_KN."""
    for c in (point, point + "_HW", point + "_KN"):
        if c in names:
            return names.index(c)
    return None


def metric_values(names, rows, metric, column=None):
    """[(value, seq)] of metric from the log, or None if its columns are absent.
    A LOST row (a ping without its pong in time) is in no metric: rant's
    statistics are of the pings answered, though the row may hold T1 and
    T1_SCHED, and T2/T3 from a follow-up."""
    seqcol = names.index("SEQ")
    if "LOST" in names:
        lostcol = names.index("LOST")
        rows = [r for r in rows if r[lostcol] != "LOST"]
    column = column or LATENCY_COLUMN.get(metric)
    if column and column in names:
        col = names.index(column)
        return [(int(r[col]), int(r[seqcol])) for r in rows if r[col] != "-"]
    if metric not in FORMULAS:
        return None
    pts = [p for p in FORMULAS[metric] if p]
    cols = [column_of(names, p) for p in pts]
    if None in cols:
        return None
    out = []
    for r in rows:
        f = [r[c] for c in cols]
        if "-" in f:
            continue
        s = [stamp_ns(x) for x in f]
        v = s[0] - s[1] - (s[2] - s[3] if len(s) == 4 else 0)
        out.append((v, int(r[seqcol])))
    return out


def hdr_bucket(v):
    """[lo, hi] of v's bucket in the log-linear scheme (src/stats/hist.h)."""
    m = v if v >= 0 else -v - 1
    w = 1 if m < EXACT_BELOW else 1 << (m.bit_length() - 1 - 10)
    lo = m // w * w
    hi = lo + w - 1
    return (lo, hi) if v >= 0 else (-hi - 1, -lo - 1)


def nearest_rank(sv, p):
    n = len(sv)
    rank = int((Decimal(p) * n / 100).to_integral_value(rounding=ROUND_CEILING))
    return sv[min(max(1, rank), n) - 1]


def precision_error(got, exact, strict, top):
    """None if got is a right report of exact, else why not."""
    if abs(exact) < EXACT_BELOW:
        if got != exact:
            return "not exact below %d ns" % EXACT_BELOW
    elif abs(got - exact) * 1000 > abs(exact):
        return "off by %.4f%% (> 0.1%%)" % (100.0 * (got - exact) / abs(exact))
    if strict:
        want = min(hdr_bucket(exact)[1], top)
        if got != want:
            return "not the bucket top clamped to max (%d)" % want
    return None


class Checker:
    def __init__(self, strict):
        self.strict = strict
        self.errors = []

    def fail(self, msg):
        self.errors.append(msg)

    def eq(self, what, got, want):
        if got != want:
            self.fail("%s: rant %s, log %s" % (what, got, want))

    def pct(self, what, got, sv, p):
        exact = nearest_rank(sv, p)
        why = precision_error(got, exact, self.strict, sv[-1])
        if why:
            self.fail("%s: rant %s, exact %s: %s" % (what, got, exact, why))

    def hdr(self, metric, hdr, sv):
        if hdr.get("significant_digits") != 3:
            self.fail("%s: hdr.significant_digits %s, not 3" % (metric, hdr.get("significant_digits")))
        j, total, prev_hi = 0, 0, None
        for lo, hi, count in hdr.get("buckets", []):
            if prev_hi is not None and lo <= prev_hi:
                self.fail("%s: hdr bucket [%d, %d] not above the one before" % (metric, lo, hi))
            prev_hi = hi
            if (lo, hi) != hdr_bucket(lo):
                self.fail("%s: hdr bucket [%d, %d] is not a bucket of the scheme %s"
                          % (metric, lo, hi, hdr_bucket(lo)))
            while j < len(sv) and sv[j] < lo:
                j += 1
            k = j
            while k < len(sv) and sv[k] <= hi:
                k += 1
            if count != k - j or count == 0:
                self.fail("%s: hdr bucket [%d, %d] counts %d, the log has %d"
                          % (metric, lo, hi, count, k - j))
            j = k
            total += count
        self.eq(metric + ": hdr counts' sum", total, len(sv))


def check_metric(ck, metric, m, vals):
    sv = sorted(v for v, _ in vals)
    n = len(sv)
    ck.eq(metric + ": samples", m["samples"], n)
    if not n:
        return None
    lo, hi = sv[0], sv[-1]
    ck.eq(metric + ": min", m["min"], lo)
    ck.eq(metric + ": max", m["max"], hi)
    if m["min_seq"] not in {s for v, s in vals if v == lo}:
        ck.fail("%s: min_seq %s is not a seq of the min %d" % (metric, m["min_seq"], lo))
    if m["max_seq"] not in {s for v, s in vals if v == hi}:
        ck.fail("%s: max_seq %s is not a seq of the max %d" % (metric, m["max_seq"], hi))
    for p in PCTS:
        ck.pct("%s: p%s" % (metric, p), m["percentiles"][p], sv, p)
    if "hdr" in m:
        ck.hdr(metric, m["hdr"], sv)
    else:
        ck.fail(metric + ": no hdr in the JSON")
    return sv


def us_ns(text):
    """ns from the text's microseconds with three decimals (exact)."""
    neg = text.startswith("-")
    whole, _, frac = text.lstrip("-").partition(".")
    ns = int(whole) * 1000 + int((frac + "000")[:3])
    return -ns if neg else ns


def read_text(path):
    """{metric: [samples, min, p50 .. p99.999, max]} and the summary's
    (metric, {pct: value}) from a text summary."""
    table, summary_metric, summary = {}, None, {}
    in_table = False
    with open(path) as f:
        for line in f:
            w = line.split()
            if w[:2] == ["us", "samples"]:
                in_table = True
                continue
            if in_table:
                if not w:
                    in_table = False
                    continue
                table[w[0]] = [int(w[1]), us_ns(w[2])] + [us_ns(x) for x in w[5:]]
                continue
            if line.startswith("Histogram Summary: "):
                summary_metric = w[2].rstrip(",")
            elif summary_metric and len(w) == 3 and w[0].startswith("p") and w[2] == "us":
                summary[w[0][1:]] = us_ns(w[1])
    return table, summary_metric, summary


def check_text(ck, path, sorted_vals, every_metric):
    table, smetric, summary = read_text(path)
    for metric, sv in sorted_vals.items():
        row = table.get(metric)
        if row is None:
            ck.fail("text: no row for %s" % metric)
            continue
        if len(row) != 3 + len(PCTS):
            ck.fail("text: row %s has %d numbers" % (metric, len(row)))
            continue
        ck.eq("text %s: samples" % metric, row[0], len(sv))
        if not sv:
            continue
        ck.eq("text %s: min" % metric, row[1], sv[0])
        ck.eq("text %s: max" % metric, row[-1], sv[-1])
        for p, got in zip(PCTS, row[2:-1]):
            ck.pct("text %s: p%s" % (metric, p), got, sv, p)
    if smetric not in sorted_vals:
        if every_metric:
            ck.fail("text: Histogram Summary of %s, which is not in the JSON" % smetric)
        return
    for p in PCTS:
        if p not in summary:
            ck.fail("text: Histogram Summary has no p%s" % p)
        elif sorted_vals[smetric]:
            ck.pct("text summary %s: p%s" % (smetric, p), summary[p], sorted_vals[smetric], p)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--text", help="the run's text summary, checked too")
    ap.add_argument("--strict", action="store_true",
                    help="percentiles must be the bucket top clamped to max")
    ap.add_argument("log")
    ap.add_argument("json")
    ap.add_argument("column", nargs="?")
    ap.add_argument("metric", nargs="?")
    a = ap.parse_args()
    if (a.column is None) != (a.metric is None):
        ap.error("give COLUMN and METRIC together, or neither")

    names, rows = read_log(a.log)
    with open(a.json) as f:
        summary = json.load(f)
    ck = Checker(a.strict)
    metrics = [a.metric] if a.metric else list(summary["metrics"])
    sorted_vals = {}
    for metric in metrics:
        m = summary["metrics"].get(metric)
        if m is None:
            ck.fail("%s: not in the JSON" % metric)
            continue
        vals = metric_values(names, rows, metric, a.column)
        if vals is None:
            ck.fail("%s: the log's columns (%s) cannot give it" % (metric, " ".join(names)))
            continue
        sv = check_metric(ck, metric, m, vals)
        sorted_vals[metric] = sv or []
        if sv:
            print("%s: %d rows, %d samples, min %d max %d p50 %d (exact %d) p99.9 %d (exact %d)" %
                  (metric, len(rows), len(sv), sv[0], sv[-1], m["percentiles"]["50"],
                   nearest_rank(sv, "50"), m["percentiles"]["99.9"], nearest_rank(sv, "99.9")))
    if "percentile_precision" not in summary:
        ck.fail("no percentile_precision in the JSON")
    if a.text:
        check_text(ck, a.text, sorted_vals, a.metric is None)
    for e in ck.errors:
        print("MISMATCH " + e)
    sys.exit(1 if ck.errors else 0)


if __name__ == "__main__":
    main()
