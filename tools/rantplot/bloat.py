# SPDX-License-Identifier: GPL-2.0-or-later
"""rant-plot pings and bloat: destinations pinged over time as the
origin's Ping-exp drew them (each destination's round trips against
time, its lost pings marked), and the bufferbloat study of
tools/bufferbloat.sh on one page (each queue under each load, and their
p50, p99 and loss side by side)."""

import os

import numpy as np

from .draw import fmt_us, new_figure, plt_module
from .fleet import load_fleet_log
from .outfile import make_folder, save
from .runs import (InputError, load_json, load_log, load_runs, read_json,
    NS_PER_US)


LOADS = ("none", "upload", "download", "both")
QUEUES = ("large", "small")
LOST_Y = 0.96           # lost pings: at this height of the axes (a fraction)


def pick_target(doc, path, name=None, address=None):
    """A fleet JSON's target by name or address (or a run of one target:
    the document itself)."""
    targets = doc.get("targets")
    if not targets:
        return doc
    for t in targets:
        if (name and t.get("name") == name) or \
                (address and address in (t.get("address"), t.get("peer"))):
            return t
    raise InputError(f"{path}: no target named {name or address} in the "
                     "JSON's targets; give the JSON of the run that "
                     "measured it")


def target_rows(log_path, target):
    """(t in s, rtt in ns or None) of one target's rows of a fleet log."""
    keys = {target.get(k) for k in ("peer", "address", "name")} - {None}
    rows = [(t, rtt) for tgt, t, rtt in load_fleet_log(log_path)
            if tgt in keys and t is not None]
    if not rows:
        raise InputError(f"{log_path}: no row of {sorted(keys)[0]}; give the "
                         "log of the run that measured it")
    return rows


def log_rows(log_path, target, fleet):
    """The target's pings from its log: times (s, absolute) and round
    trips (ns) of those that came back, times of those lost."""
    if fleet:
        rows = target_rows(log_path, target)
        t = np.array([r[0] for r in rows])
        ok = np.array([r[1] is not None for r in rows], dtype=bool)
        v = np.array([r[1] or 0 for r in rows], dtype=np.int64)
        return t[ok], v[ok], t[~ok]
    log = load_log(log_path)
    return log["t_s"], log["value_ns"], log["lost_rows"][1]


def destination(doc, json_path, log_path, name=None, address=None):
    """One destination: its label, counts and percentiles from the JSON,
    its pings over time from the log (times in s, absolute)."""
    t = pick_target(doc, json_path, name, address)
    rtt = (t.get("metrics") or {}).get("rtt") or {}
    pct = rtt.get("percentiles") or {}
    c = t.get("counts") or {}
    sent = c.get("sent") or 0
    addr = address or t.get("address") or (doc.get("config") or {}).get(
        "address")
    d = {"name": name or t.get("name") or addr or json_path,
         "address": addr, "sent": sent, "lost": c.get("lost") or 0,
         "loss_pct": 100.0 * (c.get("lost") or 0) / sent if sent else 0.0,
         "p50_ns": pct.get("50"), "p99_ns": pct.get("99"),
         "max_ns": rtt.get("max"), "json": json_path, "log": log_path}
    if log_path:
        d["t_abs"], d["rtt_ns"], d["lost_abs"] = log_rows(
            log_path, t, t is not doc)
    return d


def relative(dests):
    """The destinations' times from the first ping of any of them (a lost
    one's too): a fleet's start_ns is before its warm-up."""
    firsts = [float(a[0]) for d in dests for a in (d.get("t_abs", []),
                                                  d.get("lost_abs", []))
              if len(a)]
    start_s = min(firsts) if firsts else 0.0
    for d in dests:
        if "t_abs" in d:
            d["t_s"] = d.pop("t_abs") - start_s
            d["lost_t_s"] = d.pop("lost_abs") - start_s
    return dests


def rtt_label(v_us):
    """A tick's label: 10 µs, 100 µs, 1 ms, 300 ms, 1 s."""
    if v_us <= 0:
        return "0"
    for unit, scale in (("s", 1e6), ("ms", 1e3)):
        if v_us >= scale:
            return f"{v_us / scale:g} {unit}"
    return f"{v_us:g} µs"


