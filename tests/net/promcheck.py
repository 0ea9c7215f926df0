#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Check a Prometheus exposition with prometheus_client's own parser.

Usage: promcheck.py FILE [NAME ...]
       promcheck.py --series FILE NAME
       promcheck.py --rising FILE FILE...
Parses FILE (text format 0.0.4); every histogram's buckets must be
cumulative in the order of their bounds, its +Inf bucket equal to its
_count, and each counter a number. Prints "NAME VALUE" for each NAME
asked (a sample's name with its labels as the text has them, e.g.
rant_packets_sent_total) and one line "histograms N counters M".
Exits 1 with what is wrong on stderr.

--series prints each sample of NAME, "label=value,... VALUE" (labels
sorted). --rising checks FILEs scraped in that order from one process:
no counter series (its name and labels) is lower in a later file than
in an earlier one (a series may come and go); prints how many pairs
of samples it compared.
"""
import math
import sys

from prometheus_client.parser import text_string_to_metric_families


def check(text):
    bad, values, nhist, ncount = [], {}, 0, 0
    for fam in text_string_to_metric_families(text):
        series = {}
        for s in fam.samples:
            rest = tuple(sorted((k, v) for k, v in s.labels.items() if k != 'le'))
            series.setdefault(rest, []).append(s)
            if not s.labels or fam.type == 'counter':
                values[s.name] = s.value
        if fam.type == 'counter':
            ncount += len(series)
        if fam.type != 'histogram':
            continue
        for labels, samples in series.items():
            nhist += 1
            buckets = sorted((float(s.labels['le']), s.value) for s in samples
                             if s.name.endswith('_bucket'))
            count = [s.value for s in samples if s.name.endswith('_count')]
            counts = [v for _, v in buckets]
            if counts != sorted(counts):
                bad.append('%s%s: buckets not cumulative: %s' % (fam.name, labels, counts))
            if not buckets or not math.isinf(buckets[-1][0]):
                bad.append('%s%s: no +Inf bucket' % (fam.name, labels))
            elif count != [buckets[-1][1]]:
                bad.append('%s%s: +Inf %s != _count %s' % (fam.name, labels,
                                                          buckets[-1][1], count))
    return bad, values, nhist, ncount


def samples(path):
    with open(path, encoding='utf-8') as f:
        for fam in text_string_to_metric_families(f.read()):
            for s in fam.samples:
                yield fam, s


def key(s):
    return ','.join('%s=%s' % kv for kv in sorted(s.labels.items()))


def series(path, name):
    for _, s in samples(path):
        if s.name == name:
            v = s.value
            print(key(s), int(v) if math.isfinite(v) and v == int(v) else repr(v))
    return 0


def rising(paths):
    last, bad, pairs = {}, [], 0
    for path in paths:
        for fam, s in samples(path):
            if fam.type != 'counter' and not s.name.endswith(('_bucket', '_count')):
                continue
            k = s.name + '{' + key(s) + '}'
            if k in last:
                pairs += 1
                if s.value < last[k][0]:
                    bad.append('%s went back: %s in %s, %s in %s' % (
                        k, last[k][0], last[k][1], s.value, path))
            last[k] = (s.value, path)
    print('compared', pairs)
    for b in bad:
        print(b, file=sys.stderr)
    return 1 if bad or not pairs else 0


def main():
    if sys.argv[1] == '--series':
        return series(sys.argv[2], sys.argv[3])
    if sys.argv[1] == '--rising':
        return rising(sys.argv[2:])
    with open(sys.argv[1], encoding='utf-8') as f:
        bad, values, nhist, ncount = check(f.read())
    for name in sys.argv[2:]:
        if name not in values:
            bad.append('no sample %s' % name)
        else:
            print(name, int(values[name]))
    print('histograms', nhist, 'counters', ncount)
    for b in bad:
        print(b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
