# SPDX-License-Identifier: GPL-2.0-or-later
"""rant-plot flow and ports (rant --read/--watch): one flow's most held
exchange segment by segment, and the exchange latency per server port."""

import itertools
import math

from .draw import (draw_histogram, draw_percentiles, fmt_us, new_figure,
    nines_axis, set_value_scale)
from .percentile import curve_from_hdr, dist_histogram, hdr_buckets, marks_of
from .outfile import save
from .runs import InputError


# What held an exchange, drawn: the span that ends at the segment it held.
HELD_ENDS = {"nagle_delayed_ack": "resp_last_ns", "client_nagle": "req_last_ns",
             "server_time": "resp_first_ns"}


def capture_doc(run):
    """The JSON of rant --read or --watch, or InputError."""
    if run.doc.get("mode") not in ("read", "watch"):
        raise InputError(f"{run.path}: not the JSON of rant --read or "
                         "--watch (mode {!r}); give one".format(
                             run.doc.get("mode")))
    return run.doc


def pick_flow(run, which):
    """The flow to draw: --flow N (0: the worst), else the worst with a
    timeline (the segments of its most held exchange)."""
    flows = capture_doc(run).get("flows") or []
    if not flows:
        raise InputError(f"{run.path}: no flow in it")
    if which is not None:
        if not 0 <= which < len(flows):
            raise InputError(f"--flow {which}: {run.path} has flows 0 to "
                             f"{len(flows) - 1}")
        f = flows[which]
        if not f.get("timeline"):
            raise InputError(f"{run.path}: flow {which} ({f['client']} -> "
                             f"{f['server']}) has no held exchange to draw; "
                             "a clean flow has no timeline")
        return which, f
    for i, f in enumerate(flows):
        if f.get("timeline"):
            return i, f
    raise InputError(f"{run.path}: no flow has a held exchange (nothing held "
                     "the time): no timeline to draw")


def flow_data(run, which):
    i, f = pick_flow(run, which)
    tl = f["timeline"]
    t0 = tl["req_first_ns"]
    end = tl.get(HELD_ENDS.get(tl["held"], ""), None)
    if end is None:     # retransmission, window: the longest gap
        ts = sorted(s["t_ns"] for s in tl["segments"])
        gaps = [(b - a, b) for a, b in zip(ts, ts[1:])] or [(0, t0)]
        end = max(gaps)[1]
    segs = [{**s, "t_ms": (s["t_ns"] - t0) / 1e6} for s in tl["segments"]]
    return {"index": i, "server": f["server"], "client": f["client"],
            "held": tl["held"], "held_ns": tl["held_ns"],
            "latency_ns": tl["latency_ns"], "partial": tl.get("partial"),
            "exchange": tl["exchange"], "exchanges": f.get("exchanges"),
            "held_span_ms": [(end - tl["held_ns"] - t0) / 1e6,
                             (end - t0) / 1e6],
            "segments": segs}


def lane_marks(ax, segs, zoom=False, quiet=()):
    """Each segment on its direction's lane: data a square sized by its
    bytes, a pure ACK a tick; labels staggered where they crowd (none
    for the segments in quiet: the zoom has them)."""
    lane = {"c2s": 1.0, "s2c": 0.0}
    for k, s in enumerate(segs):
        y = lane[s["dir"]]
        # the client's labels above its lane, the server's below
        off = (9 + (k % 2) * 9 if zoom else 9) * (1 if y else -1) - (0 if y else 6)
        if s["len"]:
            ax.plot([s["t_ms"]], [y], "s", ms=5 + min(10, s["len"] / 150),
                    color="tab:blue" if s["dir"] == "c2s" else "tab:green")
            text = f"{s['len']} B"
        else:
            ax.plot([s["t_ms"]], [y], "|", ms=14, mew=2, color="black")
            text = "ACK" if s["flags"] == "." else s["flags"]
        if k in quiet:
            continue
        ax.annotate(text, (s["t_ms"], y), fontsize=7 if zoom else 8,
                    textcoords="offset points", xytext=(0, off), ha="center")
    ax.set_yticks([0, 1])
    ax.set_ylim(-0.7, 1.7)


def draw_lanes(ax, d):
    """The exchange's segments each way, the held span shaded, and a zoom
    on where the hold ended (what released it)."""
    a, b = d["held_span_ms"]
    near = [s for s in d["segments"] if abs(s["t_ms"] - b) <= 0.5]
    zoom = len(near) >= 2 and b - a >= 1
    lane_marks(ax, d["segments"], quiet={k for k, s in enumerate(d["segments"])
                                         if zoom and s in near})
    ax.axvspan(a, b, color="crimson", alpha=0.15)
    ax.text(a + (b - a) * 0.2, 0.5, f"{d['held']}\n{fmt_us(d['held_ns'])}",
            ha="center", va="center", color="crimson", fontsize=10)
    ax.set_yticklabels(["server -> client", "client -> server"])
    ax.set_title("segments as the capture saw them (data: bytes; |: a pure "
                 "ACK)")
    if not zoom:
        return
    w = max(0.05, 1.5 * (max(s["t_ms"] for s in near) -
                         min(s["t_ms"] for s in near)))
    z = ax.inset_axes([0.42, 0.12, 0.45, 0.76])
    lane_marks(z, near, zoom=True)
    z.axvspan(a, b, color="crimson", alpha=0.15)
    z.set_xlim(b - w, b + w)
    z.set_yticklabels(["s->c", "c->s"], fontsize=8)
    z.tick_params(labelsize=7)
    z.set_title(f"the hold's end, {fmt_us(2 * w * 1e6)} wide", fontsize=8)


