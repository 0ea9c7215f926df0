# SPDX-License-Identifier: GPL-2.0-or-later
"""rant-plot fleet and paths (rant --targets, --paths): targets by time
from the fleet's log, and each path of the worst targets."""


import numpy as np

from .draw import new_figure, plt_module, us_or_nan
from .outfile import save
from .runs import InputError, NS_PER_US


FLEET_ROWS_MAX = 200    # targets in a heatmap (the worst, by their p99)
FLEET_PATH_TARGETS = 4  # targets in a path comparison


def load_fleet_log(path):
    """A fleet's log (rant --targets -l): per row its target, time (s) and
    round trip (ns, None when lost), by the columns' names."""
    with open(path, encoding="ascii", errors="replace") as f:
        names = f.readline().split()
        if "TARGET" not in names or "RTT" not in names:
            raise InputError(f"{path}: no TARGET and RTT columns: give the "
                             "log of rant --targets -l FILE")
        f.readline()
        ti = names.index("TARGET")
        ri = names.index("RTT")
        si = next((i for i, n in enumerate(names) if n.startswith("T1_")
                   and n != "T1_SW"), None)
        rows = []
        for lineno, line in enumerate(f, start=3):
            tok = line.split()
            if not tok:
                continue
            try:
                t = float(tok[si]) if si is not None and tok[si] != "-" else None
                rtt = int(tok[ri]) if tok[ri] != "-" else None
                rows.append((tok[ti], t, rtt))
            except (ValueError, IndexError):
                raise InputError(f"{path}:{lineno}: not a row of rant's log; "
                                 "give the file rant --targets -l wrote") from None
    if not rows:
        raise InputError(f"{path}: the log has no rows")
    return rows


def fleet_matrix(rows, nbins):
    """Targets (worst p99 first) by time bins: the p99 (ns) of each bin, NaN
    where a bin has no round trip; the bins' edges (s from the first)."""
    t0 = min(r[1] for r in rows if r[1] is not None)
    t1 = max(r[1] for r in rows if r[1] is not None)
    width = max((t1 - t0) / nbins, 1e-9)
    by = {}
    for target, t, rtt in rows:
        if t is None or rtt is None:
            continue
        b = min(int((t - t0) / width), nbins - 1)
        by.setdefault(target, [[] for _ in range(nbins)])[b].append(rtt)
    if not by:
        raise InputError("no round trip in the log (every ping lost?)")
    every = {k: np.percentile(np.concatenate([np.array(b, dtype=float)
                                              for b in v if b]), 99)
             for k, v in by.items()}
    order = sorted(by, key=lambda k: -every[k])[:FLEET_ROWS_MAX]
    m = np.full((len(order), nbins), np.nan)
    for i, k in enumerate(order):
        for j, b in enumerate(by[k]):
            if b:
                m[i, j] = np.percentile(np.array(b, dtype=float), 99)
    return order, m, np.arange(nbins + 1) * width


