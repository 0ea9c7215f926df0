# SPDX-License-Identifier: GPL-2.0-or-later
"""rant-plot trace (rant trace -j): each path's RTT by hop, and the paths
by hops coloured by the p50's increment, the verdict's delay step marked
on both."""

import math

import numpy as np

from .draw import new_figure, plt_module
from .outfile import save
from .runs import InputError, NS_PER_US

def trace_paths(doc):
    """rant trace's paths by source port (echo id for ICMP): (id, path),
    and the delay steps of its diagnosis: ttl -> the ids they name."""
    if doc.get("mode") != "trace" or not doc.get("paths"):
        raise InputError("trace: give the JSON of rant trace -j FILE")
    key = "echo_id" if "echo_id" in doc["paths"][0] else "source_port"
    paths = sorted(((p[key], p) for p in doc["paths"]), key=lambda x: x[0])
    steps = {}
    for d in doc.get("diagnosis", []):
        if d["kind"] == "delay_step":
            steps.setdefault(d["ttl"], set()).update(d["source_ports"])
    return key, paths, steps


def hop_marks(h):
    """min, p50, max (ns) of a hop, None for `*`."""
    st = h["metrics"].get("rtt")
    if not st or not h.get("address"):
        return None
    return st["min"], st["percentiles"]["50"], st["max"]


def draw_trace_rtt(ax, paths, steps, ttls):
    """Each path's p50 by hop, min-max whiskers; the delay step's paths red."""
    stepped = set().union(*steps.values()) if steps else set()
    n = len(paths)
    # side by side within a hop: the delay step's paths together
    for i, (pid, p) in enumerate(sorted(paths, key=lambda x: x[0] not in stepped)):
        marks = [hop_marks(h) for h in p["hops"]]
        x = np.array([h["ttl"] for h in p["hops"]]) + 0.5 * (i - (n - 1) / 2) / max(n, 1)
        mid = np.array([m[1] if m else np.nan for m in marks]) / NS_PER_US
        lo = mid - np.array([m[0] if m else np.nan for m in marks]) / NS_PER_US
        hi = np.array([m[2] if m else np.nan for m in marks]) / NS_PER_US - mid
        col = "tab:red" if pid in stepped else "tab:blue"
        ax.errorbar(x, mid, yerr=[lo, hi], color=col, marker="o", ms=3, lw=0.8,
                    elinewidth=0.6, capsize=2, alpha=0.8)
        lim = [k for k, h in enumerate(p["hops"]) if h.get("rate_limited")]
        ax.scatter(x[lim], mid[lim], s=60, facecolors="none", edgecolors=col)
    for ttl, ids in steps.items():
        ax.axvspan(ttl - 0.5, ttl + 0.5, color="tab:red", alpha=0.08)
    ax.set_yscale("log")
    ax.set_xticks(ttls)
    ax.set_xlabel("hop (TTL)")
    ax.set_ylabel("round trip to the hop (µs): p50, min to max")
    if stepped:
        ax.plot([], [], color="tab:red", marker="o", label="paths with a delay step")
    ax.plot([], [], color="tab:blue", marker="o",
            label="the other paths" if stepped else "paths (no delay step)")
    ax.legend(loc="upper left", fontsize=8)


def draw_trace_heat(fig, ax, paths, steps, ttls):
    """Paths (rows) by hops (columns): each hop's p50 increment (µs)."""
    m = np.full((len(paths), len(ttls)), np.nan)
    for i, (_, p) in enumerate(paths):
        for h in p["hops"]:
            if h.get("increment_ns") is not None:
                m[i, ttls.index(h["ttl"])] = h["increment_ns"] / NS_PER_US
    ok = m[~np.isnan(m)]
    im = ax.imshow(m, aspect="auto", interpolation="nearest", cmap="YlOrRd",
                   vmin=0, vmax=max(ok.max() if ok.size else 1.0, 1e-3),
                   extent=(ttls[0] - 0.5, ttls[-1] + 0.5, len(paths) - 0.5, -0.5))
    fig.colorbar(im, ax=ax, label="increment of the p50 over the hop before (µs)")
    top = im.norm.vmax
    for i, (pid, _) in enumerate(paths):
        for j, t in enumerate(ttls):
            if len(paths) * len(ttls) <= 400 and not np.isnan(m[i, j]):
                ax.text(t, i, f"{m[i, j]:.0f}", ha="center", va="center", fontsize=7,
                        color="white" if m[i, j] > top / 2 else "black")
            if pid in steps.get(t, ()):
                ax.add_patch(plt_module().Rectangle((t - 0.5, i - 0.5), 1, 1, fill=False,
                                                    ec="black", lw=1.2))
    ax.set_facecolor("0.85")
    ax.grid(False)
    ax.set_xticks(ttls)
    ax.set_xlabel("hop (TTL)")
    ax.set_yticks(range(len(paths)))
    ax.set_yticklabels([str(pid) for pid, _ in paths], fontsize=7)
    return m


def plot_trace(run, opts, path, dump):
    """rant trace: RTT by hop for each path, and paths by hops coloured by
    the increment, the verdict's delay step marked on both."""
    key, paths, steps = trace_paths(run.doc)
    plt_module()
    ttls = sorted({h["ttl"] for _, p in paths for h in p["hops"]})
    fig, (ax, hx) = new_figure(opts, ncols=2, gridspec_kw={"width_ratios": [3, 2]})
    draw_trace_rtt(ax, paths, steps, ttls)
    m = draw_trace_heat(fig, hx, paths, steps, ttls)
    hx.set_ylabel("path (" + key.replace("_", " ") + ")")
    said = "; ".join(f"+{d['step_ns'] / 1e6:.3f} ms from hop {d['ttl']} on "
                     f"({len(d['paths'])} of {len(paths)} paths"
                     + (f", via {d['responder']})" if d.get("responder") else ")")
                     for d in run.doc.get("diagnosis", []) if d["kind"] == "delay_step")
    ax.set_title(f"{run.label}: round trip by hop, {len(paths)} path"
                 f"{'s' if len(paths) > 1 else ''} to "
                 f"{run.doc['destination']}", fontsize=10)
    hx.set_title("p50 increment by path and hop (µs; boxed: delay step; grey: none)",
                 fontsize=9)
    fig.suptitle("delay step: " + (said or "none"), fontsize=10, color="tab:red" if said else "black")
    fig.tight_layout()
    dump.append({"plot": "trace", "paths": [pid for pid, _ in paths], "ttls": ttls,
                 "p50_ns": [[(hop_marks(h) or (None, None))[1] for h in p["hops"]]
                            for _, p in paths],
                 "increment_us": [[None if math.isnan(v) else v for v in r]
                                  for r in m.tolist()],
                 "steps": {str(t): sorted(v) for t, v in steps.items()}})
    save(fig, path, opts)
    return path
