# SPDX-License-Identifier: GPL-2.0-or-later
"""rant-plot's modules (tools/rant-plot is the entry point): runs.py reads
rant's JSON and log, percentile.py the distributions from them, draw.py
what every picture shares, outfile.py every file written; one module a
picture kind: dist.py, overtime.py (time), parts.py, compare.py,
sweep.py, flow.py (flow, ports), fleet.py (fleet, paths), trace.py
(trace), page.py (html); cli.py the command line.

Every time on a plot is in microseconds (µs); rant's files hold ns.
"""
