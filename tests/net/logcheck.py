#!/usr/bin/env python3
"""Recompute a rant run's statistics from its full log and compare them
with its JSON summary, value by value.

Usage: logcheck.py LOG JSON COLUMN METRIC
COLUMN is a latency column of the log (RTT or RESPONSE), METRIC the JSON
metric it must match (rtt or response). Percentiles follow rant's
documented rule (rant(8), src/hist.h): nearest rank ceil(p/100*n); a value
in [0, overflow) reported as its bucket's highest value clamped to
[min, max]; outside it exactly. Exits 1 and says what differs.
"""
import json
import sys
from decimal import ROUND_CEILING, Decimal

PCTS = ["50", "90", "95", "99", "99.9", "99.99", "99.999"]


def main():
    log, js, column, metric = sys.argv[1:5]
    with open(log) as f:
        names = f.readline().split()
        f.readline()
        col = names.index(column)
        seqcol = names.index("SEQ")
        vals, rows = [], 0
        for line in f:
            fields = line.split()
            rows += 1
            if fields[col] != "-":
                vals.append((int(fields[col]), int(fields[seqcol])))
    with open(js) as f:
        summary = json.load(f)
    m = summary["metrics"][metric]
    h = summary["histogram"]
    b, ovf = h["bucket_ns"], h["overflow_ns"]
    errors = []

    def check(what, got, want):
        if got != want:
            errors.append("%s: JSON %s, log %s" % (what, got, want))

    n = len(vals)
    check("samples", m["samples"], n)
    sv = sorted(v for v, _ in vals)
    lo, hi = sv[0], sv[-1]
    check("min", m["min"], lo)
    check("max", m["max"], hi)
    check("min_seq", m["min_seq"], next(s for v, s in vals if v == lo))
    check("max_seq", m["max_seq"], next(s for v, s in vals if v == hi))
    for p in PCTS:
        rank = int((Decimal(p) * n / 100).to_integral_value(rounding=ROUND_CEILING))
        v = sv[min(max(1, rank), n) - 1]
        if 0 <= v < ovf:
            v = min(max((v // b + 1) * b - 1, lo), hi)
        check("p" + p, m["percentiles"][p], v)
    print("%s: %d rows, %d samples, min %d max %d p50 %d p99.9 %d" %
          (metric, rows, n, lo, hi, m["percentiles"]["50"], m["percentiles"]["99.9"]))
    for e in errors:
        print("MISMATCH " + e)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
