# SPDX-License-Identifier: GPL-2.0-or-later
"""rant's files read: the JSON summary (rant -j), the log (rant -l)
in chunks by its column names, the runs of a command line (Run).
Every error is an InputError: one line naming the problem and the fix."""

import itertools
import json
import os

import numpy as np


NS_PER_US = 1000.0
LOG_CHUNK = 500000      # rows parsed at a time
MAX_GAP = 1000000       # larger jumps of the log's seq are a new session


class InputError(Exception):
    """Bad input: one line naming the problem and the fix."""


def read_json(path, fix):
    """A JSON file's document, or InputError ending with fix."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file; {fix}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: cannot read ({e}); {fix}") from None
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: not JSON (line {e.lineno}: {e.msg}); "
                         f"{fix}") from None


def load_json(path):
    """rant's JSON summary as a dict, or InputError."""
    doc = read_json(path, "give the JSON summary that rant -j FILE wrote")
    if (not isinstance(doc, dict) or "rant_version" not in doc
            or not isinstance(doc.get("metrics", doc.get("sizes",
                                                          doc.get("paths"))),
                              (dict, list))):
        raise InputError(f"{path}: not rant's JSON (no rant_version and "
                         "metrics); give the file that rant -j FILE wrote")
    return doc


def log_columns(path, header):
    """Indices of the columns the plots need, from the log's header."""
    names = header.split()
    if "SEQ" not in names:
        raise InputError(f"{path}: line 1 is not rant's log header (expected "
                         "'SEQ ...' column names); give the file that "
                         "rant -l FILE wrote")
    metric = next((n for n in ("RTT", "RESPONSE") if n in names), None)
    if metric is None:
        raise InputError(f"{path}: the header has neither RTT nor RESPONSE; "
                         "give the file that rant -l FILE wrote")
    first = "T1_" if metric == "RTT" else "T2_"
    stamps = [n for n in names if n.startswith(first)]
    wire = [n for n in stamps if not n.endswith("_SW")]
    time_col = (wire or stamps or [None])[0]
    return {"names": names, "metric": metric, "seq_i": names.index("SEQ"),
            "metric_i": names.index(metric),
            "time_i": names.index(time_col) if time_col else None,
            "lost_i": names.index("LOST") if "LOST" in names else None}


def load_log(path):
    """rant's transaction log: seq, time (ns, absolute), metric (ns) and
    lost flag per row, plus the seqs missing between rows."""
    try:
        f = open(path, encoding="ascii", errors="replace")
    except OSError as e:
        raise InputError(f"{path}: cannot open ({e.strerror}); give the "
                         "file that rant -l FILE wrote") from None
    with f:
        cols = log_columns(path, f.readline())
        dashes = f.readline().strip()
        if not dashes or set(dashes) != {"-"}:
            raise InputError(f"{path}: line 2 is not the line of dashes of "
                             "rant's log; give the file that rant -l FILE "
                             "wrote")
        chunks, lineno = [], 3
        while True:
            lines = list(itertools.islice(f, LOG_CHUNK))
            if not lines:
                break
            chunks.append(log_chunk(path, lineno, lines, cols))
            lineno += len(lines)
    return log_finish(path, cols, chunks)


def log_chunk(path, lineno, lines, cols):
    """Columns of a block of rows: seq, time (s, NaN where absent), metric
    (ns) and the lost flag, as numpy arrays."""
    si, ti, mi, li = cols["seq_i"], cols["time_i"], cols["metric_i"], cols["lost_i"]
    if li is None and ti is not None:
        # numpy's C parser; rows with '-' where a number is needed fall
        # through to the slower path below
        try:
            a = np.loadtxt(lines, usecols=(si, ti, mi), dtype=np.float64,
                           ndmin=2, comments=None)
            return (a[:, 0].astype(np.int64), a[:, 1],
                    a[:, 2].astype(np.int64), np.zeros(len(a), dtype=bool))
        except ValueError:
            pass
    try:
        rows = [ln.split() for ln in lines if not ln.isspace()]
        seq = np.array([r[si] for r in rows], dtype=np.int64)
        t = np.array([r[ti] if ti is not None else "-" for r in rows],
                     dtype="U32")
        v = np.array([r[mi] for r in rows], dtype="U24")
        lost = v == "-"
        if li is not None:
            lost |= np.array([len(r) > li and r[li] not in ("-", "0")
                              for r in rows], dtype=bool)
        t[t == "-"] = "nan"
        v[v == "-"] = "0"
        return seq, t.astype(np.float64), v.astype(np.int64), lost
    except (ValueError, IndexError):
        bad = next((n for n, ln in enumerate(lines, start=lineno)
                    if not log_row_ok(ln, cols)), lineno)
        text = lines[bad - lineno].strip()[:40]
        raise InputError(f"{path}:{bad}: not a row of rant's log "
                         f"({text!r}); give the file that rant -l FILE "
                         "wrote") from None


