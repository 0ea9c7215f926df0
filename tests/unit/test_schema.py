#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""schema/rant.schema.json and tests/net/schemacheck.py (TAP, run by prove).

The schema is a valid draft 2020-12 schema; real documents of rant's, cut
short (tests/unit/fixtures/schema: an emitter's size sweep with -s, -I and
breaches, a reflector, both sides of --stamp and of --tcp (the reflector
writing twice: nagle_delayed_ack in the diagnosis), a probe's --syn and
--http, --read of a capture of nginx, a fleet over --paths with a path
named) are valid; and
each of a set of hand-broken copies (a wrong type, a missing required key,
a mode-specific key missing or out of place, a value outside an enum) is
rejected with the path of what is wrong, so that the hook that validates
every network test's JSON (tests/net/lib.sh) cannot pass vacuously.
"""

import copy
import glob
import json
import os
import subprocess
import sys
import tempfile

from tap import done, ok

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.join(HERE, "..", "..")
SCHEMA = os.path.join(TOP, "schema", "rant.schema.json")
CHECK = os.path.join(TOP, "tests", "net", "schemacheck.py")
FIX = sorted(glob.glob(os.path.join(HERE, "fixtures", "schema", "*.json")))
PY = "/usr/bin/python3"


def check(*args):
    p = subprocess.run([PY, CHECK, *args], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def load(name):
    with open(os.path.join(HERE, "fixtures", "schema", name)) as f:
        return json.load(f)


def schema_valid():
    import jsonschema
    with open(SCHEMA) as f:
        s = json.load(f)
    try:
        jsonschema.Draft202012Validator.check_schema(s)
        return True, ""
    except jsonschema.exceptions.SchemaError as e:
        return False, str(e)


def broken(name, what, where, change):
    """A copy of fixture name changed by change(doc): schemacheck.py must
    fail it, naming the path where."""
    doc = copy.deepcopy(load(name))
    change(doc)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "broken.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        rc, out = check(path)
    ok(rc == 1 and f"broken.json: at {where}:" in out,
       f"rejected: {what} (at {where})", f"exit {rc}: {out}")


def put(path, value):
    def change(doc):
        *up, last = path
        for k in up:
            doc = doc[k]
        doc[last] = value
    return change


def drop(path):
    def change(doc):
        *up, last = path
        for k in up:
            doc = doc[k]
        del doc[last]
    return change


def main():
    good, why = schema_valid()
    ok(good, "the schema is a valid draft 2020-12 schema", why)
    ok(len(FIX) >= 6, f"{len(FIX)} fixtures")
    rc, out = check("--all", *FIX)
    ok(rc == 0 and not out, "every fixture is valid", out)
    modes = {load(os.path.basename(f))["mode"] for f in FIX}
    ok(modes == {"emit", "reflect", "probe", "read"},
       f"the fixtures cover the modes: {sorted(modes)}")

    broken("reflect.json", "a count as a string", "/counts/sent", put(["counts", "sent"], "12"))
    broken("reflect.json", "a time as a fraction", "/start_ns", put(["start_ns"], 1.5))
    broken("tcp-emit.json", "a percentile as a fraction", "/metrics/rtt/percentiles/99",
           put(["metrics", "rtt", "percentiles", "99"], 1.5))
    broken("reflect.json", "a required key missing", "/config", drop(["config", "port"]))
    broken("emit-sweep.json", "the counts missing", "/",
           drop(["counts"]))
    broken("emit-sweep.json", "the emitter's lost count missing", "/counts",
           drop(["counts", "lost"]))
    broken("emit-sweep.json", "a sweep without its fit", "/", drop(["fit"]))
    broken("reflect.json", "a reflector's session table half there", "/",
           drop(["sessions_evicted"]))
    broken("tcp-reflect.json", "--tcp without its tcp block", "/", drop(["tcp"]))
    broken("reflect.json", "a mode no schema knows", "/mode", put(["mode"], "ping"))
    broken("reflect.json", "a timestamp source outside its enum", "/timestamp_source",
           put(["timestamp_source"], "nic"))
    broken("tcp-emit.json", "a transport outside its enum", "/config/transport",
           put(["config", "transport"], "sctp"))
    broken("stamp-emit.json", "a STAMP timestamp format outside its enum",
           "/stamp_peer/timestamp_format", put(["stamp_peer", "timestamp_format"], "sntp"))
    broken("emit-sweep.json", "a breach stamp of no known name", "/breaches/0/stamps",
           put(["breaches", 0, "stamps", "T9_XX"], 1))
    broken("emit-sweep.json", "an interval's p50 as text", "/series/0/p50",
           put(["series", 0, "p50"], "-"))
    broken("emit-sweep.json", "an untrusted metric without its reason", "/metrics/rtt",
           put(["metrics", "rtt", "trusted"], False))
    broken("reflect.json", "a session id not of 8 hex digits", "/sessions/0/session",
           put(["sessions", 0, "session"], "xyz"))
    broken("emit-sweep.json", "a breach without the metric that breached", "/breaches/0",
           drop(["breaches", 0, "metric"]))
    broken("emit-sweep.json", "an interval without its pings in flight", "/series/0",
           drop(["series", 0, "in_flight"]))
    broken("tcp-emit.json", "the reflector's report without its drops", "/reflector_report",
           drop(["reflector_report", "qdisc_drops"]))
    broken("tcp-emit.json", "--tcp's diagnosis as the old line", "/diagnosis",
           put(["diagnosis"], "round trips from p5 to p95 sit near 40 ms"))

    broken("read.json", "a capture's flow without its server", "/flows/0",
           drop(["flows", 0, "server"]))
    broken("read.json", "a diagnosis share above 1", "/diagnosis/0/share",
           put(["diagnosis", 0, "share"], 1.5))
    broken("read.json", "a flow's end outside its enum", "/flows/1/end",
           put(["flows", 1, "end"], "closed"))
    broken("read.json", "a flow's address without its port", "/flows/0/client",
           put(["flows", 0, "client"], "10.89.0.1"))
    broken("read.json", "--watch's document without pcap's drops", "/counts",
           lambda d: (d.update(mode="watch"), d["source"].update(interface="eth0"),
                      d["source"].pop("file")))

    broken("emit-sweep.json", "a probe's summary without its counts", "/",
           lambda d: (d.update(mode="probe"), d.pop("counts")))
    broken("probe-http.json", "a diagnosis's share in percent", "/diagnosis/0/share",
           put(["diagnosis", 0, "share"], 99.0))
    broken("probe-http.json", "a diagnosis of no known kind", "/diagnosis/0/kind",
           put(["diagnosis", 0, "kind"], "slow"))
    broken("probe-http.json", "--http without its diagnosis", "/", drop(["diagnosis"]))
    broken("probe-http.json", "--http's counts without its timeouts", "/probe",
           drop(["probe", "timeouts"]))
    broken("probe-syn.json", "--syn's counts without its refused probes", "/probe",
           drop(["probe", "refused"]))
    broken("probe-syn.json", "a probe of no known kind", "/config/probe",
           put(["config", "probe"], "udp"))

    broken("fleet-paths.json", "a fleet without its targets", "/", drop(["targets"]))
    broken("fleet-paths.json", "a target without its counts", "/targets/0",
           drop(["targets", 0, "counts"]))
    broken("fleet-paths.json", "a target's counts without its ICMP errors",
           "/targets/0/counts", drop(["targets", 0, "counts", "unreachable"]))
    broken("fleet-paths.json", "a fleet's counts without its late ICMP errors", "/counts",
           drop(["counts", "late_errors"]))
    broken("fleet-paths.json", "a path without its source port", "/targets/0/paths/1",
           drop(["targets", 0, "paths", 1, "source_port"]))
    broken("fleet-paths.json", "a path named by no known kind", "/targets/0/paths/1/named/0",
           put(["targets", 0, "paths", 1, "named", 0], "path_jitter"))
    broken("fleet-paths.json", "path_latency without its source ports", "/diagnosis/0",
           drop(["diagnosis", 0, "source_ports"]))
    broken("fleet-paths.json", "path_latency without its reference", "/diagnosis/0",
           drop(["diagnosis", 0, "reference_p50_ns"]))
    broken("fleet-paths.json", "a DSCP of 64", "/targets/0/dscp",
           put(["targets", 0, "dscp"], 64))

    # a member the schema does not know is welcome (new modes add theirs)
    doc = load("reflect.json")
    doc["probe_future_field"] = {"x": 1}
    doc["counts"]["future_count"] = 3
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "more.json")
        with open(p, "w") as f:
            json.dump(doc, f)
        rc, out = check(p)
        ok(rc == 0, "members the schema does not name are allowed", out)

        # not rant's: passed over, or an error under --all
        q = os.path.join(d, "other.json")
        with open(q, "w") as f:
            json.dump({"name": "not rant's"}, f)
        rc, out = check(q)
        ok(rc == 0 and not out, "a JSON file not rant's is passed over", out)
        rc, out = check("--all", q)
        ok(rc == 1 and "not rant's JSON" in out, "... and is an error under --all", out)

        # cut short: names rant_version but does not parse
        r = os.path.join(d, "cut.json")
        with open(r, "w") as f:
            f.write('{"rant_version": "x", "mode": "emit", "coun')
        rc, out = check(r)
        ok(rc == 1 and "cut.json: not JSON" in out, "a document cut short is an error", out)
    return done()


if __name__ == "__main__":
    sys.exit(main())
