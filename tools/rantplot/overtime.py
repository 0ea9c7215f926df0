# SPDX-License-Identifier: GPL-2.0-or-later
"""rant-plot time: the main metric over time (per transaction from the
log, or per interval from the JSON's series), breaches and lost pings
marked, loss % on a second axis."""

import math

import numpy as np

from .draw import fmt_us, new_figure, us, us_or_nan
from .percentile import bin_counts
from .outfile import save
from .runs import InputError, NS_PER_US


SCATTER_MAX = 300000    # points drawn per transaction (all above p99)


def time_origin(run):
    """The run's start, in s: the JSON's start_ns, else the log's first row."""
    if run.doc.get("start_ns"):
        return run.doc["start_ns"] / 1e9
    return float(run.log["t_s"][0]) if run.log else 0.0


def series_of(run):
    """The JSON's per-interval series, with t in s from the run's start."""
    series = run.doc.get("series") or []
    t0 = run.doc.get("start_ns") or 0
    out = []
    for s in series:
        t = s.get("t_ns", 0)
        t = t - t0 if t > 1e15 else t
        sent = s.get("sent") or 0
        dur = s.get("duration_ns")
        out.append({"t_s": t / 1e9, "loss_pct": 100.0 * (s.get("lost") or 0)
                    / sent if sent else 0.0,
                    "end_s": (t + dur) / 1e9 if dur else None,
                    **{k: s.get(k) for k in ("sent", "received", "lost",
                                             "in_flight", "late", "min",
                                             "p50", "p99", "max")}})
    return out


def breach_seqs(run):
    """Transactions above the run's threshold, (seq, t in s from the run's
    start, value in ns):
    from the log where given (every one), else the JSON's breaches (rant
    keeps the first ones), at their T1 (T2 reflecting) wire stamp."""
    thr = (run.doc.get("config") or {}).get("threshold_ns") or 0
    if run.log and thr:
        m = run.log["value_ns"] > thr
        return list(zip(run.log["seq"][m].tolist(),
                        (run.log["t_s"][m] - time_origin(run)).tolist(),
                        run.log["value_ns"][m].tolist()))
    out = []
    for b in run.doc.get("breaches") or []:
        st = b.get("stamps") or {}
        keys = [k for k in st if k[:3] in ("T1_", "T2_")]
        keys.sort(key=lambda k: (k.endswith("_SW"), k))
        if keys:
            t_ns = st[keys[0]] - (run.doc.get("start_ns") or 0)
            t_s = t_ns / 1e9 - (0 if run.doc.get("start_ns") else
                                time_origin(run))
            out.append((b.get("seq"), t_s, b.get("latency")))
    return out


def lost_of(run):
    """Lost pings of a log, (seqs, times in s): its rows marked LOST (rant
    logs every lost ping, -L or not). A log without the LOST column (an
    older rant's) has them as the sequence numbers missing between rows;
    in a rant log a missing seq is no loss (a sweep's warm-up between its
    sizes, a ping whose send failed)."""
    rows, gaps = run.log["lost_rows"], run.log["gaps"]
    if run.log.get("has_lost_col", True):
        return rows
    seq = np.concatenate([rows[0], gaps[0]])
    order = np.argsort(seq, kind="stable")
    return seq[order], np.concatenate([rows[1], gaps[1]])[order]


def lost_count(run, drawn):
    """The run's lost count for a legend: the JSON's (the summary's, the
    metrics'), and what the log drew of it when that differs (a log that
    dropped rows, -S's ring)."""
    n = ((run.doc.get("counts") or {}).get("lost"))
    if n is None or n == drawn:
        return f"{drawn}"
    return f"{n}, {drawn} of them in this log"


def loss_bins(run, nbins=100):
    """Loss % per time bin from the log: lost / (received + lost)."""
    t0 = time_origin(run)
    ts = run.log["t_s"] - t0
    lt = lost_of(run)[1] - t0
    both = np.concatenate([ts, lt])
    lo, hi = float(both.min()), float(both.max())
    width = max((hi - lo) / nbins, 1e-9)
    edges = [lo + k * width for k in range(nbins + 1)]
    ok = bin_counts(edges, ts)
    lost = bin_counts(edges, lt)
    pct = [100.0 * b / (a + b) if a + b else 0.0 for a, b in zip(ok, lost)]
    return {"edges_s": edges, "lost": lost, "received": ok, "loss_pct": pct}


def time_data(run):
    """What the over-time plot of one run is built from."""
    if not run.log and not run.doc.get("series"):
        raise InputError(f"{run.path}: no time data; give the run's log with "
                         "--log FILE (rant -l) or a JSON with 'series' "
                         "(interval reports)")
    t0 = time_origin(run)
    d = {"run": run.label, "metric": run.metric,
         "threshold_ns": (run.doc.get("config") or {}).get("threshold_ns"),
         "breaches": [{"seq": s, "t_s": t, "value_ns": v}
                      for s, t, v in breach_seqs(run)]}
    if run.log:
        log = run.log
        lseq, lt = lost_of(run)
        d.update(source="log", transactions=len(log["seq"]),
                 t_s=log["t_s"] - t0, value_ns=log["value_ns"],
                 lost={"seq": lseq, "t_s": lt - t0}, loss=loss_bins(run))
    if run.doc.get("series"):
        d["series"] = series_of(run)
        if not run.log:
            d["source"] = "series"
    return d