def draw_bytes(ax, d):
    """Bytes sent and acknowledged each way over the exchange, from each
    side's first byte in it (a time-sequence graph)."""
    for dir_, other, color, name in (("s2c", "c2s", "tab:green", "response"),
                                     ("c2s", "s2c", "tab:blue", "request")):
        data = [s for s in d["segments"] if s["dir"] == dir_ and s["len"]]
        if not data:
            continue
        base = min(s["seq"] for s in data)
        for s in data:
            ax.plot([s["t_ms"], s["t_ms"]],
                    [s["seq"] - base, s["seq"] + s["len"] - base],
                    color=color, lw=3)
        acks = [(s["t_ms"], s["ack"] - base) for s in d["segments"]
                if s["dir"] == other and "." in s["flags"]
                and s["ack"] >= base]
        if acks:
            ax.step([t for t, _ in acks], [v for _, v in acks], where="post",
                    color=color, ls=":", lw=1.2,
                    label=f"the {name}'s bytes acknowledged")
        ax.plot([], [], color=color, lw=3, label=f"{name}: bytes sent")
    a, b = d["held_span_ms"]
    ax.axvspan(a, b, color="crimson", alpha=0.15)
    ax.set_xlabel("ms from the request's first segment")
    ax.set_ylabel("bytes of the exchange")
    ax.legend(loc="upper left", fontsize=8)


def plot_flow(run, opts, path, dump):
    d = flow_data(run, getattr(opts, "flow", None))
    fig, (al, ab) = new_figure(opts, 2, 1, sharex=True, layout="constrained",
                               height_ratios=[1, 1.4])
    draw_lanes(al, d)
    draw_bytes(ab, d)
    fig.suptitle(f"{run.label}: flow {d['index']} {d['client']} -> "
                 f"{d['server']}, exchange {d['exchange']} of "
                 f"{d['exchanges']}: {fmt_us(d['latency_ns'])}, held by "
                 f"{d['held']} {fmt_us(d['held_ns'])}"
                 + (" (its first segments not kept)" if d["partial"] else ""))
    dump.append({"kind": "flow", "file": path, **d})
    return save(fig, path, opts)


def ports_data(run, metric):
    out = []
    for p in capture_doc(run).get("ports") or []:
        st = (p.get("metrics") or {}).get(metric) or {}
        b = hdr_buckets(st)
        if not b:
            continue
        kinds = ", ".join(f"{x['kind']} {100 * x['share']:.3g}%"
                          for x in p.get("diagnosis") or []) or "nothing held"
        out.append({"port": p["port"], "flows": p.get("flows"),
                    "samples": st.get("samples"), "marks_ns": marks_of(st),
                    "diagnosis": kinds,
                    "curve": {"percentile": [q for q, _ in curve_from_hdr(b)],
                              "value_ns": [v for _, v in curve_from_hdr(b)]},
                    "histogram": dist_histogram(None, st, (
                        [(lo + hi) / 2.0 for lo, hi, _ in b],
                        [c for _, _, c in b])),
                    "source": "hdr"})
    if not out:
        raise InputError(f"{run.path}: no server port with {metric} samples")
    return out


def plot_ports(run, opts, path, dump):
    metric = opts.metric or "exchange"
    ports = ports_data(run, metric)
    fig, (ah, ap) = new_figure(opts, 1, 2, layout="constrained")
    colours = itertools.cycle(["tab:red", "tab:blue", "tab:green",
                               "tab:orange", "tab:purple", "tab:brown"])
    top, lo = 1.0, min(min(p["curve"]["value_ns"]) for p in ports)
    for p, c in zip(ports, colours):
        m = p["marks_ns"]
        label = (f":{p['port']} ({p['flows']} flows): p50 "
                 f"{fmt_us(m.get('p50', 0))}, p99 {fmt_us(m.get('p99', 0))}; "
                 f"{p['diagnosis']}")
        draw_histogram(ah, p["histogram"], color=c, label=f":{p['port']}",
                       step=True)
        draw_percentiles(ap, p, color=c, label=label, annotate=False)
        top = max(top, math.log10(2 * max(p["samples"] or 10, 10)))
    ah.set_xlabel(f"{metric} (µs)")
    ah.set_title("histogram per server port")
    ah.legend(fontsize=8)
    set_value_scale(ap, "y", lo)
    nines_axis(ap, top)
    ap.set_ylabel(f"{metric} (µs)")
    ap.set_title("percentiles per server port")
    ap.legend(loc="lower right", fontsize=8)
    fig.suptitle(f"{run.label}: {metric} by server port")
    dump.append({"kind": "ports", "file": path, "metric": metric,
                 "ports": ports})
    return save(fig, path, opts)
