#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Tests of tools/rant-plot: every plot kind from small fixtures written
here (hdr buckets, series, a log with LOST rows, sweeps, compare) and from
a real run over veth (run_pair.sh, root). Each checks that the picture is
a PNG of the requested size and that the numbers rant-plot drew
(--dump-data) equal those in rant's files; that every file is written
whole and never through a link another user planted in a shared folder
(root). Ends with the plain line
'plot: N passed, N failed, N skipped'."""

import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PLOT = os.path.join(TOP, "tools", "rant-plot")
PYTHON = "/usr/bin/python3"
SIZE = (900, 600)


def png_size(path):
    """(width, height) of a PNG, or AssertionError if it is not one."""
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG"
    assert head[12:16] == b"IHDR", f"{path}: no IHDR chunk first"
    return struct.unpack(">II", head[16:24])


def stats(samples, mn, pct, mx, label="Round trip (T4 - T1)", hdr=None):
    keys = ("50", "90", "95", "99", "99.9", "99.99", "99.999")
    s = {"samples": samples, "min": mn, "min_seq": 1, "max": mx,
         "max_seq": 2, "avg": (mn + mx) / 2, "stddev": 1.0,
         "percentiles": dict(zip(keys, pct)), "label": label,
         "exact_above_overflow": True}
    if hdr is not None:
        s["hdr"] = {"significant_digits": 3, "buckets": hdr}
    return s


# hdr buckets of 1000 samples: 900 at 10 us, 90 at 20 us, 9 at 50 us, 1 at 5 ms
HDR = [[9990, 10009, 900], [19980, 20019, 90], [49950, 50049, 9],
       [4997120, 5001215, 1]]
HDR_PCT = (10009, 10009, 20019, 20019, 50049, 5001215, 5001215)
# a component with negative values (clocks of two hosts): -2 us .. 3 us
HDR_NEG = [[-2001, -1998, 100], [-1000, -999, 400], [999, 1000, 400],
           [2997, 3000, 100]]


def run_doc(**over):
    """A JSON as rant -j writes it, emitter, with the given fields."""
    doc = {
        "rant_version": "test", "mode": "emit", "interface": "veth0",
        "timestamp_source": "kernel", "start_ns": 1700000000000000000,
        "end_ns": 1700000002000000000, "stop_reason": "duration",
        "config": {"size": 72, "threshold_ns": 40000, "bucket_ns": 1000,
                   "overflow_ns": 100000},
        "counts": {"sent": 1000, "received": 1000, "lost": 0, "late": 0,
                   "breaches": 1},
        "metrics": {"rtt": stats(1000, 9990, HDR_PCT, 5001215, hdr=HDR)},
        "histogram": {"metric": "rtt", "bucket_ns": 1000,
                      "overflow_ns": 100000,
                      "buckets": [[9000, 900], [19000, 90], [49000, 9]],
                      "overflow": 1, "underflow": 0},
        "breaches": [], "clock": {}}
    doc.update(over)
    return doc


def with_components(doc):
    m = doc["metrics"]
    m["emit_tx"] = stats(1000, 500, (900, 1000, 1100, 1500, 3000, 4000,
                                     4000), 4000, "App-to-NIC TX, emitter")
    m["network"] = stats(1000, -2001, (-999, 1000, 1000, 3000, 3000, 3000,
                                       3000), 3000, "Network", hdr=HDR_NEG)
    m["reflect_rx"] = stats(1000, 2000, (3000, 3000, 3000, 9000, 9000,
                                         9000, 9000), 9000, "NIC-to-App RX",
                            hdr=[[1998, 2001, 600], [2997, 3000, 390],
                                 [8991, 9000, 10]])
    comps = {"emit_tx": 1000, "reflect_rx": 4990000, "reflect_proc": 200,
             "reflect_tx": 3000, "emit_rx": 5000, "network": 2015,
             "response": 4993200, "rtt": 4995215, "rtt_sw": 5001215}
    doc["breaches"] = [{"seq": 500, "latency": 5001215, "threshold": 40000,
                        "stamps": {"T1_SW": 1700000001000000000,
                                   "T1_KN": 1700000001000001000},
                        "components": comps, "largest": "reflect_rx"}]
    # a breach whose T3 stamp was missing: no reflect_tx, no network
    part = {k: v for k, v in comps.items()
            if k not in ("reflect_tx", "network", "response", "rtt")}
    doc["breaches"].append({"seq": 600, "latency": 90000, "threshold": 40000,
                            "stamps": {}, "components": part})
    return doc


SERIES = [{"t_ns": k * 1000000000, "sent": 100, "received": 100 - lost,
           "lost": lost, "late": 0, "min": 9000, "p50": 10000 + k,
           "p99": 20000 + k, "max": 30000 + k}
          for k, lost in enumerate((0, 5, 50, 0))]


def log_text(rows, lost_col=True):
    """An emitter's log: SEQ T1_KN T4_KN RTT [LOST]."""
    head = "SEQ T1_KN T4_KN RTT" + (" LOST" if lost_col else "")
    out = [head, "-" * len(head)]
    for seq, t_ns, rtt, lost in rows:
        t1 = f"{t_ns // 10**9}.{t_ns % 10**9:09d}"
        if lost:
            out.append(f"{seq} {t1} - -" + (" LOST" if lost_col else ""))
        else:
            t4 = t_ns + rtt
            t4s = f"{t4 // 10**9}.{t4 % 10**9:09d}"
            out.append(f"{seq} {t1} {t4s} {rtt}" + (" -" if lost_col else ""))
    return "\n".join(out) + "\n"


def fleet_doc():
    """A JSON as rant --targets --paths 4 -j writes it: three targets, the
    second with path 40003 named (path_latency)."""
    def path(port, p50, p99, sent, lost, named=()):
        d = {"source_port": port, "counts": {"sent": sent, "lost": lost},
             "metrics": {"rtt": {"percentiles": {"50": p50, "99": p99}}}}
        if named:
            d["named"] = list(named)
        return d

    def target(addr, paths):
        return {"address": addr, "port": 12345, "peer": f"{addr}:12345",
                "paths": paths}
    ts = [target("10.0.0.1", [path(40000 + i, 20000, 30000, 50, 0)
                              for i in range(4)]),
          target("10.0.0.2", [path(40000 + i, 20000 if i != 3 else 900000,
                                   30000 if i != 3 else 2000000, 50,
                                   5 if i == 3 else 0,
                                   ("path_latency",) if i == 3 else ())
                              for i in range(4)]),
          target("10.0.0.3", [path(40000 + i, 21000, 31000, 40, 0)
                              for i in range(4)])]
    return run_doc(mode="emit", targets=ts,
                   diagnosis=[{"kind": "path_latency",
                               "target": "10.0.0.2:12345",
                               "source_ports": [40003]}])


