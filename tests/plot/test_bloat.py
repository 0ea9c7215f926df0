#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Tests of rant-plot pings and bloat (tools/rantplot/bloat.py) on
fixtures written here: two ICMP destinations as two runs of one target
and as one fleet, and a study of tools/bufferbloat.sh's shape (study.json,
a folder a run). Each checks the PNG's size and that the numbers drawn
(--dump-data) are those of rant's files: every round trip of the logs,
every lost ping at its time, each run's p50, p99 and loss from its JSON.
Ends with the plain line 'plot: N passed, N failed, N skipped'."""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_plot import (PlotCase, fleet_log, log_text, png_size,  # noqa: E402
                       run_doc, stats, SIZE)

T0 = 1700000000000000000     # the runs' start_ns
STEP = 200000000             # a ping every 200 ms


def icmp_doc(addr, rtts, pct):
    """The JSON of rant emit --icmp ADDR: rtts (ns, None lost) in order."""
    got = [r for r in rtts if r is not None]
    lost = len(rtts) - len(got)
    return run_doc(
        config={"address": addr, "probe": "icmp", "interval_ns": STEP,
                "threshold_ns": 0},
        counts={"sent": len(rtts), "received": len(got), "lost": lost,
                "late": 0, "breaches": 0},
        probe={"kind": "icmp"},
        metrics={"rtt": stats(len(got), min(got), pct, max(got))})


def icmp_log(rtts, start=T0):
    return log_text([(k + 1, start + k * STEP, r or 0, r is None)
                     for k, r in enumerate(rtts)])


# round trips of a run: idle tens of µs, loaded a few hundred ms
IDLE = [30000, 32000, None, 31000, 29000, 33000]
LOADED = [250000000, 280000000, 300000000, None, None, 310000000]
PCT_IDLE = (31000,) * 3 + (33000,) * 4
PCT_LOADED = (290000000,) * 3 + (310000000,) * 4


class TestPings(PlotCase):
    def two_runs(self, rtts1, rtts2, late_ns=30000000):
        """dest1's and dest2's JSON and log, dest2 started late_ns later."""
        out = []
        for name, rtts, start in (("dest1", rtts1, T0),
                                  ("dest2", rtts2, T0 + late_ns)):
            doc = icmp_doc(f"10.44.1{name[-1]}.1", rtts, PCT_LOADED)
            doc["start_ns"] = start
            out += [self.write(f"{name}.json", doc),
                    self.write(f"{name}.log", icmp_log(rtts, start))]
        return out

    def test_two_runs_every_ping_drawn(self):
        j1, l1, j2, l2 = self.two_runs(LOADED, IDLE)
        files, plots = self.plot("pings", j1, j2, "--log", l1, "--log", l2,
                                 "-o", "run.png", "--title", "t")
        self.assertEqual(files, ["run.png"])
        self.assertEqual(png_size(os.path.join(self.dir, "run.png")), SIZE)
        d1, d2 = plots[0]["destinations"]
        self.assertEqual((d1["name"], d2["name"]), ("dest1", "dest2"))
        self.assertEqual(d1["rtt_ns"], [r for r in LOADED if r])
        self.assertEqual(d2["rtt_ns"], [r for r in IDLE if r])
        # times from the first run's start: dest2 began 30 ms later
        self.assertAlmostEqual(d1["t_s"][0], 0.0, places=6)
        self.assertAlmostEqual(d2["t_s"][0], 0.03, places=6)
        self.assertEqual(len(d1["lost_t_s"]), 2)
        self.assertAlmostEqual(d1["lost_t_s"][0], 0.6, places=6)
        self.assertAlmostEqual(d1["lost_t_s"][1], 0.8, places=6)
        self.assertAlmostEqual(d2["lost_t_s"][0], 0.43, places=6)
        self.assertEqual((d1["lost"], d1["sent"]), (2, 6))
        self.assertAlmostEqual(d1["loss_pct"], 100 * 2 / 6)
        self.assertEqual(d1["p50_ns"], PCT_LOADED[0])

    def test_fleet_split_by_target(self):
        ts = [{"address": "10.44.11.1", "peer": "10.44.11.1", "name": n,
               "counts": {"sent": 6, "lost": lost},
               "metrics": {"rtt": stats(6 - lost, 1, PCT_IDLE, 40000)}}
              for n, lost in (("dest1", 1), ("dest2", 0))]
        ts[1]["address"] = ts[1]["peer"] = "10.44.12.1"
        j = self.write("fleet.json", run_doc(targets=ts, start_ns=T0))
        rows = []
        for k in range(6):
            # the first ping 1 s after start_ns: a fleet's warm-up
            t = T0 / 1e9 + 1.0 + k * 0.2
            rows.append((k + 1, t, None if k == 2 else 30000 + k, "dest1"))
            rows.append((k + 1, t + 0.1, 20000 + k, "10.44.12.1"))
        lg = self.write("fleet.log", fleet_log(rows))
        _, plots = self.plot("pings", j, "--log", lg, "-o", "f.png")
        d1, d2 = plots[0]["destinations"]
        self.assertEqual(d1["name"], "dest1")
        self.assertAlmostEqual(d1["t_s"][0], 0.0, places=5)
        self.assertEqual(d1["rtt_ns"], [30000, 30001, 30003, 30004, 30005])
        self.assertEqual(len(d1["lost_t_s"]), 1)
        self.assertAlmostEqual(d1["lost_t_s"][0], 0.4, places=5)
        self.assertEqual(d2["rtt_ns"], [20000 + k for k in range(6)])
        self.assertAlmostEqual(d2["t_s"][0], 0.1, places=5)

    def test_errors(self):
        j1, l1, j2, _ = self.two_runs(LOADED, IDLE)
        p = self.plot("pings", j1, "--log", l1, ok=False)
        self.assertIn("-o FILE", p.stderr)
        p = self.plot("pings", j1, j2, "--log", l1, "-o", "x.png", ok=False)
        self.assertIn("no log", p.stderr)
        ts = [{"address": "10.44.11.1", "name": "dest1", "counts": {},
               "metrics": {}}]
        j = self.write("fleet.json", run_doc(targets=ts))
        lg = self.write("fleet.log", fleet_log([(1, 1.0, 5, "10.9.9.9")]))
        p = self.plot("pings", j, "--log", lg, "-o", "x.png", ok=False)
        self.assertIn("no row of", p.stderr)


class TestStudy(PlotCase):
    def study(self, runs=None, **over):
        """A study folder as tools/bufferbloat.sh leaves it: per run
        dest1 and dest2; loaded runs LOADED (large) or a tenth of it
        (small)."""
        out = []
        for q, load in runs or [(q, ld) for q in ("large", "small")
                                for ld in ("none", "upload", "download",
                                           "both")]:
            rtts = IDLE if load == "none" else \
                [r and (r if q == "large" else r // 100) for r in LOADED]
            pct = PCT_IDLE if load == "none" else \
                tuple(p if q == "large" else p // 100 for p in PCT_LOADED)
            targets = []
            for n, addr in (("dest1", "10.44.11.1"), ("dest2", "10.44.12.1")):
                os.makedirs(os.path.join(self.dir, f"{q}-{load}"),
                            exist_ok=True)
                jp, lp = f"{q}-{load}/{n}.json", f"{q}-{load}/{n}.log"
                self.write(jp, icmp_doc(addr, rtts, pct))
                self.write(lp, icmp_log(rtts))
                targets.append({"name": n, "address": addr, "json": jp,
                                "log": lp})
            out.append({"queue": q, "load": load, "load_text": load,
                        "targets": targets})
        doc = {"study": "bufferbloat", "count": 6, "interval_ns": STEP,
               "link": {"up": "5mbit", "down": "20mbit"},
               "queues": {"large": "tbf latency 300ms",
                          "small": "tbf latency 10ms"}, "runs": out}
        doc.update(over)
        return self.write("study.json", doc)

    def test_page(self):
        s = self.study()
        files, plots = self.plot("bloat", s)
        self.assertEqual(files, ["./bloat-page.png"])
        runs = {(r["queue"], r["load"]): r for r in plots[0]["runs"]}
        self.assertEqual(len(runs), 8)
        big = runs[("large", "upload")]["destinations"][0]
        small = runs[("small", "upload")]["destinations"][0]
        idle = runs[("large", "none")]["destinations"][1]
        self.assertEqual(big["p50_ns"], PCT_LOADED[0])
        self.assertEqual(small["p50_ns"], PCT_LOADED[0] // 100)
        self.assertEqual(idle["rtt_ns"], [r for r in IDLE if r])
        self.assertEqual(big["lost"], 2)
        self.assertAlmostEqual(big["lost_t_s"][0], 0.6, places=6)

    def test_page_of_one_queue_one_load(self):
        s = self.study([("small", "download")])
        files, plots = self.plot("bloat", s, "-o", "one.png")
        self.assertEqual(files, ["one.png"])
        self.assertEqual([(r["queue"], r["load"]) for r in plots[0]["runs"]],
                         [("small", "download")])

    def test_errors(self):
        p = self.plot("bloat", self.write("x.json", {"runs": []}), ok=False)
        self.assertIn("not a bufferbloat study", p.stderr)
        p = self.plot("bloat", os.path.join(self.dir, "none.json"), ok=False)
        self.assertIn("no such file", p.stderr)
        p = self.plot("bloat", self.study([("large", "sideways")]), ok=False)
        self.assertIn("a load none, upload, download or both", p.stderr)
        s = self.study([("large", "none")])
        with open(s, encoding="utf-8") as f:
            doc = json.load(f)
        doc["runs"][0]["targets"][0]["json"] = "large-none/gone.json"
        p = self.plot("bloat", self.write("study.json", doc), ok=False)
        self.assertIn("gone.json: no such file", p.stderr)


def main():
    suite = unittest.defaultTestLoader.loadTestsFromModule(
        sys.modules[__name__])
    res = unittest.TextTestRunner(verbosity=2).run(suite)
    bad = len(res.failures) + len(res.errors)
    skipped = len(res.skipped)
    print(f"plot: {res.testsRun - bad - skipped} passed, {bad} failed, "
          f"{skipped} skipped")
    return 0 if res.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
