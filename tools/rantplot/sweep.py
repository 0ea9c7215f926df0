# SPDX-License-Identifier: GPL-2.0-or-later
"""rant-plot sweep: p50 and p99 against payload size with the fitted
line, several sweep runs overlaid, the regimes (cliffs, fragmentation)
marked."""

import math

from .draw import fmt_us, new_figure, plt_module, us
from .outfile import save
from .runs import InputError


def sweep_points(runs):
    """(size, stats) of every run: one per plain run (config.size), every
    entry of a sweep run's 'sizes'."""
    pts, fit = [], None
    for run in runs:
        if run.doc.get("sizes"):
            for s in run.doc["sizes"]:
                stats = (s.get("metrics") or {}).get(run.metric) or \
                    (s.get("metrics") or {}).get("rtt")
                if stats:
                    pts.append((s["size"], stats, run.label))
            fit = fit or run.doc.get("fit")
        elif run.stats() and (run.doc.get("config") or {}).get("size"):
            pts.append((run.doc["config"]["size"], run.stats(), run.label))
    return sorted(pts, key=lambda p: p[0]), fit


def least_squares(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        raise InputError("sweep: every run has the same size; give runs of "
                         "at least two sizes (rant -m)")
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return my - slope * mx, slope


def sweep_data(runs):
    pts, fit = sweep_points(runs)
    if len(pts) < 2:
        raise InputError("sweep: fewer than two sizes; give a sweep JSON "
                         "(with 'sizes') or several runs of different -m")
    sizes = [p[0] for p in pts]
    p50 = [p[1]["percentiles"]["50"] for p in pts]
    # rant's own verdict first: its line, or where no one line holds,
    # its regimes (never a line drawn across a break); a least-squares
    # line only for plain runs of one size each, which carry no fit
    regimes = next((r.doc["regimes"] for r in runs
                    if r.doc.get("sizes") and r.doc.get("regimes")), None)
    if fit:
        f = {"offset_ns": fit["offset_ns"], "ns_per_byte": fit["ns_per_byte"],
             "source": "rant"}
    elif regimes:
        f = {"regimes": regimes, "source": "rant, by regime"}
    else:
        (off, slope) = least_squares(sizes, p50)
        f = {"offset_ns": off, "ns_per_byte": slope,
             "source": "least squares on p50"}
    return {"size": sizes, "runs": [p[2] for p in pts], "p50_ns": p50,
            "p99_ns": [p[1]["percentiles"]["99"] for p in pts],
            "min_ns": [p[1]["min"] for p in pts], "fit": f}


ONE_WAY = ("owd_fwd", "owd_back")


def sweep_metric_curves(run):
    """Every metric besides rtt that a sweep run has per size, in the
    JSON's order: name -> size, p50_ns and trusted (the clocks' verdict
    on it, false when any size says untrusted)."""
    curves = {}
    for z in run.doc.get("sizes") or []:
        for name, st in (z.get("metrics") or {}).items():
            if name == "rtt" or not st.get("samples"):
                continue
            c = curves.setdefault(name, {"size": [], "p50_ns": [],
                                         "trusted": True})
            c["size"].append(z["size"])
            c["p50_ns"].append(st["percentiles"]["50"])
            c["trusted"] = c["trusted"] and st.get("trusted") is not False
    return curves


def curve_label(name, c, run=None):
    return (f"{run} " if run else "") + name + \
        ("" if c["trusted"] else " (untrusted)")


def sweep_value_axes(ax, values_ns, title):
    """Log2 sizes; a log value axis, or symlog when a value is <= 0
    (one-way delays across clocks that disagree)."""
    ax.set_xscale("log", base=2)
    if values_ns and min(values_ns) <= 0:
        ax.set_yscale("symlog", linthresh=1.0)
    else:
        ax.set_yscale("log")
    ax.set_xlabel("payload size (bytes, log2)")
    ax.set_ylabel("p50, µs")
    ax.set_title(title)


def draw_one_way(ax, curves, d):
    """The one-way delays' p50 against size (the 2003 report's plot),
    with half the round trip for scale."""
    vals = []
    for name in ONE_WAY:
        if name in curves:
            c = curves[name]
            ax.plot(c["size"], [us(v) for v in c["p50_ns"]],
                    "o-" if name == "owd_fwd" else "v-", lw=2,
                    label=curve_label(name, c))
            vals += c["p50_ns"]
    ax.plot(d["size"], [us(v) / 2 for v in d["p50_ns"]], ":", color="grey",
            label="rtt / 2")
    sweep_value_axes(ax, vals + [v / 2 for v in d["p50_ns"]],
                     "one-way delays (p50)")
    ax.legend(fontsize=8, loc="best")


def draw_components(ax, curves):
    """Every other metric's p50 against size: components (-s), response,
    emit_ack (--tcp), the senders' queues."""
    vals = []
    for name, c in curves.items():
        if name in ONE_WAY:
            continue
        ax.plot(c["size"], [us(v) for v in c["p50_ns"]], ".-",
                label=curve_label(name, c))
        vals += c["p50_ns"]
    sweep_value_axes(ax, vals, "components and other metrics (p50)")
    ax.legend(fontsize=7, loc="best", ncol=2)


def plot_sweep(runs, opts, path, dump):
    d = sweep_data(runs)
    curves = {}
    for r in runs:
        curves = curves or sweep_metric_curves(r)
    if not curves:
        fig, (al, ar) = new_figure(opts, 1, 2, layout="constrained")
    else:
        fig, ((al, ar), (bl, br)) = new_figure(opts, 2, 2,
                                               layout="constrained")
        if any(n in curves for n in ONE_WAY):
            draw_one_way(bl, curves, d)
        else:
            bl.axis("off")
            bl.text(0.5, 0.5, "no one-way delays (rant --one-way)",
                    ha="center", va="center", transform=bl.transAxes)
        if any(n not in ONE_WAY for n in curves):
            draw_components(br, curves)
        else:
            br.axis("off")
        d["metrics"] = curves
    draw_fit(al, d)
    ar.plot(d["size"], [us(v) for v in d["p50_ns"]], "o-", label="p50")
    ar.plot(d["size"], [us(v) for v in d["p99_ns"]], "s--", label="p99")
    ar.set_yscale("log")
    ar.set_xlabel("payload size (bytes)")
    ar.set_ylabel("µs")
    ar.set_title("p50 and p99 (log axis)")
    ar.legend(fontsize=9, loc="upper left")
    fig.suptitle("latency against message size")
    dump.append({"kind": "sweep", "file": path, **d})
    return save(fig, path, opts)


def sweep_series(run):
    """One sweep run as a series: sizes, p50 and p99, the breaks rant found
    (size after which, kind) and where IP fragmentation starts."""
    sizes, p50, p99 = [], [], []
    for z in run.doc.get("sizes") or []:
        st = (z.get("metrics") or {}).get("rtt")
        if st and st.get("samples"):
            sizes.append(z["size"])
            p50.append(st["percentiles"]["50"])
            p99.append(st["percentiles"]["99"])
    breaks = [(g["to"], g["then"]) for g in run.doc.get("regimes") or []
              if g.get("then")]
    return {"run": run.label, "size": sizes, "p50_ns": p50, "p99_ns": p99,
            "breaks": breaks, "fragments_above": run.doc.get("fragments_above")}


def draw_one_way_runs(ax, series, colours):
    """One-way delays of several sweeps, a colour a run."""
    vals = []
    for i, d in enumerate(series):
        for name, c in d["metrics"].items():
            if name in ONE_WAY:
                ax.plot(c["size"], [us(v) for v in c["p50_ns"]],
                        "o-" if name == "owd_fwd" else "v--",
                        color=colours[i % len(colours)],
                        label=curve_label(name, c, d["run"]))
                vals += c["p50_ns"]
    sweep_value_axes(ax, vals, "one-way delays (p50)")
    ax.legend(fontsize=8, loc="best")


def plot_sweep_overlay(runs, opts, path, dump):
    """Several sweep runs on one log2 size axis, a colour each, p50 solid
    and p99 dashed; each run's breaks marked where rant found them; their
    one-way delays beside, when they have them."""
    runs = [r for r in runs if r.doc.get("sizes")]
    series = [sweep_series(r) for r in runs]
    for d, r in zip(series, runs):
        d["metrics"] = sweep_metric_curves(r)
    colours = plt_module().rcParams["axes.prop_cycle"].by_key()["color"]
    if any(n in d["metrics"] for d in series for n in ONE_WAY):
        fig, (ax, aw) = new_figure(opts, 1, 2, layout="constrained")
        draw_one_way_runs(aw, series, colours)
    else:
        fig, ax = new_figure(opts, layout="constrained")
    frag_drawn = set()
    for i, d in enumerate(series):
        c = colours[i % len(colours)]
        ax.plot(d["size"], [us(v) for v in d["p50_ns"]], "o-", color=c,
                label=f"{d['run']} p50")
        ax.plot(d["size"], [us(v) for v in d["p99_ns"]], "s--", color=c,
                alpha=0.6, label=f"{d['run']} p99")
        for after, kind in d["breaks"]:
            nxt = [x for x in d["size"] if x > after]
            at = math.sqrt(after * nxt[0]) if nxt else after
            if kind == "IP fragmentation":
                continue
            ax.axvline(at, color=c, ls=":", lw=1.5)
            ax.annotate(f"{kind}\n{d['run']}", (at, 1), xycoords=("data",
                        "axes fraction"), color=c, fontsize=8, ha="center",
                        va="top")
        fa = d["fragments_above"]
        if fa and fa not in frag_drawn and max(d["size"], default=0) > fa:
            frag_drawn.add(fa)
            ax.axvline(fa, color="grey", ls="-.", lw=1)
            ax.annotate(f"IP fragments above {fa} B", (fa, 0.02),
                        xycoords=("data", "axes fraction"), color="grey",
                        fontsize=8, rotation=90, ha="right", va="bottom")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("payload size (bytes, log2)")
    ax.set_ylabel("µs")
    ax.legend(fontsize=8, loc="best")
    fig.suptitle("latency against message size: " +
                 ", ".join(d["run"] for d in series))
    dump.append({"kind": "sweep-overlay", "file": path, "series": series})
    return save(fig, path, opts)


def draw_regimes(ax, regimes):
    """rant's regimes: each its line or its level over its own sizes,
    the break that ends it named."""
    for g in regimes:
        lo, hi = g["from"], g["to"]
        if g.get("ns_per_byte") is not None:
            ys = [g["offset_ns"] + g["ns_per_byte"] * x for x in (lo, hi)]
            what = (f"{fmt_us(g['offset_ns'])} + "
                    f"{g['ns_per_byte']:.3g} ns/byte")
        else:
            ys = [g["level_ns"]] * 2
            what = f"flat at {fmt_us(g['level_ns'])}"
        then = f", then {g['then']}" if g.get("then") else ""
        ax.plot([lo, hi], [us(y) for y in ys], "-", lw=2, alpha=0.6,
                label=f"{lo}-{hi} B: {what}{then}")


def draw_fit(ax, d):
    """p50 against size with rant's line, or its regimes where no one
    line holds, on linear axes."""
    f = d["fit"]
    lo, hi = min(d["size"]), max(d["size"])
    ax.plot(d["size"], [us(v) for v in d["p50_ns"]], "o", color="black",
            label="p50")
    if "regimes" in f:
        draw_regimes(ax, f["regimes"])
        ax.set_title("p50 by regime: no one line holds (rant's breaks)")
    else:
        bw = (f"1/slope = {8.0 / f['ns_per_byte']:.3g} Gbit/s"
              if f["ns_per_byte"] > 0 else "the slope is not positive")
        ax.plot([0, hi], [us(f["offset_ns"]), us(f["offset_ns"] +
                                                  f["ns_per_byte"] * hi)],
                ":", color="black",
                label=f"fit ({f['source']}):\n{fmt_us(f['offset_ns'])} + "
                      f"{f['ns_per_byte']:.3g} ns/byte ({bw})")
        ax.set_title("p50 and the fitted line: offset + slope × size")
    ax.set_xlim(0, hi * 1.05 if hi > lo else hi + 1)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("payload size (bytes)")
    ax.set_ylabel("µs")
    ax.legend(fontsize=8, loc="upper left")
