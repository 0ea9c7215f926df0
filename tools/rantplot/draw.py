# SPDX-License-Identifier: GPL-2.0-or-later
"""What every picture shares: matplotlib (Agg) and a figure of the
requested size, ns shown as us, the value and nines axes, percentile
curves and histograms."""



from .percentile import nines
from .runs import InputError, NS_PER_US


NINES_TICKS = (0, 90, 99, 99.9, 99.99, 99.999)


def plt_module():
    try:
        import matplotlib
    except ImportError:
        raise InputError("needs matplotlib: sudo make deps (Debian "
                         "python3-matplotlib), run with /usr/bin/python3") \
            from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({"font.size": 10, "axes.titlesize": 11,
                         "figure.titlesize": 12, "axes.grid": True,
                         "grid.alpha": 0.3})
    return plt


def new_figure(opts, nrows=1, ncols=1, **kw):
    plt = plt_module()
    w, h = opts.size
    fig, axes = plt.subplots(nrows, ncols, figsize=(w / 100.0, h / 100.0),
                             dpi=100, **kw)
    return fig, axes


def us(v):
    return v / NS_PER_US


def us_or_nan(values_ns):
    """ns -> µs for a line, None (no data) -> NaN (a gap)."""
    return [float("nan") if v is None else us(v) for v in values_ns]


def fmt_us(v_ns):
    v = us(v_ns)
    if abs(v) >= 1000:
        return f"{v / 1000:.3g} ms"
    return f"{v:.3g} µs" if abs(v) < 100 else f"{v:.0f} µs"


def set_value_scale(ax, axis, lo_ns):
    setter = ax.set_yscale if axis == "y" else ax.set_xscale
    if lo_ns > 0:
        setter("log")
    else:
        setter("symlog", linthresh=1.0)


def nines_axis(ax, top=5.0):
    ticks = [nines(p) for p in NINES_TICKS]
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{p:g}%" if p else "0%" for p in NINES_TICKS])
    ax.set_xlim(0, max(top, 5.0) + 0.2)
    ax.set_xlabel("percentile")


def draw_percentiles(ax, d, color=None, label=None, annotate=True):
    xs = [nines(min(p, 99.9999)) for p in d["curve"]["percentile"]]
    ys = [us(v) for v in d["curve"]["value_ns"]]
    style = "-" if d["source"] != "histogram" else "-o"
    ax.plot(xs, ys, style, color=color, label=label, lw=1.5, ms=3,
            drawstyle="steps-post" if d["source"] == "hdr" else "default")
    if not annotate:
        return
    m = d["marks_ns"]
    pos = {"min": 0.0, "p50": nines(50), "p99": nines(99),
           "p99.9": nines(99.9), "max": xs[-1]}
    for name, v in m.items():
        ax.plot([pos[name]], [us(v)], "o", color="crimson", ms=5, zorder=5)
        if name not in ("min", "p50"):
            ax.annotate(name, (pos[name], us(v)), textcoords="offset points",
                        xytext=(-8, 6), ha="right", fontsize=9,
                        color="crimson")
    ax.text(0.03, 0.97, "\n".join(f"{k:>6} {fmt_us(v)}" for k, v in m.items()),
            transform=ax.transAxes, va="top", ha="left", fontsize=9,
            family="monospace", color="crimson",
            bbox={"facecolor": "white", "edgecolor": "crimson", "alpha": 0.9})


def draw_histogram(ax, h, color=None, label=None, step=False):
    if h["kind"] == "log":
        edges = [us(e) for e in h["edges_ns"]]
        ax.set_xscale("log")
    else:
        edges = [us(s) for s in h["start_ns"]]
        edges.append(edges[-1] + us(h["bucket_ns"]) if edges else 1)
    if not h["counts"]:
        return
    if step:
        ax.stairs(h["counts"], edges, color=color, label=label, lw=1.5)
    else:
        ax.stairs(h["counts"], edges, fill=True, color=color or "steelblue",
                  alpha=0.8, label=label)
    ax.set_yscale("log")
    ax.set_ylabel("transactions per bin")