def us_ticks(ax, lo=None, hi=None):
    """An axis of round trips in µs, labelled as fmt_us does (30 µs, 2 ms):
    a log axis where they span a decade or more (or lo and hi are not
    given), linear within one."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    fmt = FuncFormatter(lambda v, _: rtt_label(v))
    if lo is not None and hi is not None and 0 < lo and hi < 10 * lo:
        ax.yaxis.set_major_formatter(fmt)
        return
    ax.set_yscale("log")
    # 1, 2 and 5 a decade where the round trips span under three
    few = lo is not None and hi is not None and 0 < lo and hi < 1000 * lo
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1, 2, 5) if few
                                          else (1,)))
    ax.yaxis.set_major_formatter(fmt)
    ax.yaxis.set_minor_formatter(NullFormatter())


def draw_pings(ax, dests, small=False):
    """Each destination's round trips against time (dots) and its lost
    pings (crosses at the top), a colour each; its legend entry."""
    cmap = plt_module().get_cmap("tab10")
    for i, d in enumerate(dests):
        c = cmap(i)
        if "t_s" not in d:
            raise InputError(f"{d['json']}: no log; give the run's log "
                             "(--log FILE of rant -l FILE)")
        ax.plot(d["t_s"], d["rtt_ns"] / NS_PER_US, ".", ms=2 if small else 3,
                color=c, alpha=0.7, rasterized=True)
        ax.plot(d["lost_t_s"], [LOST_Y - 0.03 * i] * len(d["lost_t_s"]), "x",
                ms=4 if small else 6, color=c,
                transform=ax.get_xaxis_transform())
        text = (f"{d['name']}: p50 {fmt_us(d['p50_ns'])}, p99 "
                f"{fmt_us(d['p99_ns'])}, lost {d['lost']} of {d['sent']}"
                if d["p50_ns"] is not None else
                f"{d['name']}: no reply, lost {d['lost']} of {d['sent']}")
        ax.plot([], [], ".", ms=8, color=c, label=text)
    ax.plot([], [], "x", ms=6, color="0.3", label="lost (at the top)")
    vals = [d["rtt_ns"] for d in dests if len(d["rtt_ns"])]
    if small or not vals:
        us_ticks(ax)
    else:
        us_ticks(ax, min(v.min() for v in vals) / NS_PER_US,
                 max(v.max() for v in vals) / NS_PER_US)


def plot_pings(runs, opts, path, dump):
    """rant-plot pings: the given runs' destinations on one picture."""
    dests = []
    for r in runs:
        ts = r.doc.get("targets") or [None]
        for t in ts:
            dests.append(destination(
                r.doc, r.path, r.log_path,
                name=(t or {}).get("name") or (r.label if len(ts) == 1 and
                                               len(runs) > 1 else None),
                address=(t or {}).get("address")))
    relative(dests)
    fig, ax = new_figure(opts, layout="constrained")
    draw_pings(ax, dests)
    ax.set_xlabel("time since the pings began (s)")
    ax.set_ylabel("round trip")
    ax.legend(fontsize=9, loc="upper center", bbox_to_anchor=(0.5, -0.1),
              ncol=2)
    fig.suptitle(opts.title or "round trip of each ping against time, lost "
                 "pings marked: " + ", ".join(d["name"] for d in dests))
    dump.append({"kind": "pings", "file": path, "destinations": dests})
    return save(fig, path, opts)


def cmd_pings(opts, dump):
    runs = load_runs(opts)
    if not opts.output:
        raise InputError("pings draws one picture of every run given: name "
                         "it with -o FILE")
    return [plot_pings(runs, opts, opts.output, dump)]


# ---- the study ----

def load_study(path):
    """tools/bufferbloat.sh's study.json: its runs, each destination read
    from its JSON and log (paths relative to the study's folder)."""
    study = read_json(path, "give the study.json that tools/bufferbloat.sh "
                      "wrote")
    if not isinstance(study, dict) or study.get("study") != "bufferbloat" \
            or not study.get("runs"):
        raise InputError(f"{path}: not a bufferbloat study with runs; give "
                         "the study.json that tools/bufferbloat.sh wrote")
    top = os.path.dirname(os.path.abspath(path))
    for run in study["runs"]:
        if run.get("queue") not in QUEUES or run.get("load") not in LOADS:
            raise InputError(f"{path}: a run of queue {run.get('queue')!r} "
                             f"and load {run.get('load')!r}: a queue is "
                             "large or small, a load none, upload, download "
                             "or both; give the study.json that "
                             "tools/bufferbloat.sh wrote")
        dests = []
        for t in run.get("targets") or []:
            jp = os.path.join(top, t["json"])
            lp = os.path.join(top, t["log"]) if t.get("log") else None
            dests.append(destination(load_json(jp), jp, lp, t.get("name"),
                                     t.get("address")))
        if not dests:
            raise InputError(f"{path}: the run {run['queue']}-{run['load']} "
                             "has no targets")
        run["destinations"] = dests
    return study


def study_runs(study):
    """The study's runs by (queue, load), the queues and loads it has in
    their order."""
    by = {(r["queue"], r["load"]): r for r in study["runs"]}
    queues = [q for q in QUEUES if any(k[0] == q for k in by)]
    loads = [ld for ld in LOADS if any(k[1] == ld for k in by)]
    return by, queues, loads


def y_limits(study):
    """One range of round trips for every panel (µs): the least and the
    largest round trip of the study, with a margin."""
    vals = np.concatenate([d["rtt_ns"] for r in study["runs"]
                           for d in r["destinations"] if len(d["rtt_ns"])]
                          or [np.array([1000.0])])
    lo, hi = max(float(vals.min()), 1.0), float(vals.max())
    return lo / NS_PER_US / 2, hi / NS_PER_US * 3


