# SPDX-License-Identifier: GPL-2.0-or-later
"""rant-plot parts: where the time goes, box plots (or violins) of the
-s components and a stacked bar per breach."""

import math

from .draw import fmt_us, new_figure, plt_module, set_value_scale, us
from .percentile import bin_counts, hdr_buckets, hdr_percentile, log_bins
from .outfile import save
from .runs import InputError


# The decomposition components of one path, in the order a packet meets
# them; together they add up to the user-space round trip (rtt_sw).
PATH_PARTS = ("emit_tx", "network", "reflect_rx", "reflect_proc",
              "reflect_tx", "emit_rx")


# Without -s a breach only has the reflector's part and the network.
PATH_PARTS_NO_SW = ("network", "response")
TOTALS = ("rtt", "rtt_sw", "response", "rtt_intended")
BREACH_BARS_MAX = 30
NOT_SPLIT = "not split (stamp missing)"


def component_names(run):
    """The components of the path the run measured; the emitter's response
    stands for the reflector's part when its steps are not split (without
    its SW stamps, the reflector's queue and its Nagle are in it)."""
    metrics = run.doc.get("metrics", {})
    split = any(n in metrics for n in ("reflect_rx", "reflect_proc", "reflect_tx"))
    whole = run.doc.get("mode") == "emit" and not split
    names = [n for n in metrics
             if n not in TOTALS or (n == "response" and whole)]
    order = {n: i for i, n in enumerate(PATH_PARTS + ("response",))}
    return sorted(names, key=lambda n: (order.get(n, len(order)), n))


def reflector_note(run):
    """What the reflector told of its side (rant's own pongs carry it: the
    JSON's reflector_report), as one line, or None."""
    rep = run.doc.get("reflector_report") or {}
    if not rep.get("reported"):
        return None
    lost = (run.doc.get("counts") or {}).get("lost") or 0
    held = (f"held pongs up to {fmt_us(rep['queue_max_ns'])}"
            if rep.get("queue_max_ns") else None)
    if not lost and not rep.get("qdisc_drops") and not rep.get("send_errors"):
        return f"the reflector {held} in its qdisc, lost none" if held else None
    text = (f"the reflector's qdisc dropped {rep.get('qdisc_drops', 0)} of the "
            f"{lost} lost pongs")
    if rep.get("send_errors"):
        text += f" (its sends failed for {rep['send_errors']} more)"
    if held:
        text += f" and {held}"
    return text


def box_stats(name, stats):
    """Box of one component: quartiles from hdr buckets where present,
    else what the JSON's percentiles give (box p50 to p90)."""
    pct = stats.get("percentiles", {})
    buckets = hdr_buckets(stats)
    if buckets:
        q = {p: hdr_percentile(buckets, p) for p in (1, 25, 50, 75, 99)}
        box = {"whislo": q[1], "q1": q[25], "med": q[50], "q3": q[75],
               "whishi": q[99], "source": "hdr"}
    else:
        box = {"whislo": stats["min"], "q1": pct["50"], "med": pct["50"],
               "q3": pct["90"], "whishi": pct["99"], "source": "percentiles"}
    box.update(name=name, p99_9=pct.get("99.9"), max=stats["max"],
               label=stats.get("label", name))
    return box


def parts_data(run, violin=False):
    names = component_names(run)
    if not names:
        raise InputError(f"{run.path}: no decomposition components; run "
                         "rant with -s (--sw-timestamps)")
    boxes = [box_stats(n, run.stats(n)) for n in names]
    if violin:
        for b in boxes:
            b["violin"] = violin_of(run.stats(b["name"]))
    return {"run": run.label, "boxes": boxes, "breaches": breach_stacks(run),
            "breaches_in_all": (run.doc.get("counts") or {}).get("breaches")}


def violin_of(stats):
    """A component's shape: its hdr buckets counted in bins of a log axis
    (20 a decade); None without hdr buckets or with values <= 0."""
    buckets = hdr_buckets(stats)
    if not buckets or buckets[0][0] <= 0:
        return None
    mids = [(lo + hi) / 2.0 for lo, hi, _ in buckets]
    edges = log_bins(buckets[0][0], buckets[-1][1])
    return {"edges_ns": edges,
            "counts": bin_counts(edges, mids, [c for _, _, c in buckets])}


def draw_violins(ax, boxes):
    for x, b in enumerate(boxes, start=1):
        v = b.get("violin")
        if not v:
            continue
        # width on a log scale of counts, so the tail shows
        top = math.log10(1 + max(v["counts"])) or 1.0
        w = [0.4 * math.log10(1 + c) / top for c in v["counts"]] + [0.0]
        ys = [us(e) for e in v["edges_ns"]]
        ax.fill_betweenx(ys, [x - a for a in w], [x + a for a in w],
                         step="post", color="lightsteelblue", alpha=0.6,
                         lw=0)