def fleet_log(rows):
    """A fleet's log: (seq, t1 s, rtt ns or None, target) each."""
    out = ["SEQ T1_KN T4_KN RTT LOST TARGET PATH", "-" * 36]
    for seq, t, rtt, target in rows:
        out.append(f"{seq} {t:.9f} " + (f"{t + rtt / 1e9:.9f} {rtt} -"
                                         if rtt is not None else "- - LOST")
                   + f" {target} 40000")
    return "\n".join(out) + "\n"


class PlotCase(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="rant-plot-test.")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def write(self, name, content):
        path = os.path.join(self.dir, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(content if isinstance(content, str)
                    else json.dumps(content))
        return path

    def plot(self, *args, ok=True):
        dump = os.path.join(self.dir, "dump.json")
        if os.path.exists(dump):
            os.unlink(dump)
        cmd = [PYTHON, PLOT, *args, "--size", f"{SIZE[0]}x{SIZE[1]}",
               "--dump-data", dump]
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=self.dir,
                           timeout=300)
        if not ok:
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
            return p
        self.assertEqual(p.returncode, 0, p.stderr)
        files = p.stdout.split()
        for f in files:
            if f.endswith(".png"):
                self.assertEqual(png_size(os.path.join(self.dir, f)), SIZE)
        with open(dump, encoding="utf-8") as f:
            return files, json.load(f)["plots"]

    def assert_marks(self, plot, st):
        want = {"min": st["min"], "p50": st["percentiles"]["50"],
                "p99": st["percentiles"]["99"],
                "p99.9": st["percentiles"]["99.9"], "max": st["max"]}
        self.assertEqual(plot["marks_ns"], want)


def watch_doc():
    """A JSON as rant --read -j writes it: two server ports, the worst flow
    with the timeline of its most held exchange (a Nagle stall)."""
    t0 = 1700000000000000000
    segs = [("c2s", 0, "P.", 1, 1, 40), ("s2c", 100000, "P.", 1, 41, 238),
            ("c2s", 40100000, ".", 41, 239, 0),
            ("s2c", 40150000, "P.", 239, 41, 600),
            ("c2s", 40200000, "P.", 41, 839, 40)]
    tl = {"exchange": 7, "held": "nagle_delayed_ack", "held_ns": 40050000,
          "req_first_ns": t0, "req_last_ns": t0, "resp_first_ns": t0 + 100000,
          "resp_last_ns": t0 + 40150000, "latency_ns": 40150000,
          "partial": False,
          "segments": [{"t_ns": t0 + t, "dir": d, "flags": fl, "seq": sq,
                        "ack": ak, "len": ln, "win": 65535}
                       for d, t, fl, sq, ak, ln in segs]}
    nagle = {"kind": "nagle_delayed_ack", "exchanges": 69, "share": 0.97,
             "typical_ns": 40000000, "max_ns": 40050000, "fix": "TCP_NODELAY"}
    flows = [{"server": "10.0.0.2:8080", "client": "10.0.0.1:4000",
              "exchanges": 70, "diagnosis": [nagle], "timeline": tl},
             {"server": "10.0.0.2:8081", "client": "10.0.0.1:4001",
              "exchanges": 900, "diagnosis": []}]
    slow = [[39976960, 40009727, 69], [249856, 250111, 1]]
    fast = [[49984, 50015, 880], [99968, 100031, 20]]
    ports = [{"port": 8080, "flows": 1, "diagnosis": [nagle],
              "metrics": {"exchange": stats(70, 249856, (40009727,) * 7,
                                            40009727, "exchange", hdr=slow)}},
             {"port": 8081, "flows": 1, "diagnosis": [],
              "metrics": {"exchange": stats(900, 49984, (50015,) * 3 +
                                            (100031,) * 4, 100031, "exchange",
                                            hdr=fast)}}]
    return {"rant_version": "test", "mode": "read", "flows": flows,
            "ports": ports, "metrics": {}, "diagnosis": [nagle]}