def log_row_ok(line, cols):
    tok = line.split()
    if not tok:
        return True
    try:
        int(tok[cols["seq_i"]])
        for i in (cols["time_i"], cols["metric_i"]):
            if i is not None and tok[i] != "-":
                float(tok[i])
    except (ValueError, IndexError):
        return False
    return True


def log_finish(path, cols, chunks):
    if not chunks or not sum(len(c[0]) for c in chunks):
        raise InputError(f"{path}: the log has no rows; run rant longer or "
                         "without -L")
    seq, t, v, lost = (np.concatenate(x) for x in zip(*chunks))
    known = ~np.isnan(t)
    if not known.any():
        t = seq.astype(np.float64)
    elif not known.all():
        t[~known] = np.interp(seq[~known], seq[known], t[known])
    ok = ~lost
    return {"path": path, "metric": cols["metric"], "seq": seq[ok],
            "t_s": t[ok], "value_ns": v[ok],
            "lost_rows": (seq[lost], t[lost]), "gaps": seq_gaps(seq, t),
            "has_lost_col": cols["lost_i"] is not None}


def seq_gaps(seq, t):
    """Sequence numbers missing between consecutive rows (lost pings that
    have no row), with times interpolated between their neighbours. A
    step back or a jump of more than MAX_GAP is a new session, not loss."""
    d = np.diff(seq)
    at = np.nonzero((d > 1) & (d <= MAX_GAP))[0]
    if not len(at):
        return (np.zeros(0, np.int64), np.zeros(0))
    miss = np.concatenate([np.arange(seq[i] + 1, seq[i + 1]) for i in at])
    return miss, np.interp(miss, seq, t)


class Run:
    """One run: its JSON, its log when given, and its label."""

    def __init__(self, json_path, log_path=None, label=None):
        self.path = json_path
        self.doc = load_json(json_path)
        self.log_path = log_path
        self.log = load_log(log_path) if log_path else None
        self.label = label or run_name(json_path)
        self.metric = main_metric(self.doc)
        if self.log and self.log["metric"].lower() != self.metric:
            raise InputError(f"{log_path}: a {self.log['metric']} log does "
                             f"not belong to {json_path} ({self.metric}); "
                             "give the log of the same run")

    def stats(self, name=None):
        return self.doc.get("metrics", {}).get(name or self.metric)


def run_name(path):
    base = os.path.basename(path)
    return base[:-5] if base.endswith(".json") else base


def main_metric(doc):
    hist = doc.get("histogram") or {}
    if hist.get("metric"):
        return hist["metric"]
    return "response" if doc.get("mode") == "reflect" else "rtt"


def unique_labels(paths, labels):
    """--label values, else file names, made unique with their folder."""
    labels = list(labels or [])
    names = [run_name(p) for p in paths]
    out = []
    for i, p in enumerate(paths):
        if i < len(labels):
            out.append(labels[i])
        elif names.count(names[i]) > 1:
            out.append(os.path.join(os.path.basename(os.path.dirname(
                os.path.abspath(p))), names[i]))
        else:
            out.append(names[i])
    return out


def load_runs(args):
    logs = list(args.log or [])
    if len(logs) > len(args.json):
        raise InputError(f"{len(logs)} --log for {len(args.json)} JSON "
                         "files; give at most one --log per JSON, in order")
    labels = unique_labels(args.json, getattr(args, "label", None))
    logs = [None if lg == "-" else lg for lg in logs]
    logs += [None] * (len(args.json) - len(logs))
    return [Run(p, logs[i], labels[i]) for i, p in enumerate(args.json)]