def plot_fleet_heatmap(run, opts, path, dump):
    """Targets by time, each cell its p99 in that bin (log colour)."""
    if not run.log_path:
        raise InputError("fleet: give the fleet's log (--log FILE of rant "
                         "--targets -l FILE)")
    plt_module()
    from matplotlib.colors import LogNorm
    rows = load_fleet_log(run.log_path)
    order, m, edges = fleet_matrix(rows, opts.bins)
    every = len({r[0] for r in rows})
    fig, ax = new_figure(opts)
    ok = m[~np.isnan(m)]
    im = ax.imshow(m / NS_PER_US, aspect="auto", interpolation="nearest",
                   cmap="viridis", origin="upper",
                   norm=LogNorm(vmin=max(ok.min() / NS_PER_US, 1e-3),
                                vmax=ok.max() / NS_PER_US),
                   extent=(edges[0], edges[-1], len(order) - 0.5, -0.5))
    fig.colorbar(im, ax=ax, label="p99 round trip (µs)")
    ax.set_xlabel("time (s from the first ping)")
    ax.set_ylabel("target")
    step = max(1, len(order) // 40)
    ax.set_yticks(range(0, len(order), step))
    ax.set_yticklabels(order[::step], fontsize=7)
    shown = f"{len(order)} targets" if len(order) == every else \
        f"the worst {len(order)} of {every} targets"
    ax.set_title(f"{run.label}: p99 by target and time ({shown}, worst on top; "
                 "grey: no round trip)")
    ax.set_facecolor("0.85")
    dump.append({"plot": "fleet", "targets": order, "p99_ns": m.tolist(),
                 "edges_s": edges})
    save(fig, path, opts)
    return path


def fleet_targets_with_paths(doc):
    """The targets with --paths, those with a path named first, worst first
    as the JSON has them."""
    ts = [t for t in doc.get("targets", []) if t.get("paths")]
    if not ts:
        raise InputError("paths: no target has paths: give the JSON of "
                         "rant --targets --paths N -j FILE")
    named = [t for t in ts if any(p.get("named") for p in t["paths"])]
    return (named + [t for t in ts if t not in named])[:FLEET_PATH_TARGETS]


def plot_fleet_paths(run, opts, path, dump):
    """Each path of the worst targets: its p50 (dot) up to its p99 (tick),
    the paths the diagnosis named in red, loss % beside."""
    plt_module()
    ts = fleet_targets_with_paths(run.doc)
    fig, axes = new_figure(opts, nrows=len(ts), squeeze=False)
    data = []
    for ax, t in zip(axes[:, 0], ts):
        key = "flow_label" if "flow_label" in t["paths"][0] else "source_port"
        ids = [p[key] for p in t["paths"]]
        p50 = [p["metrics"]["rtt"]["percentiles"]["50"] for p in t["paths"]]
        p99 = [p["metrics"]["rtt"]["percentiles"]["99"] for p in t["paths"]]
        loss = [100.0 * p["counts"]["lost"] / p["counts"]["sent"]
                if p["counts"]["sent"] else 0.0 for p in t["paths"]]
        named = [bool(p.get("named")) for p in t["paths"]]
        x = np.arange(len(ids))
        colors = ["tab:red" if n else "tab:blue" for n in named]
        ax.vlines(x, us_or_nan(p50), us_or_nan(p99), colors=colors, lw=1.5)
        ax.scatter(x, us_or_nan(p50), s=40, color=colors, label="p50", zorder=3)
        ax.scatter(x, us_or_nan(p99), marker="_", s=200, color="black",
                   label="p99", zorder=3)
        ax.set_yscale("log")
        ax.set_xticks(x)
        ax.set_xticklabels([str(i) for i in ids], rotation=60, fontsize=7)
        ax.set_ylabel("µs")
        ax.set_title(f"{t['peer']}: each path's p50 and p99 (red: named "
                     f"{', '.join(sorted({k for p in t['paths'] for k in p.get('named', [])})) or 'none'})",
                     fontsize=9)
        lx = ax.twinx()
        lx.plot(x, loss, color="darkorange", marker="D", ms=4, ls="",
                label="loss %")
        lx.set_ylabel("loss %")
        lx.set_ylim(0, max(1.0, 1.15 * max(loss, default=0.0)))
        if ax is axes[0, 0]:
            h0, l0 = ax.get_legend_handles_labels()
            h1, l1 = lx.get_legend_handles_labels()
            lx.legend(h0 + h1, l0 + l1, loc="upper left", fontsize=8)
        data.append({"target": t["peer"], "paths": ids, "p50_ns": p50,
                     "p99_ns": p99, "loss_pct": loss, "named": named})
    axes[-1, 0].set_xlabel("source port (flow label with --flow-label)")
    fig.tight_layout()
    dump.append({"plot": "paths", "targets": data})
    save(fig, path, opts)
    return path