def breach_stacks(run):
    """Each breach's metric (the one that breached: rtt, rtt_sw, ...),
    component by component: the steps inside it, never those rant shows
    outside it (breaches[].outside: an RTT breach's emit_tx and emit_rx);
    what its stamps could not split (a stamp missing) is stacked as "not
    split". A JSON of an older rant (no metric) is read as before: the
    user-space round trip where the stamps give it."""
    out = []
    for b in run.doc.get("breaches") or []:
        comp = b.get("components") or {}
        split = any(p in comp for p in PATH_PARTS if p != "network")
        outside = set(b.get("outside") or [])
        parts = [p for p in (PATH_PARTS if split else PATH_PARTS_NO_SW)
                 if p in comp and p not in outside]
        stack = {p: comp[p] for p in parts}
        if "metric" in b:
            total = b.get("latency")
        else:
            total = comp.get("rtt_sw" if split else "rtt", b.get("latency"))
        if total is None:
            continue
        if total - sum(stack.values()):
            stack[NOT_SPLIT] = total - sum(stack.values())
        out.append({"seq": b.get("seq"), "metric": b.get("metric"),
                    "latency_ns": b.get("latency"), "largest": b.get("largest"),
                    "outside": sorted(outside), "parts_ns": stack, "total_ns": total})
    return out


def plot_parts(run, opts, path, dump):
    d = parts_data(run, opts.violin)
    nrows = 2 if d["breaches"] else 1
    fig, axes = new_figure(opts, nrows, 1, layout="constrained")
    ax = axes[0] if nrows == 2 else axes
    if opts.violin:
        draw_violins(ax, d["boxes"])
    draw_boxes(ax, d["boxes"], narrow=opts.violin)
    if d["breaches"]:
        draw_breach_bars(axes[1], d["breaches"], d["breaches_in_all"])
        d["breach_title"] = axes[1].get_title()
    note = reflector_note(run)
    d["reflector_note"] = note
    fig.suptitle(f"{run.label}: where the time goes" + (f"\n{note}" if note else ""))
    dump.append({"kind": "parts", "file": path, **d})
    return save(fig, path, opts)


def draw_boxes(ax, boxes, narrow=False):
    stats = [{"whislo": us(b["whislo"]), "q1": us(b["q1"]),
              "med": us(b["med"]), "q3": us(b["q3"]),
              "whishi": us(b["whishi"]), "fliers": [],
              "label": b["name"]} for b in boxes]
    ax.bxp(stats, showfliers=False, patch_artist=True,
           widths=0.15 if narrow else 0.5,
           boxprops={"facecolor": "white" if narrow else "lightsteelblue"},
           medianprops={"color": "navy"})
    xs = range(1, len(boxes) + 1)
    ax.plot(xs, [us(b["p99_9"]) for b in boxes], "^", color="darkorange",
            label="p99.9")
    ax.plot(xs, [us(b["max"]) for b in boxes], "x", color="crimson",
            label="max")
    set_value_scale(ax, "y", min(b["whislo"] for b in boxes))
    ax.set_ylabel("µs")
    hdr = all(b["source"] == "hdr" for b in boxes)
    what = ("box p25–p75, line p50, whiskers p1–p99" if hdr else
            "box p50–p90 (line at p50), whiskers min–p99")
    if any(b.get("violin") for b in boxes):
        what += ";\nshape: the hdr buckets, width by log(count)"
    ax.set_title(f"decomposition components: {what}")
    ax.legend(loc="upper left", fontsize=8)
    ax.tick_params(axis="x", labelsize=9)


def breach_bars_more(shown, kept, in_all):
    """What the bars leave out: the JSON keeps some breaches of the run's
    (--breach-keep), the bars show the largest of those kept."""
    whole = in_all is None or in_all <= kept
    if shown == kept:
        return "" if whole else f" (the {kept} kept of {in_all})"
    return f" (the {shown} largest of {kept})" if whole else \
        f" (the {shown} largest of the {kept} kept, {in_all} in all)"


def draw_breach_bars(ax, breaches, in_all=None):
    shown = breaches
    if len(shown) > BREACH_BARS_MAX:
        shown = sorted(shown, key=lambda b: -b["latency_ns"])
        shown = sorted(shown[:BREACH_BARS_MAX], key=lambda b: b["seq"])
    parts = [p for p in PATH_PARTS + PATH_PARTS_NO_SW[1:] + (NOT_SPLIT,)
             if any(p in b["parts_ns"] for b in shown)]
    xs = list(range(len(shown)))
    bottom = [0.0] * len(shown)
    cmap = plt_module().get_cmap("tab10")
    for i, p in enumerate(parts):
        frac = [100.0 * max(b["parts_ns"].get(p, 0), 0) / b["total_ns"]
                if b["total_ns"] > 0 else 0 for b in shown]
        ax.bar(xs, frac, bottom=bottom, color=cmap(i), label=p, width=0.8)
        bottom = [a + f for a, f in zip(bottom, frac)]
    ax.set_xticks(xs)
    ax.set_xticklabels([f"{b['seq']}: {fmt_us(b['total_ns'])}"
                        for b in shown], fontsize=8,
                       rotation=90 if len(shown) > 8 else 0)
    metrics = sorted({b["metric"] for b in shown if b.get("metric")})
    ax.set_xlabel("breach (sequence number: its "
                  f"{' or '.join(metrics) if metrics else 'total'})")
    ax.set_ylim(0, 100)
    ax.set_ylabel("% of the breach's metric")
    more = breach_bars_more(len(shown), len(breaches), in_all)
    outside = sorted({o for b in shown for o in b.get("outside", [])})
    out_note = f"\n({', '.join(outside)} outside it, not shown)" if outside else ""
    ax.set_title(f"each breach's metric{more}, component by component{out_note}")
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8)
