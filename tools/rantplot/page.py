# SPDX-License-Identifier: GPL-2.0-or-later
"""rant-plot html: one self-contained page, every picture of the runs
embedded beside their summaries, warnings and settings."""

import base64
import html
import io
import json
import os

from .compare import plot_compare_dist, plot_compare_time
from .dist import plot_dist
from .draw import fmt_us
from .outfile import make_folder, write_whole
from .overtime import plot_time
from .parts import component_names, plot_parts
from .sweep import plot_sweep, sweep_points


def summary_rows(run):
    doc, st = run.doc, run.stats() or {}
    c = doc.get("counts", {})
    pct = st.get("percentiles", {})
    rows = [("JSON", run.path), ("log", run.log["path"] if run.log else "-"),
            ("rant", doc.get("rant_version")),
            ("mode", doc.get("mode")), ("interface", doc.get("interface")),
            ("timestamps", doc.get("timestamp_source")),
            ("stop", doc.get("stop_reason")),
            ("sent / received / lost / late",
             " / ".join(str(c.get(k, "-")) for k in
                        ("sent", "received", "lost", "late"))),
            ("breaches", c.get("breaches", 0))]
    if doc.get("command_line"):
        rows.insert(1, ("command line", " ".join(doc["command_line"])))
    if "loss_pct" in c:
        rows.append(("loss", f"{c['loss_pct']:.2f} %"))
    if "missed_slots" in c:
        rows.append(("missed_slots", c["missed_slots"]))
    intended = run.stats("rtt_intended")
    if intended and intended.get("samples"):
        ip = intended.get("percentiles", {})
        rows.append(("rtt_intended p50 / p99 / max", " / ".join(
            fmt_us(v) for v in (ip.get("50"), ip.get("99"), intended["max"])
            if v is not None)))
    if st:
        rows.append((f"{run.metric} min", fmt_us(st["min"])))
        rows += [(f"{run.metric} p{k}", fmt_us(v)) for k, v in
                 sorted(pct.items(), key=lambda kv: float(kv[0]))]
        rows.append((f"{run.metric} max", fmt_us(st["max"])))
    return rows


def html_table(rows, head=None):
    """A table of rows (tuples of cells), escaped; head: the header cells."""
    out = ["<table>"]
    if head:
        out.append("<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head)
                   + "</tr>")
    for row in rows:
        cells = [html.escape("-" if v is None else str(v)) for v in row]
        out.append(f"<tr><th>{cells[0]}</th>"
                   + "".join(f"<td>{v}</td>" for v in cells[1:]) + "</tr>")
    return "".join(out) + "</table>"


def html_warnings(run):
    """The run's warnings (code, text, fix), first: they change the reading."""
    warns = run.doc.get("warnings") or []
    if not warns:
        return ""
    return ('<h3 class="warnings">warnings</h3>' + html_table(
        [(w.get("code"), w.get("text"), w.get("fix")) for w in warns],
        ("code", "what", "fix")))


def html_config(run):
    """The run's configuration, folded."""
    cfg = run.doc.get("config") or {}
    if not cfg:
        return ""
    rows = [(k, json.dumps(v) if isinstance(v, (list, dict)) else v)
            for k, v in cfg.items()]
    return ("<details><summary>configuration</summary>" + html_table(rows)
            + "</details>")


def figure_bytes(fn, opts, dump, *args):
    buf = io.BytesIO()
    fn(*args, opts, buf, dump)
    dump[-1]["file"] = None
    mime = "image/svg+xml" if opts.svg else "image/png"
    return f"data:{mime};base64,{base64.b64encode(buf.getvalue()).decode()}"


# A run this long (s) or longer is read over time first: what changed
# during it (a queue, a loaded minute) is what its distribution hides.
LONG_RUN_S = 60


def run_seconds(run):
    """The measured span of a run, s (0 when the JSON does not say)."""
    start, end = run.doc.get("start_ns"), run.doc.get("end_ns")
    return (end - start) / 1e9 if start and end and end > start else 0.0


def html_views(run):
    """The figures of one run in the page's order: the distribution, the
    over-time view, the parts; the over-time view first when the run was
    long."""
    views = [(plot_dist, bool(run.stats())),
             (plot_time, bool(run.log or run.doc.get("series"))),
             (plot_parts, bool(component_names(run)))]
    if views[1][1] and run_seconds(run) >= LONG_RUN_S:
        views.insert(0, views.pop(1))
    return views


def html_run(run, opts, dump):
    parts = [f"<h2>{html.escape(run.label)}</h2>", html_warnings(run),
             html_table(summary_rows(run)), html_config(run)]
    views = html_views(run)
    if views[0][0] is plot_time:
        parts.append(f"<p>over time first: the run measured for "
                     f"{run_seconds(run):.0f} s</p>")
    for fn, ok in views:
        if ok:
            parts.append(f'<img alt="{fn.__name__[5:]} of '
                         f'{html.escape(run.label)}" '
                         f'src="{figure_bytes(fn, opts, dump, run)}">')
    return "\n".join(parts)


def write_html(runs, opts, out_dir, dump):
    body = [html_run(r, opts, dump) for r in runs]
    if len(runs) > 1:
        body.append("<h2>compare</h2>")
        body.append(f'<img src="{figure_bytes(plot_compare_dist, opts, dump, runs)}">')
        if any(r.log or r.doc.get("series") for r in runs):
            body.append(f'<img src="{figure_bytes(plot_compare_time, opts, dump, runs)}">')
    if len(sweep_points(runs)[0]) >= 2 and \
            len({p[0] for p in sweep_points(runs)[0]}) >= 2:
        body.append("<h2>size sweep</h2>")
        body.append(f'<img src="{figure_bytes(plot_sweep, opts, dump, runs)}">')
    make_folder(out_dir)
    path = os.path.join(out_dir, "index.html")
    title = "rant: " + ", ".join(html.escape(r.label) for r in runs)
    page = (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}"
            "</title><style>body{font-family:sans-serif;margin:2em}"
            "table{border-collapse:collapse}th,td{border:1px solid #ccc;"
            "padding:2px 8px;text-align:left}img{max-width:100%;display:block;"
            f"margin:1em 0}}</style></head><body><h1>{title}</h1>"
            + "\n".join(body) + "</body></html>\n")
    write_whole(path, page)
    return path