def scatter_rows(values):
    """Rows to draw per transaction: all of them up to SCATTER_MAX, else
    every row above p99 and every Nth of the rest; (mask, N)."""
    n = len(values)
    if n <= SCATTER_MAX:
        return np.ones(n, dtype=bool), 1
    stride = math.ceil(n / SCATTER_MAX)
    keep = np.arange(n) % stride == 0
    keep |= values > np.sort(values)[min(n - 1, math.ceil(0.99 * n) - 1)]
    return keep, stride


def draw_loss_axis(ax, xs, pct, color="darkorange", label="loss %", ls="-"):
    ax2 = ax.twinx()
    ax2.plot(xs, pct, ls, color=color, lw=1, label=label,
             drawstyle="steps-post")
    ax2.set_ylabel("loss % (per bin)", color=color)
    ax2.set_ylim(0, max(5.0, max(pct or [0]) * 1.15))
    ax2.grid(False)
    return ax2


def plot_time(run, opts, path, dump):
    d = time_data(run)
    fig, ax = new_figure(opts, layout="constrained")
    label = (run.stats() or {}).get("label", run.metric)
    if d["source"] == "log":
        keep, stride = scatter_rows(d["value_ns"])
        d["drawn_every"] = stride
        ax.plot(d["t_s"][keep], d["value_ns"][keep] / NS_PER_US, ".",
                ms=1.5, color="steelblue", alpha=0.5, rasterized=True)
        some = "" if stride == 1 else f" (above p99 all, below 1 in {stride})"
        ax.plot([], [], ".", ms=6, color="steelblue",
                label=f"{label}, per transaction{some}")
        lost = d["lost"]["t_s"]
        ax.plot(lost, [0.03] * len(lost), "|", ms=12, color="black",
                transform=ax.get_xaxis_transform())
        d["lost_legend"] = lost_count(run, len(lost))
        ax.plot([], [], "|", ms=8, color="black",
                label=f"lost ({d['lost_legend']}), at the bottom")
        loss = d["loss"]
        ax2 = draw_loss_axis(ax, loss["edges_s"][:-1], loss["loss_pct"])
    else:
        ax2 = draw_series(ax, d["series"])
    if d.get("series") and d["source"] == "log":
        draw_series(ax, d["series"], lines_only=True)
    if d["breaches"]:
        ax.plot([b["t_s"] for b in d["breaches"]],
                [us(b["value_ns"]) for b in d["breaches"]], "x",
                color="crimson", ms=6, label=f"breach ({len(d['breaches'])})")
    if d["threshold_ns"]:
        ax.axhline(us(d["threshold_ns"]), color="crimson", ls=":", lw=1,
                   label=f"threshold {fmt_us(d['threshold_ns'])}")
    ax.set_yscale("log")
    ax.set_xlabel("time since the start of the run (s)")
    ax.set_ylabel(f"{label} (µs)")
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, loc="upper center", fontsize=8, ncol=3,
              bbox_to_anchor=(0.5, -0.08))
    per = "transaction" if d["source"] == "log" else "interval"
    fig.suptitle(f"{run.label}: {label} per {per}, breaches and loss")
    dump.append({"kind": "time", "file": path, **d})
    return save(fig, path, opts)


def step_ends(xs, ys, end):
    """A steps-post line draws its last value as a point: where the last
    interval's end is known, one more point draws its width too."""
    xs, ys = list(xs), list(ys)
    if xs and end is not None and end > xs[-1]:
        return xs + [end], ys + [ys[-1]]
    return xs, ys


def draw_series(ax, series, lines_only=False):
    ts = [s["t_s"] for s in series]
    end = series[-1].get("end_s") if series else None
    for key, style in (("p50", "-"), ("p99", "--"), ("max", ":")):
        xs, ys = step_ends(ts, us_or_nan([s.get(key) for s in series]), end)
        ax.plot(xs, ys, style, lw=1.2, color="navy",
                label=f"{key} per interval", drawstyle="steps-post")
    if not lines_only:
        xs, mins = step_ends(ts, us_or_nan([s.get("min") for s in series]),
                             end)
        _, maxs = step_ends(ts, us_or_nan([s.get("max") for s in series]),
                            end)
        ax.fill_between(xs, mins, maxs, step="post", alpha=0.15,
                        color="steelblue", label="min to max")
        return draw_loss_axis(ax, *step_ends(
            ts, [s["loss_pct"] for s in series], end))
    return None