class TestFixtures(PlotCase):
    def test_flow_timeline(self):
        path = self.write("read.json", watch_doc())
        files, plots = self.plot("flow", path)
        self.assertEqual(files, ["./read-flow.png"])
        d = plots[0]
        self.assertEqual((d["index"], d["held"]), (0, "nagle_delayed_ack"))
        self.assertEqual(len(d["segments"]), 5)
        # the stall: from the head (0.1 ms) to the tail (40.15 ms)
        self.assertAlmostEqual(d["held_span_ms"][0], 0.1)
        self.assertAlmostEqual(d["held_span_ms"][1], 40.15)
        p = self.plot("flow", path, "--flow", "1", ok=False)
        self.assertIn("no held exchange to draw", p.stderr)
        p = self.plot("flow", path, "--flow", "5", ok=False)
        self.assertIn("has flows 0 to 1", p.stderr)
        p = self.plot("flow", self.write("emit.json", run_doc()), ok=False)
        self.assertIn("not the JSON of rant --read or --watch", p.stderr)

    def test_ports_distribution(self):
        path = self.write("read.json", watch_doc())
        files, plots = self.plot("ports", path)
        self.assertEqual(files, ["./read-ports.png"])
        ports = plots[0]["ports"]
        self.assertEqual([p["port"] for p in ports], [8080, 8081])
        self.assertEqual(ports[0]["marks_ns"]["p50"], 40009727)
        self.assertIn("nagle_delayed_ack 97%", ports[0]["diagnosis"])
        self.assertEqual(ports[1]["diagnosis"], "nothing held")
        self.assertEqual(ports[1]["curve"]["value_ns"][-1], 100031)

    def test_dist_from_hdr(self):
        doc = run_doc()
        j = self.write("hdr.json", doc)
        files, plots = self.plot("dist", j, "-o", "d.png")
        self.assertEqual(files, ["d.png"])
        d = plots[0]
        self.assertEqual(d["source"], "hdr")
        self.assert_marks(d, doc["metrics"]["rtt"])
        curve = dict(zip(d["curve"]["percentile"], d["curve"]["value_ns"]))
        # the step at 90% starts the 20 us bucket, at 99.9% the 5 ms one
        self.assertEqual(curve[0.0], 10009)
        self.assertEqual(curve[90.0], 20019)
        self.assertEqual(curve[99.9], 5001215)
        self.assertEqual(d["curve"]["value_ns"][-1], 5001215)
        self.assertEqual(sum(d["histogram"]["counts"]), 1000)

    def test_dist_from_linear_histogram_says_tail_missing(self):
        doc = run_doc()
        del doc["metrics"]["rtt"]["hdr"]
        j = self.write("lin.json", doc)
        _, plots = self.plot("dist", j)
        d = plots[0]
        self.assertEqual(d["source"], "histogram")
        self.assert_marks(d, doc["metrics"]["rtt"])
        curve = list(zip(d["curve"]["percentile"], d["curve"]["value_ns"]))
        # buckets up to 99.9%, then only the reported percentiles above
        self.assertIn((90.0, 9999), curve)
        self.assertIn((99.99, 5001215), curve)
        self.assertEqual(d["histogram"]["overflow"], 1)

    def test_dist_of_negative_component(self):
        j = self.write("neg.json", with_components(run_doc()))
        _, plots = self.plot("dist", j, "--metric", "network")
        d = plots[0]
        self.assertEqual(d["metric"], "network")
        self.assertEqual(d["curve"]["value_ns"][0], -1998)
        self.assertEqual(sum(d["histogram"]["counts"]), 1000)

    def test_time_from_series(self):
        doc = with_components(run_doc(series=SERIES))
        j = self.write("series.json", doc)
        files, plots = self.plot("time", j)
        self.assertEqual(files, ["./series-time.png"])
        d = plots[0]
        self.assertEqual(d["source"], "series")
        self.assertEqual([s["loss_pct"] for s in d["series"]],
                         [0.0, 5.0, 50.0, 0.0])
        self.assertEqual([s["p99"] for s in d["series"]],
                         [x["p99"] for x in SERIES])
        (b,) = d["breaches"]
        self.assertEqual((b["seq"], b["value_ns"]), (500, 5001215))
        # at its T1 wire stamp (T1_KN), from the run's start_ns
        self.assertAlmostEqual(b["t_s"], 1.000001, places=9)

    def test_time_from_series_as_rant_writes_it(self):
        # rant -I: t_ns from the start of measuring, the last interval
        # shorter (duration_ns), no latencies (null) where nothing came back
        rows = [dict(x, duration_ns=1000000000) for x in SERIES]
        rows[-1]["duration_ns"] = 250000000
        rows[2].update(received=0, lost=100, min=None, p50=None, p99=None,
                       max=None)
        j = self.write("rant-series.json", run_doc(series=rows))
        _, plots = self.plot("time", j)
        d = plots[0]
        self.assertEqual([s["end_s"] for s in d["series"]],
                         [1.0, 2.0, 3.0, 3.25])
        self.assertEqual(d["series"][2]["loss_pct"], 100.0)
        self.assertIsNone(d["series"][2]["p50"])

    def test_time_from_log_with_lost_rows_and_gaps(self):
        t0 = 1700000000000000000
        rows = [(s, t0 + s * 1000000, 10000 + (s == 7) * 50000,
                 s in (3, 4)) for s in range(1, 21) if s != 10]
        j = self.write("run.json", run_doc())
        lg = self.write("run.log", log_text(rows))
        _, plots = self.plot("time", j, "--log", lg)
        d = plots[0]
        self.assertEqual(d["source"], "log")
        self.assertEqual(d["transactions"], 17)
        # rant logs every lost ping (LOST): a seq missing from its log is
        # no loss (a sweep's warm-up between sizes, a send that failed),
        # so the plot's count is the log's LOST rows, as the summary's
        self.assertEqual(d["lost"]["seq"], [3, 4])
        self.assertAlmostEqual(d["lost"]["t_s"][1], 0.004, places=6)
        self.assertEqual(sum(d["loss"]["lost"]), 2)
        self.assertEqual(sum(d["loss"]["received"]), 17)
        self.assertEqual([b["seq"] for b in d["breaches"]], [7])
        # a log without the LOST column (an older rant's): the gaps
        old = log_text(rows, lost_col=False)
        _, plots = self.plot("time", j, "--log", self.write("old.log", old))
        self.assertEqual(plots[0]["lost"]["seq"], [3, 4, 10])

    def test_log_read_by_column_name(self):
        # the same rows with a column added before each of rant's and the
        # columns in another order: the same plot (no column by position)
        t0 = 1700000000000000000
        rows = [(s, t0 + s * 1000000, 10000 + (s == 7) * 50000,
                 s in (3, 4)) for s in range(1, 21) if s != 10]
        text = log_text(rows)
        lines = [ln.split() for ln in text.splitlines()]
        order = [3, 0, 4, 2, 1]     # RTT SEQ LOST T4_KN T1_KN
        moved = []
        for i, w in enumerate(lines):
            if i == 1:
                continue
            cells = [w[k] for k in order]
            moved.append(" ".join(c for k, v in enumerate(cells)
                                  for c in (f"X{k}" if i == 0 else "0", v)))
        moved.insert(1, "-" * len(moved[0]))
        j = self.write("run.json", run_doc())
        _, plain = self.plot("time", j, "--log", self.write("a.log", text))
        _, other = self.plot("time", j, "--log",
                             self.write("b.log", "\n".join(moved) + "\n"))
        self.assertEqual(plain[0], other[0])
        self.assertEqual(other[0]["lost"]["seq"], [3, 4])

    def test_parts_boxes_and_breach_stack(self):
        doc = with_components(run_doc())
        j = self.write("parts.json", doc)
        _, plots = self.plot("parts", j)
        d = plots[0]
        boxes = {b["name"]: b for b in d["boxes"]}
        self.assertEqual(list(boxes), ["emit_tx", "network", "reflect_rx"])
        net = boxes["network"]
        self.assertEqual((net["source"], net["whislo"], net["q1"],
                          net["med"], net["q3"], net["whishi"]),
                         ("hdr", -1998, -999, -999, 1000, 3000))
        tx = boxes["emit_tx"]
        self.assertEqual((tx["source"], tx["whislo"], tx["med"], tx["q3"],
                          tx["whishi"], tx["max"]),
                         ("percentiles", 500, 900, 1000, 1500, 4000))
        b = d["breaches"][0]
        self.assertEqual(b["seq"], 500)
        self.assertEqual(b["total_ns"], doc["breaches"][0]["components"]
                         ["rtt_sw"])
        self.assertEqual(sum(b["parts_ns"].values()), b["total_ns"])
        self.assertEqual(list(b["parts_ns"]), ["emit_tx", "network",
                                               "reflect_rx", "reflect_proc",
                                               "reflect_tx", "emit_rx"])

        b = d["breaches"][1]
        self.assertEqual((b["seq"], b["total_ns"]), (600, 5001215))
        self.assertEqual(b["parts_ns"]["not split (stamp missing)"],
                         3000 + 2015)

    def test_parts_breach_title_counts(self):
        # the JSON keeps 40 of the run's 227 breaches; the bars show 30
        doc = with_components(run_doc())
        one = doc["breaches"][0]
        doc["breaches"] = [dict(one, seq=k) for k in range(40)]
        doc["counts"]["breaches"] = 227
        _, plots = self.plot("parts", self.write("b.json", doc))
        self.assertIn("(the 30 largest of the 40 kept, 227 in all)",
                      plots[0]["breach_title"])
        doc["counts"]["breaches"] = 40
        _, plots = self.plot("parts", self.write("c.json", doc))
        self.assertIn("(the 30 largest of 40)", plots[0]["breach_title"])
        doc["breaches"] = doc["breaches"][:3]
        doc["counts"]["breaches"] = 9
        _, plots = self.plot("parts", self.write("d.json", doc))
        self.assertIn("(the 3 kept of 9)", plots[0]["breach_title"])

    def test_parts_violin_from_hdr(self):
        j = self.write("v.json", with_components(run_doc()))
        _, plots = self.plot("parts", j, "--violin")
        v = {b["name"]: b["violin"] for b in plots[0]["boxes"]}
        # no hdr (emit_tx) or values <= 0 (network): a box only
        self.assertEqual((v["emit_tx"], v["network"]), (None, None))
        self.assertEqual(sum(v["reflect_rx"]["counts"]), 1000)
        self.assertLessEqual(v["reflect_rx"]["edges_ns"][0], 1998)
        self.assertGreaterEqual(v["reflect_rx"]["edges_ns"][-1], 9000)

    def test_parts_breach_stack_inside_its_metric(self):
        # an RTT breach: its bar is the RTT's components, never the
        # emitter's user space rant shows outside it (emit_rx 8 ms here)
        doc = with_components(run_doc())
        comps = {"emit_tx": 3000, "network": 2000, "reflect_rx": 4000000,
                 "reflect_proc": 1000, "reflect_tx": 17000, "emit_rx": 8000000,
                 "response": 4018000, "rtt": 4020000, "rtt_sw": 12023000}
        doc["breaches"] = [{"seq": 7, "metric": "rtt", "latency": 4020000,
                            "threshold": 1000000, "stamps": {}, "components": comps,
                            "outside": ["emit_tx", "emit_rx"], "largest": "reflect_rx"}]
        _, plots = self.plot("parts", self.write("in.json", doc))
        (b,) = plots[0]["breaches"]
        self.assertEqual(b["total_ns"], 4020000)
        self.assertEqual(list(b["parts_ns"]), ["network", "reflect_rx", "reflect_proc",
                                               "reflect_tx"])
        self.assertEqual(sum(b["parts_ns"].values()), 4020000)

    def test_parts_response_and_reflector_report(self):
        # without -s the reflector's part is its response, shown beside
        # the network; what the reflector told of its side in the title
        doc = run_doc()
        doc["metrics"]["network"] = stats(1000, 900, (1000,) * 7, 3000, "Network")
        doc["metrics"]["response"] = stats(1000, 3000, (4000,) * 7, 151000000,
                                           "Reflector response")
        doc["counts"]["lost"] = 1940
        doc["reflector_report"] = {"reported": True, "send_errors": 0,
                                   "qdisc_drops": 1897, "queue_max_ns": 151000000}
        _, plots = self.plot("parts", self.write("r.json", doc))
        d = plots[0]
        self.assertEqual([b["name"] for b in d["boxes"]], ["network", "response"])
        self.assertEqual(d["reflector_note"], "the reflector's qdisc dropped 1897 of the "
                         "1940 lost pongs and held pongs up to 151 ms")

    def test_parts_needs_components(self):
        j = self.write("plain.json", run_doc())
        p = self.plot("parts", j, ok=False)
        self.assertIn("run rant with -s", p.stderr)

    def test_compare_two_runs_with_labels(self):
        a = run_doc(series=SERIES)
        b = run_doc()
        b["metrics"]["rtt"] = stats(1000, 19990, tuple(2 * v for v in
                                                       HDR_PCT), 10002430,
                                    hdr=[[2 * lo, 2 * hi, c] for lo, hi, c
                                         in HDR])
        ja, jb = self.write("a.json", a), self.write("b.json", b)
        t0 = 1700000000000000000
        lg = self.write("b.log", log_text(
            [(s, t0 + s * 1000000, 20000, False) for s in range(1, 50)]))
        files, plots = self.plot("compare", ja, jb, "--log", "-",
                                 "--log", lg, "--label", "3mb",
                                 "--label", "30kb")
        self.assertEqual(files, ["./compare-dist.png", "./compare-time.png"])
        dist, tm = plots
        self.assertEqual([r["run"] for r in dist["runs"]], ["3mb", "30kb"])
        self.assert_marks(dist["runs"][0], a["metrics"]["rtt"])
        self.assert_marks(dist["runs"][1], b["metrics"]["rtt"])
        self.assertEqual([(r["run"], r["source"]) for r in tm["runs"]],
                         [("3mb", "series"), ("30kb", "log")])
        self.assertEqual(set(tm["runs"][1]["p50_ns"]) - {None}, {20000})

    def test_sweep_fit_from_json(self):
        sizes = [{"size": s, "metrics": {"rtt": stats(
            100, 5000 + s, (6000 + 2 * s,) * 4 + (9000 + 2 * s,) * 3,
            20000 + 2 * s)}} for s in (64, 256, 1024, 4096)]
        doc = run_doc(sizes=sizes, fit={"offset_ns": 6000.0,
                                        "ns_per_byte": 2.0})
        del doc["metrics"]
        j = self.write("sweep.json", doc)
        files, plots = self.plot("sweep", j)
        d = plots[0]
        self.assertEqual(files, ["./sweep-size.png"])
        self.assertEqual(d["size"], [64, 256, 1024, 4096])
        self.assertEqual(d["p50_ns"], [6000 + 2 * s for s in d["size"]])
        self.assertEqual(d["p99_ns"], [6000 + 2 * s for s in d["size"]])
        self.assertEqual(d["fit"], {"offset_ns": 6000.0, "ns_per_byte": 2.0,
                                    "source": "rant"})
        _, plots = self.plot("html", "page", j)
        self.assertEqual([p["kind"] for p in plots], ["sweep"])

    def test_sweep_draws_metrics_per_size(self):
        """A sweep with one-way delays and components per size: their p50
        curves against size, the clocks' verdict in the legend; two such
        runs overlaid draw each run's one-way delays."""
        def size(s, owd_fwd):
            return {"size": s, "metrics": {
                "rtt": stats(100, 9000 + s, (10000 + s,) * 7, 20000 + s),
                "owd_fwd": dict(stats(100, owd_fwd, (owd_fwd,) * 7,
                                      owd_fwd), trusted=False,
                                untrusted="the hosts' clocks differ"),
                "owd_back": stats(100, 5000 + s, (5000 + s,) * 7, 5000 + s),
                "emit_tx": stats(100, 900, (1000 + s // 4,) * 7, 2000)}}
        paths = []
        for name, base in (("a", -3000), ("b", 4000)):
            doc = run_doc(sizes=[size(s, base + s) for s in (64, 1024, 8192)])
            del doc["metrics"]
            paths.append(self.write(f"{name}.json", doc))
        files, plots = self.plot("sweep", paths[0])
        m = plots[0]["metrics"]
        self.assertEqual(list(m), ["owd_fwd", "owd_back", "emit_tx"])
        self.assertEqual(m["owd_fwd"]["p50_ns"], [-3000 + 64, -2000 + 24,
                                                  -3000 + 8192])
        self.assertEqual(m["owd_back"]["size"], [64, 1024, 8192])
        self.assertEqual([m[k]["trusted"] for k in m], [False, True, True])
        self.assertEqual(m["emit_tx"]["p50_ns"], [1016, 1256, 3048])
        self.assertEqual(png_size(os.path.join(self.dir, files[0])), SIZE)
        if os.environ.get("KEEP_SWEEP_PNG"):
            shutil.copy(os.path.join(self.dir, files[0]),
                        os.environ["KEEP_SWEEP_PNG"] + ".metrics.png")
        _, plots = self.plot("sweep", *paths, "--label", "A", "--label", "B")
        d = plots[0]
        self.assertEqual(d["kind"], "sweep-overlay")
        self.assertEqual([s["metrics"]["owd_fwd"]["p50_ns"][0]
                          for s in d["series"]], [-2936, 4064])

    def test_sweep_by_regime_never_one_line(self):
        """A sweep whose line breaks (the JSON's fit null, its regimes):
        the fit panel draws rant's regimes, never a least-squares line
        across the cliff (the issue's negative slope)."""
        pts = [(64, 44000000), (1024, 43900000), (2048, 44000000),
               (4096, 31000), (8192, 33000)]
        regimes = [{"from": 64, "to": 2048, "offset_ns": None,
                    "ns_per_byte": None, "bandwidth_bps": None,
                    "level_ns": 44000000, "then": "cliff down"},
                   {"from": 4096, "to": 8192, "offset_ns": 29000.0,
                    "ns_per_byte": 0.5, "bandwidth_bps": 16e9,
                    "level_ns": None, "then": ""}]
        doc = run_doc(sizes=[{"size": z, "metrics": {"rtt": stats(
            100, v, (v,) * 7, v)}} for z, v in pts], fit=None,
            regimes=regimes)
        del doc["metrics"]
        _, plots = self.plot("sweep", self.write("cliff.json", doc))
        f = plots[0]["fit"]
        self.assertEqual(f["source"], "rant, by regime")
        self.assertNotIn("ns_per_byte", f)
        self.assertEqual([g["to"] for g in f["regimes"]], [2048, 8192])

    def test_sweep_least_squares_over_runs(self):
        paths = []
        for s in (1472, 72, 512):
            doc = run_doc()
            doc["config"]["size"] = s
            doc["metrics"]["rtt"] = stats(100, 1, (7000 + 3 * s,) * 4 +
                                          (8000 + 3 * s,) * 3, 9000 + 3 * s)
            paths.append(self.write(f"m{s}.json", doc))
        _, plots = self.plot("sweep", *paths)
        d = plots[0]
        self.assertEqual(d["size"], [72, 512, 1472])
        self.assertEqual(d["runs"], ["m72", "m512", "m1472"])
        self.assertAlmostEqual(d["fit"]["offset_ns"], 7000.0, places=6)
        self.assertAlmostEqual(d["fit"]["ns_per_byte"], 3.0, places=9)
        self.assertEqual(d["fit"]["source"], "least squares on p50")

    def test_sweep_overlays_labelled_runs(self):
        """Three sweeps, one series each (the issue's TCP Nagle cliff, a
        UDP sweep across fragmentation, a flat one), on a log2 axis, their
        breaks marked; a second call does not overwrite the first file."""
        tcp = [(64, 44000000), (256, 44100000), (1024, 43900000),
               (2048, 44000000), (4096, 31000), (8192, 33000)]
        udp = [(64, 5600), (256, 5600), (1024, 5590), (1472, 5610),
               (8972, 29600)]
        nodelay = [(64, 26000), (1024, 27000), (8192, 30000)]
        paths = []
        for name, pts, regimes, frag in (
                ("tcp", tcp, [{"to": 2048, "then": "cliff down"},
                              {"to": 8192, "then": ""}], None),
                ("udp", udp, [{"to": 1472, "then": "IP fragmentation"},
                              {"to": 8972, "then": ""}], 1472),
                ("nd", nodelay, [{"to": 8192, "then": ""}], None)):
            sizes = [{"size": z, "sent": 10, "lost": 0,
                      "metrics": {"rtt": stats(10, v, (v,) * 7, v)}}
                     for z, v in pts]
            doc = run_doc(sizes=sizes, regimes=regimes, fit=None,
                          fragments_above=frag)
            del doc["metrics"]
            paths.append(self.write(f"{name}.json", doc))
        args = ["sweep", *paths, "--label", "Nagle", "--label", "UDP",
                "--label", "nodelay"]
        files, plots = self.plot(*args)
        self.assertEqual(files, ["./sweep-size.png"])
        d = plots[0]
        self.assertEqual(d["kind"], "sweep-overlay")
        self.assertEqual([x["run"] for x in d["series"]],
                         ["Nagle", "UDP", "nodelay"])
        self.assertEqual(d["series"][0]["size"], [z for z, _ in tcp])
        self.assertEqual(d["series"][0]["breaks"], [[2048, "cliff down"]])
        self.assertEqual(d["series"][1]["fragments_above"], 1472)
        if os.environ.get("KEEP_SWEEP_PNG"):
            shutil.copy(os.path.join(self.dir, "sweep-size.png"),
                        os.environ["KEEP_SWEEP_PNG"])
        files, _ = self.plot(*args)
        self.assertEqual(files, ["./sweep-size-2.png"])

    def test_html_long_run_over_time_first(self):
        """A run of 120 s: its page shows the over-time view before the
        distribution and says why; one of 2 s keeps the distribution
        first."""
        long = with_components(run_doc(series=SERIES))
        long["end_ns"] = long["start_ns"] + 120 * 10**9
        files, plots = self.plot("html", "long", self.write("l.json", long))
        self.assertEqual([p["kind"] for p in plots], ["time", "dist", "parts"])
        with open(os.path.join(self.dir, "long", "index.html"),
                  encoding="utf-8") as f:
            page = f.read()
        self.assertIn("over time first: the run measured for 120 s", page)
        self.assertLess(page.index('alt="time of'), page.index('alt="dist of'))
        short = with_components(run_doc(series=SERIES))
        _, plots = self.plot("html", "short", self.write("s.json", short))
        self.assertEqual([p["kind"] for p in plots], ["dist", "time", "parts"])

    def test_html_page_is_self_contained(self):
        ja = self.write("a.json", with_components(run_doc(series=SERIES)))
        b = run_doc()
        b["config"]["size"] = 1024
        jb = self.write("b.json", b)
        files, plots = self.plot("html", "report", ja, jb)
        self.assertEqual(files, ["report/index.html"])
        with open(os.path.join(self.dir, "report", "index.html"),
                  encoding="utf-8") as f:
            page = f.read()
        kinds = [p["kind"] for p in plots]
        self.assertEqual(kinds, ["dist", "time", "parts", "dist",
                                 "compare-dist", "compare-time", "sweep"])
        self.assertEqual(page.count('src="data:image/png;base64,'),
                         len(kinds))
        self.assertNotIn('src="http', page)
        self.assertIn("sent / received / lost / late", page)
        self.assertEqual(os.listdir(os.path.join(self.dir, "report")),
                         ["index.html"])

    def test_html_has_warnings_command_line_and_schedule(self):
        doc = run_doc(command_line=["rant", "-a", "10.0.0.2", "--interval",
                                    "100"],
                      warnings=[{"code": "rt_throttle",
                                 "text": "real-time throttling is on",
                                 "fix": "sysctl kernel.sched_rt_runtime_us=-1"}])
        doc["counts"].update(missed_slots=10864, loss_pct=0.0)
        doc["config"]["interval_ns"] = 100000
        doc["metrics"]["rtt_intended"] = stats(1000, 9990, (20000,) * 3 +
                                               (9900000000,) * 4, 9912000000)
        j = self.write("w.json", doc)
        self.plot("html", "page", j)
        with open(os.path.join(self.dir, "page", "index.html"),
                  encoding="utf-8") as f:
            page = f.read()
        # the warnings come before the summary table
        self.assertLess(page.index("rt_throttle"), page.index("stop"))
        for text in ("real-time throttling is on",
                     "sysctl kernel.sched_rt_runtime_us=-1",
                     "rant -a 10.0.0.2 --interval 100", "missed_slots",
                     "10864", "rtt_intended p50 / p99 / max",
                     "<summary>configuration</summary>", "interval_ns"):
            self.assertIn(text, page)

    def test_fleet_paths_named_first(self):
        j = self.write("fleet.json", fleet_doc())
        files, plots = self.plot("paths", j)
        self.assertEqual(files, ["./fleet-paths.png"])
        ts = plots[0]["targets"]
        # the target with a named path first, then the others as the JSON has them
        self.assertEqual([t["target"] for t in ts],
                         ["10.0.0.2:12345", "10.0.0.1:12345", "10.0.0.3:12345"])
        self.assertEqual(ts[0]["paths"], [40000, 40001, 40002, 40003])
        self.assertEqual(ts[0]["named"], [False, False, False, True])
        self.assertEqual(ts[0]["p50_ns"][3], 900000)
        self.assertEqual(ts[0]["loss_pct"], [0.0, 0.0, 0.0, 10.0])
        p = self.plot("paths", self.write("emit.json", run_doc()), ok=False)
        self.assertIn("no target has paths", p.stderr)

    def test_trace_hops_by_path(self):
        # a real rant trace --paths 16 over tests/net/test_hops.sh's chain
        # (a queue on link A: hop 2 named on its paths)
        with open(os.path.join(TOP, "tests", "plot", "trace.json"),
                  encoding="utf-8") as f:
            doc = json.load(f)
        files, plots = self.plot("trace", self.write("trace.json", doc))
        self.assertEqual(files, ["./trace-trace.png"])
        d = plots[0]
        by = {p["source_port"]: p for p in doc["paths"]}
        self.assertEqual(d["paths"], sorted(by))
        self.assertEqual(d["ttls"], [1, 2, 3])
        for i, port in enumerate(d["paths"]):
            hops = by[port]["hops"]
            self.assertEqual(d["p50_ns"][i], [h["metrics"]["rtt"]["percentiles"]["50"]
                                              for h in hops])
            self.assertEqual(d["increment_us"][i], [h["increment_ns"] / 1000.0
                                                    for h in hops])
        step = [x for x in doc["diagnosis"] if x["kind"] == "delay_step"][0]
        self.assertEqual(d["steps"], {"2": sorted(step["source_ports"])})
        # a hop that did not answer (`*`) is a gap, not a zero
        hop = doc["paths"][0]["hops"][1]
        hop.update(address=None, received=0, increment_ns=None, metrics={})
        _, plots = self.plot("trace", self.write("star.json", doc))
        i = plots[0]["paths"].index(doc["paths"][0]["source_port"])
        self.assertIsNone(plots[0]["p50_ns"][i][1])
        self.assertIsNone(plots[0]["increment_us"][i][1])
        p = self.plot("trace", self.write("emit.json", run_doc()), ok=False)
        self.assertIn("give the JSON of rant trace", p.stderr)

    def test_fleet_heatmap_worst_on_top(self):
        t0 = 1700000000.0
        rows, seq = [], 0
        for i in range(40):
            seq += 1
            t = t0 + i * 0.1
            rows.append((seq, t, 10000 + i, "10.0.0.1:12345"))
            # the second target's trouble: its last second, and one lost
            rows.append((seq, t + 0.001, 500000 if i >= 30 else 11000,
                         "10.0.0.2:12345"))
        rows.append((seq + 1, t0 + 1.0, None, "10.0.0.1:12345"))
        j = self.write("fleet.json", fleet_doc())
        lg = self.write("fleet.log", fleet_log(rows))
        files, plots = self.plot("fleet", j, "--log", lg, "--bins", "4")
        self.assertEqual(files, ["./fleet-fleet.png"])
        d = plots[0]
        self.assertEqual(d["targets"], ["10.0.0.2:12345", "10.0.0.1:12345"])
        self.assertEqual(len(d["p99_ns"][0]), 4)
        self.assertAlmostEqual(d["p99_ns"][0][3], 500000)
        self.assertLess(d["p99_ns"][0][0], 12000)
        self.assertLess(d["p99_ns"][1][3], 10040)
        p = self.plot("fleet", j, ok=False)
        self.assertIn("give the fleet's log", p.stderr)
        p = self.plot("fleet", j, "--log", self.write("x.log", log_text(
            [(1, 1700000000000000000, 10000, False)])), ok=False)
        self.assertIn("no TARGET and RTT columns", p.stderr)

    def test_svg(self):
        j = self.write("s.json", run_doc())
        files, _ = self.plot("dist", j, "--svg", "-d", "pics")
        self.assertEqual(files, ["pics/s-dist.svg"])
        with open(os.path.join(self.dir, files[0]), encoding="utf-8") as f:
            self.assertIn("<svg", f.read(2000))


class TestErrors(PlotCase):
    def one_line(self, args, words):
        p = self.plot(*args, ok=False)
        lines = p.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        for w in words:
            self.assertIn(w, lines[0])

    def test_missing_file(self):
        self.one_line(["dist", "nope.json"],
                      ["nope.json: no such file", "rant -j"])

    def test_not_rant_json(self):
        j = self.write("other.json", {"hello": 1})
        self.one_line(["dist", j], ["not rant's JSON", "rant -j"])
        t = self.write("text.json", "not json at all")
        self.one_line(["dist", t], ["not JSON", "rant -j"])

    def test_log_header_not_rants(self):
        j = self.write("r.json", run_doc())
        lg = self.write("bad.log", "time value\n1 2\n")
        self.one_line(["time", j, "--log", lg],
                      ["not rant's log header", "rant -l"])
        lg2 = self.write("bad2.log", "SEQ T1_KN T4_KN RTT\n1 2 3 4\n")
        self.one_line(["time", j, "--log", lg2], ["dashes", "rant -l"])

    def test_time_without_time_data(self):
        j = self.write("r.json", run_doc())
        self.one_line(["time", j], ["no time data", "--log"])

    def planted(self, name, target):
        """A link in a sticky, world-writable folder, owned by another
        user (nobody), to target: what rant-plot as root must not follow."""
        shared = os.path.join(self.dir, "shared")
        os.makedirs(shared, exist_ok=True)
        os.chmod(shared, 0o1777)
        link = os.path.join(shared, name)
        os.symlink(target, link)
        os.lchown(link, 65534, 65534)
        return link

    def assert_untouched(self, victim, link):
        with open(victim, encoding="utf-8") as f:
            self.assertEqual(f.read(), "keep\n")
        self.assertTrue(os.path.islink(link))
        self.assertEqual([n for n in os.listdir(os.path.dirname(link))
                          if ".rant-plot-" in n], [], "a temporary left")

    def test_output_never_through_a_planted_link(self):
        """rant-plot as root: a picture, --dump-data and an HTML page
        named through a link another user planted in a shared folder (one
        the picture's name, one a folder on its way) are refused, each
        with the link named, and the file it points at is left whole."""
        if os.geteuid() != 0:
            self.skipTest("needs root (a link owned by another user)")
        j = self.write("r.json", run_doc())
        victim = self.write("victim", "keep\n")
        link = self.planted("x.png", victim)
        self.one_line(["dist", j, "-o", link],
                      [link, "sticky, world-writable", "never follows"])
        self.assert_untouched(victim, link)
        dump = self.planted("dump.json", victim)
        p = subprocess.run([PYTHON, PLOT, "dist", j, "-o",
                            os.path.join(self.dir, "ok.png"), "--dump-data",
                            dump], capture_output=True, text=True, cwd=self.dir,
                           timeout=300)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("never follows", p.stderr)
        self.assert_untouched(victim, dump)
        page = self.planted("page", os.path.dirname(victim))
        self.one_line(["html", page, j], [page, "never follows"])
        self.assertFalse(os.path.exists(os.path.join(self.dir, "index.html")))

    def test_output_whole_and_through_own_link(self):
        """A picture is written whole through a temporary beside it (none
        left); a link of this user's in its own folder is followed, the
        file it names replaced and the link kept."""
        j = self.write("r.json", run_doc())
        real = self.write("real.png", "old\n")
        link = os.path.join(self.dir, "mine.png")
        os.symlink("real.png", link)
        files, _ = self.plot("dist", j, "-o", link)
        self.assertEqual(files, [link])
        self.assertTrue(os.path.islink(link))
        self.assertEqual(png_size(real), SIZE)
        self.assertEqual([n for n in os.listdir(self.dir) if ".rant-plot-" in n
                          or ".tmp" in n], [])


class TestRealRun(PlotCase):
    """A real pair over veth (root): every plot kind from its files."""

    @classmethod
    def setUpClass(cls):
        cls.run_dir = tempfile.mkdtemp(prefix="rant-plot-run.")
        p = subprocess.run(["bash", os.path.join(TOP, "tests", "plot",
                                                 "run_pair.sh"),
                            cls.run_dir, "2"], capture_output=True, text=True,
                           timeout=120)
        if p.returncode == 4:
            shutil.rmtree(cls.run_dir, True)
            raise unittest.SkipTest(p.stdout.strip())
        if p.returncode != 0:
            shutil.rmtree(cls.run_dir, True)
            raise AssertionError(f"run_pair.sh: exit {p.returncode}\n"
                                 f"{p.stdout}{p.stderr}")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.run_dir, True)

    def f(self, name):
        return os.path.join(self.run_dir, name)

    def doc(self, name):
        with open(self.f(name), encoding="utf-8") as fh:
            return json.load(fh)

    def test_all_plots_of_the_emitter(self):
        doc = self.doc("emit.json")
        files, plots = self.plot("all", self.f("emit.json"), "--log",
                                 self.f("emit.log"))
        self.assertEqual(files, ["./emit-dist.png", "./emit-time.png",
                                 "./emit-parts.png"])
        dist, tm, parts = plots
        st = doc["metrics"]["rtt"]
        self.assert_marks(dist, st)
        self.assertEqual(dist["source"], "hdr" if "hdr" in st else "log")
        self.assertEqual(sum(dist["histogram"]["counts"]), st["samples"])
        if dist["source"] == "log":
            curve = dict(zip(dist["curve"]["percentile"],
                             dist["curve"]["value_ns"]))
            self.assertEqual(curve[0.0], st["min"])
            self.assertEqual(dist["curve"]["value_ns"][-1], st["max"])
        # the log has a row per received pong; the seqs missing between
        # rows are the lost pings and the failed sends, less a lost last
        # ping (no row after it)
        c = doc["counts"]
        self.assertEqual(tm["transactions"], c["received"])
        missing = c["lost"] + c.get("send_errors", 0)
        self.assertIn(len(tm["lost"]["seq"]), (missing, missing - 1),
                      f"counts {c}")
        self.assertEqual(len(tm["breaches"]), doc["counts"]["breaches"])
        json_seqs = {b["seq"] for b in doc["breaches"]}
        self.assertTrue(json_seqs <= {b["seq"] for b in tm["breaches"]})
        names = [b["name"] for b in parts["boxes"]]
        self.assertEqual(names[:6], ["emit_tx", "network", "reflect_rx",
                                     "reflect_proc", "reflect_tx",
                                     "emit_rx"])
        for box in parts["boxes"]:
            self.assertEqual(box["max"], doc["metrics"][box["name"]]["max"])
        self.assertEqual(len(parts["breaches"]), len(doc["breaches"]))
        for b, jb in zip(parts["breaches"], doc["breaches"]):
            self.assertEqual(b["seq"], jb["seq"])
            # the bar is the metric that breached, its steps inside it only
            self.assertEqual(b["metric"], jb["metric"])
            self.assertEqual(b["total_ns"], jb["latency"])
            self.assertEqual(b["total_ns"], jb["components"][jb["metric"]])
            self.assertFalse(set(b["parts_ns"]) & set(jb.get("outside", [])),
                             f"a step outside {jb['metric']} stacked: {b['parts_ns']}")
            self.assertEqual(sum(b["parts_ns"].values()), b["total_ns"])

    def test_reflector_and_compare_and_html(self):
        emit, refl = self.doc("emit.json"), self.doc("reflect.json")
        files, plots = self.plot("dist", self.f("reflect.json"), "--log",
                                 self.f("reflect.log"))
        self.assert_marks(plots[0], refl["metrics"]["response"])
        files, plots = self.plot("compare", self.f("emit.json"),
                                 self.f("reflect.json"), "--log",
                                 self.f("emit.log"), "--log",
                                 self.f("reflect.log"))
        self.assertEqual(len(files), 2)
        self.assert_marks(plots[0]["runs"][0], emit["metrics"]["rtt"])
        self.assert_marks(plots[0]["runs"][1], refl["metrics"]["response"])
        files, plots = self.plot("html", "page", self.f("emit.json"),
                                 self.f("reflect.json"))
        self.assertEqual(files, ["page/index.html"])
        self.assertEqual([p["kind"] for p in plots],
                         ["dist", "parts", "dist", "parts", "compare-dist"])


def main():
    if not os.access(PYTHON, os.X_OK):
        print(f"plot: {PYTHON} is missing (sudo make deps)")
        return 1
    suite = unittest.defaultTestLoader.loadTestsFromModule(
        sys.modules[__name__])
    names = sys.argv[1:]
    if names:
        suite = unittest.defaultTestLoader.loadTestsFromNames(
            names, sys.modules[__name__])
    res = unittest.TextTestRunner(verbosity=2).run(
        suite)
    bad = len(res.failures) + len(res.errors)
    skipped = len(res.skipped)
    passed = res.testsRun - bad - skipped
    print(f"plot: {passed} passed, {bad} failed, {skipped} skipped")
    return 0 if res.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