def queue_text(study, q):
    return f"{q} queue ({study.get('queues', {}).get(q, '?')})"


def draw_summary(ax_lat, ax_loss, study, by, queues, loads):
    """p50 (bar) and p99 (tick) per run and destination, and loss %."""
    cmap = plt_module().get_cmap("tab10")
    hatch = {"large": "", "small": "//"}
    names = [d["name"] for d in study["runs"][0]["destinations"]]
    width = 0.8 / max(1, len(queues) * len(names))
    for qi, q in enumerate(queues):
        for di, name in enumerate(names):
            k = qi * len(names) + di
            xs, p50, p99, loss = [], [], [], []
            for li, ld in enumerate(loads):
                run = by.get((q, ld))
                d = next((x for x in run["destinations"] if x["name"] == name),
                         None) if run else None
                if d is None:
                    continue
                xs.append(li - 0.4 + width * (k + 0.5))
                p50.append((d["p50_ns"] or 0) / NS_PER_US)
                p99.append((d["p99_ns"] or 0) / NS_PER_US)
                loss.append(d["loss_pct"])
            label = f"{q}, {name}"
            ax_lat.bar(xs, p50, width, color=cmap(di), hatch=hatch[q],
                       edgecolor="black", lw=0.5, label=f"{label}: p50")
            ax_lat.plot(xs, p99, "_", ms=14, mew=2, color="black")
            ax_loss.bar(xs, loss, width, color=cmap(di), hatch=hatch[q],
                        edgecolor="black", lw=0.5, label=label)
    ax_lat.plot([], [], "_", ms=14, mew=2, color="black", label="p99")
    for ax in (ax_lat, ax_loss):
        ax.set_xticks(range(len(loads)))
        ax.set_xticklabels([by_load_text(by, ld) for ld in loads], fontsize=8)
    us_ticks(ax_lat)
    ax_lat.set_title("p50 (bar) and p99 (tick) of each run")
    ax_lat.legend(fontsize=7, ncol=2, loc="upper left")
    ax_loss.set_ylabel("loss %")
    ax_loss.set_ylim(0, max([1.0] + [d["loss_pct"] * 1.2 for r in study["runs"]
                                     for d in r["destinations"]]))
    ax_loss.set_title("pings lost (no reply within 1 s)")
    ax_loss.legend(fontsize=7, loc="upper left")


def by_load_text(by, load):
    return next((r.get("load_text") for (q, ld), r in by.items() if ld == load
                 and r.get("load_text")), load)


def plot_bloat(study, opts, path, dump):
    """The study on one page: a panel a run (queues by rows, loads by
    columns, one range of round trips), the runs' figures below."""
    by, queues, loads = study_runs(study)
    fig = plt_module().figure(figsize=(opts.size[0] / 100, opts.size[1] / 100),
                              dpi=100, layout="constrained")
    grid = fig.add_gridspec(len(queues) + 1, max(len(loads), 2),
                            height_ratios=[1] * len(queues) + [1.1])
    lo, hi = y_limits(study)
    for r in study["runs"]:
        relative(r["destinations"])
    for qi, q in enumerate(queues):
        for li, ld in enumerate(loads):
            ax = fig.add_subplot(grid[qi, li])
            run = by.get((q, ld))
            if run is None:
                ax.set_axis_off()
                continue
            draw_pings(ax, run["destinations"], small=True)
            ax.set_ylim(lo, hi)
            ax.set_title(f"{q} queue, {run.get('load_text', ld)}", fontsize=9)
            ax.legend(fontsize=6, loc="best")
            if li == 0:
                ax.set_ylabel(f"{queue_text(study, q)}\nround trip", fontsize=8)
            if qi == len(queues) - 1:
                ax.set_xlabel("s since the pings began", fontsize=8)
    half = max(len(loads), 2) // 2
    ax_lat = fig.add_subplot(grid[len(queues), :half])
    ax_loss = fig.add_subplot(grid[len(queues), half:])
    draw_summary(ax_lat, ax_loss, study, by, queues, loads)
    link = study.get("link") or {}
    fig.suptitle(opts.title or
                 f"bufferbloat: ICMP echo {1e9 / study.get('interval_ns', 2e8):g}"
                 f" a second to each destination, through tbf up "
                 f"{link.get('up', '?')}, down {link.get('down', '?')}: "
                 + "; ".join(queue_text(study, q) for q in queues))
    dump.append({"kind": "bloat", "file": path, "runs": [
        {k: r[k] for k in ("queue", "load", "destinations")}
        for r in study["runs"]]})
    return save(fig, path, opts)


def cmd_bloat(opts, dump):
    study = load_study(opts.study[0])
    path = opts.output or os.path.join(opts.out_dir, "bloat-page." +
                                       ("svg" if opts.svg else "png"))
    if not opts.output:
        make_folder(opts.out_dir)
    return [plot_bloat(study, opts, path, dump)]
