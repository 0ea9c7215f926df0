#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tools/rant-trace on small saved traces (TAP, run by prove).

Real traces from this machine (tests/unit/fixtures, cut to the spike's
CPU and window): a reflector preempted by a SCHED_FIFO hog, stopped by
SIGSTOP, preempted by ordinary tasks, and preempted with a 100 ms hole in
the trace. Made-up traces for what a VM cannot provoke on demand: a long
IRQ, NAPI work in a long NET_RX softirq, nothing traced, the trace_clock
local (aligned by the marker), the other side's step analysed from its
marker in a shared trace, the 1-second period from rant's JSON, a trace
that begins after the step did, a CPU the instance does not trace, and
the errors.
"""

import json
import os
import subprocess
import sys
import tempfile

from tap import done, ok

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "..", "tools", "rant-trace")
FIX = os.path.join(HERE, "fixtures")
PY = "/usr/bin/python3"

def run(*args):
    p = subprocess.run([PY, TOOL, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def run_json(*args):
    rc, out, err = run(*args, "-J")
    try:
        return rc, json.loads(out), err
    except ValueError:
        return rc, None, out + err


HDR = "# tracer: nop\n#\n"


def line(comm, pid, cpu, t_ns, event, rest):
    sec, rem = divmod(t_ns, 1_000_000_000)
    return (f"{comm:>16}-{pid:<7} [{cpu:03d}] d..2. {sec:5d}.{rem // 1000:06d}: "
            f"{event}: {rest}\n")


def marker(cpu, pid, t_ns, side, stamps, clock="mono", rt=1_800_000_000_000_000_000,
           seq=5, lat=None, kind="RANT_BREACH", mono=None, metric=None):
    mono = t_ns - 10_000 if mono is None else mono
    if kind == "RANT_BREACH":
        lat = lat or (max(stamps.values()) - min(stamps.values()))
        text = (f"RANT_BREACH seq={seq} latency_ns={lat} threshold_ns=1000000 "
                + (f"metric={metric} " if metric else "") +
                f"side={side} cpu={cpu} pid={pid} trace_clock={clock} rt_ns={rt} "
                f"mono_ns={mono}")
        text += "".join(f" {k}={v}" for k, v in stamps.items())
    else:
        text = (f"RANT_TEST_START side={side} cpu={cpu} pid={pid} "
                f"trace_clock={clock} rt_ns={rt} mono_ns={mono}")
    return line("rant", pid, cpu, t_ns, "tracing_mark_write", text)


def write(tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


RT = 1_800_000_000_000_000_000
BASE = 100_000_000_000      # the trace's mono time of RT, ns


def emit_stamps(spike_leg, spike_ns):
    """An emitter's stamps (realtime) with one leg made long."""
    legs = {"emit_tx": 5_000, "network_out": 10_000, "reflect_rx": 5_000,
            "reflect_proc": 1_000, "reflect_tx": 5_000, "network_back": 10_000,
            "emit_rx": 5_000}
    legs[spike_leg] = spike_ns
    t = RT - 20_000_000
    st = {"T1_SW": t}
    order = ["T1_wire", "T2_wire", "T2_SW", "T3_SW", "T3_wire", "T4_wire", "T4_SW"]
    for p, leg in zip(order, legs.values()):
        t += leg
        st[p] = t
    return st


def mono(rt_ns):
    return rt_ns - RT + BASE


def test_real(tmp):
    rc, out, err = run(os.path.join(FIX, "hog.trace"))
    ok(rc == 0, "hog.trace: exit 0", err)
    ok("verdict: CPU 1: preempted by hog-x (pid 4936, prio 49)" in out,
       "a SCHED_FIFO hog: preempted, named by its newest comm, on CPU 1", out)
    ok("reflect_rx" in out and "<-- where the spike is" in out.split("reflect_rx")[1].split("\n")[0],
       "the spike placed on reflect_rx", out)
    ok("ran: hog-x:4936" in out, "the hog is the task that ran", out)

    rc, j, err = run_json(os.path.join(FIX, "stopped.trace"))
    b = j["breaches"][0] if j else {}
    ok(b.get("kind") == "stopped" and "stopped (T" in b.get("verdict", ""),
       "SIGSTOP: the verdict says stopped", j or err)
    ok(b.get("cpus") == [1] and b.get("task_pid") == b.get("pid"),
       "stopped: CPU and task from the marker", b)
    ok(b.get("marker_write_delay_ns") is not None and 0 < b["marker_write_delay_ns"] < 1_000_000,
       "mono clock: the marker's write delay is known and small", b)
    acts = b.get("cpu_activity", {}).get("1", {})
    ok(acts.get("network_events", 0) > 0, "network events are counted, folded", acts)

    rc, out, err = run(os.path.join(FIX, "stopped.trace"))
    shown = [ln for ln in out.splitlines() if ln.startswith("    ") and not ln.startswith("    [")]
    ok(not any("net_dev_" in ln or "netif_" in ln or "napi_poll" in ln for ln in shown),
       "no network event printed one by one", "\n".join(shown[:20]))
    ok("network and short softirq events folded" in out, "one count line for them", out)

    rc, out, err = run(os.path.join(FIX, "preempt.trace"))
    ok("preempted by rant (pid 27894, prio 120)" in out,
       "ordinary CFS preemption: the task that ran longest is named", out)
    rc, out, err = run(os.path.join(FIX, "preempt-gap.trace"))
    ok("preempted by bash" in out and "traced nothing for 100076 µs" in out,
       "a 100 ms hole without ticks is named next to the preemption", out)


def test_made_up(tmp):
    # A long IRQ on the emitter's CPU 2 while rant spins (emit_rx).
    st = emit_stamps("emit_rx", 5_000_000)
    a = mono(st["T4_wire"])
    text = HDR + line("rant", 300, 2, a - 50_000, "sched_switch",
                      "prev_comm=swapper/2 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=rant next_pid=300 next_prio=120")
    text += line("rant", 300, 2, a + 100_000, "irq_handler_entry", "irq=30 name=eth0-rx-0")
    text += line("rant", 300, 2, a + 4_600_000, "irq_handler_exit", "irq=30 ret=handled")
    t_m = mono(RT) + 12_000
    text += marker(2, 300, t_m, "emit", st, mono=BASE, metric="rtt_sw")
    rc, j, err = run_json(write(tmp, "irq.trace", text))
    b = j["breaches"][0] if j else {}
    ok(b.get("spike_step") == "emit_rx" and b.get("kind") == "irq" and
       "irq 30 (eth0-rx-0), ran 4500 µs" in b.get("verdict", ""),
       "a 4.5 ms IRQ in emit_rx: the IRQ, named, with its time", b or err)

    # NAPI: a long NET_RX softirq with polls.
    text = HDR + line("rant", 300, 2, a - 50_000, "sched_switch",
                      "prev_comm=swapper/2 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=rant next_pid=300 next_prio=120")
    text += line("rant", 300, 2, a + 10_000, "softirq_entry", "vec=3 [action=NET_RX]")
    for i in range(30):
        text += line("rant", 300, 2, a + 20_000 + i * 100_000, "napi_poll",
                     "napi poll on napi struct 00000000deadbeef for device eth0 work 64 budget 64")
    text += line("rant", 300, 2, a + 3_500_000, "softirq_exit", "vec=3 [action=NET_RX]")
    for i in range(14):
        text += line("rant", 300, 2, a + 3_600_000 + i * 100_000, "sched_stat_runtime",
                     "comm=rant pid=300 runtime=100000 [ns]")
    text += marker(2, 300, t_m, "emit", st, mono=BASE, metric="rtt_sw")
    rc, j, err = run_json(write(tmp, "napi.trace", text))
    b = j["breaches"][0] if j else {}
    ok(b.get("kind") == "napi" and "30 polls, 1920 packets" in b.get("verdict", ""),
       "a long NET_RX softirq with polls: NAPI work, polls and packets counted", b or err)

    # Nothing traced: rant on CPU 2, a 4 ms hole.
    text = HDR + line("rant", 300, 2, a - 50_000, "sched_switch",
                      "prev_comm=swapper/2 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=rant next_pid=300 next_prio=120")
    text += line("rant", 300, 2, a + 300_000, "sched_stat_runtime", "comm=rant pid=300 runtime=1 [ns]")
    text += line("rant", 300, 2, a + 4_700_000, "sched_stat_runtime", "comm=rant pid=300 runtime=1 [ns]")
    text += marker(2, 300, t_m, "emit", st, mono=BASE, metric="rtt_sw")
    rc, j, err = run_json(write(tmp, "gap.trace", text))
    b = j["breaches"][0] if j else {}
    ok(b.get("kind") == "untraced" and "nothing traced for 4400 µs" in b.get("verdict", ""),
       "a hole in the trace: nothing traced, for how long", b or err)

    # The same with trace_clock local: the trace runs 1000.5 s ahead of
    # mono; the marker's own time aligns it.
    shift = 1_000_500_000_000
    text = HDR + line("rant", 300, 2, a - 50_000 + shift, "sched_switch",
                      "prev_comm=swapper/2 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=rant next_pid=300 next_prio=120")
    text += line("rant", 300, 2, a + 100_000 + shift, "irq_handler_entry", "irq=30 name=eth0-rx-0")
    text += line("rant", 300, 2, a + 4_600_000 + shift, "irq_handler_exit", "irq=30 ret=handled")
    text += marker(2, 300, mono(RT) + shift, "emit", st, clock="local", mono=BASE, metric="rtt_sw")
    rc, j, err = run_json(write(tmp, "local.trace", text))
    b = j["breaches"][0] if j else {}
    s = {x["name"]: x for x in b.get("steps", [])}
    ok(b.get("kind") == "irq" and "4500 µs" in b.get("verdict", ""),
       "trace_clock local: the same verdict", b or err)
    ok(s.get("emit_rx", {}).get("t_from") == a + shift and "marker's own trace time" in b.get("alignment", ""),
       "local: steps placed by the marker's time, and the method said", s.get("emit_rx"))

    # Shared instance: the emitter's breach, the spike on the reflector's
    # receive; the reflector's RANT_TEST_START names its pid and CPU 1.
    st = emit_stamps("reflect_rx", 8_000_000)
    r0 = mono(st["T2_wire"])
    text = HDR + marker(1, 400, r0 - 900_000_000, "reflect", {}, kind="start", mono=r0 - 900_000_000)
    text += line("rant", 400, 1, r0 - 5_000, "sched_switch",
                 "prev_comm=rant prev_pid=400 prev_prio=120 prev_state=R ==> next_comm=kworker/1:1 next_pid=77 next_prio=120")
    text += line("kworker/1:1", 77, 1, r0 + 7_990_000, "sched_switch",
                 "prev_comm=kworker/1:1 prev_pid=77 prev_prio=120 prev_state=I ==> next_comm=rant next_pid=400 next_prio=120")
    text += marker(0, 300, t_m, "emit", st, mono=BASE)
    rc, j, err = run_json(write(tmp, "shared.trace", text))
    b = j["breaches"][0] if j else {}
    ok(b.get("spike_step") == "reflect_rx" and b.get("cpus") == [1] and b.get("task_pid") == 400,
       "the other side's step: its CPU and pid from its marker", b or err)
    ok("preempted by kworker/1:1 (pid 77" in b.get("verdict", ""), "and what happened there", b)
    # Without the reflector's marker: said plainly, and --cpu overrides.
    text2 = "".join(ln for ln in text.splitlines(True) if "RANT_TEST_START" not in ln)
    path = write(tmp, "other.trace", text2)
    rc, j, err = run_json(path)
    b = j["breaches"][0] if j else {}
    ok(b.get("kind") == "elsewhere" and "--cpu" in b.get("verdict", ""),
       "the other side's step without its marker: where to look", b or err)
    rc, j, err = run_json(path, "--cpu", "1")
    b = j["breaches"][0] if j else {}
    ok(b.get("cpus") == [1] and "kworker/1:1" in json.dumps(b.get("cpu_activity")),
       "--cpu 1: that CPU's activity", b or err)

    # A trace that begins after the step did.
    text = HDR + line("rant", 300, 0, r0 + 6_000_000, "sched_stat_runtime", "comm=rant pid=300 runtime=1 [ns]")
    text += marker(0, 300, t_m, "emit", st, mono=BASE)
    rc, j, err = run_json(write(tmp, "late.trace", text))
    b = j["breaches"][0] if j else {}
    ok(b.get("kind") == "overwritten" and "buffer_size_kb" in b.get("verdict", ""),
       "a trace that starts inside the step: overwritten, raise buffer_size_kb", b or err)

    # The period: rant's JSON with breaches 1 s apart; T3 from the JSON.
    doc = {"breaches": [{"seq": 5 + i, "stamps": {"T1_SW": RT + i * 1_000_300_000,
                                                   "T3_KN": RT + i * 1_000_300_000 + 9000}}
                        for i in range(4)]}
    jpath = write(tmp, "run.json", json.dumps(doc))
    rc, out, err = run(os.path.join(tmp, "irq.trace"), "--json", jpath)
    ok(rc == 0 and "period: 4 breaches repeat at whole seconds" in out and "throttling" in out,
       "breaches 1 s apart: the period and RT throttling named", out + err)
    for k in ("T1_SW", "T3_KN"):
        doc["breaches"][2]["stamps"][k] += 400_000_000
    rc, out, err = run(os.path.join(tmp, "irq.trace"), "--json", write(tmp, "r2.json", json.dumps(doc)))
    ok("period:" not in out, "irregular breaches: no period claimed", out)


def test_inside_metric(tmp):
    """The spike is looked for inside the metric that breached: an RTT
    breach whose largest step is the emitter's user space after T4
    (emit_rx, outside T4 - T1) is placed on the reflector's receive, on
    the reflector's CPU, over that step's window; the hog's share there
    is the time the "ran:" line gives it."""
    st = emit_stamps("reflect_rx", 8_000_000)
    st["T4_SW"] = st["T4_wire"] + 17_600_000     # emit_rx 17.6 ms, outside
    r0 = mono(st["T2_wire"])
    t_m = mono(RT) + 12_000
    text = HDR + marker(1, 400, r0 - 900_000_000, "reflect", {}, kind="start", mono=r0 - 900_000_000)
    # the reflector waits (runnable) while a FIFO hog runs 4002 µs of the
    # 8 ms, then runs itself (3998 µs)
    text += line("rant", 400, 1, r0 - 5_000, "sched_switch",
                 "prev_comm=rant prev_pid=400 prev_prio=120 prev_state=R ==> next_comm=hog next_pid=77 next_prio=9")
    for i in range(4):      # the tick
        text += line("hog", 77, 1, r0 + i * 1_000_000 + 500_000, "sched_stat_runtime",
                     "comm=hog pid=77 runtime=1000000 [ns]")
    text += line("hog", 77, 1, r0 + 4_002_000, "sched_switch",
                 "prev_comm=hog prev_pid=77 prev_prio=9 prev_state=S ==> next_comm=rant next_pid=400 next_prio=120")
    for i in range(4):
        text += line("rant", 400, 1, r0 + 4_002_000 + i * 1_000_000 + 500_000, "sched_stat_runtime",
                     "comm=rant pid=400 runtime=1000000 [ns]")
    text += marker(0, 300, t_m, "emit", st, mono=BASE)
    path = write(tmp, "inside.trace", text)
    rc, j, err = run_json(path)
    b = j["breaches"][0] if j else {}
    steps = {x["name"]: x for x in b.get("steps", [])}
    ok(b.get("metric") == "rtt" and b.get("spike_step") == "reflect_rx" and b.get("cpus") == [1],
       "an RTT breach (no metric named: the emitter's): spike on reflect_rx, CPU 1, "
       "not on emit_rx's 17.6 ms", b or err)
    ok(steps.get("emit_rx", {}).get("inside") is False and steps.get("emit_tx", {}).get("inside") is False
       and steps.get("network_out", {}).get("inside") is True,
       "emit_tx and emit_rx outside the RTT, the network inside", steps)
    ran = {t["comm"]: t["ns"] for t in b.get("cpu_activity", {}).get("1", {}).get("tasks", [])}
    ok(b.get("kind") == "preempted" and "preempted by hog (pid 77, prio 9) for 4002 µs (50% of the step)"
       in b.get("verdict", "") and ran.get("hog") == 4_002_000,
       "the hog's time and share are those it ran in the step's window", (b.get("verdict"), ran))
    rc, out, err = run(path)
    ok("ran: hog:77 4002 µs, rant:400 3998 µs" in out and "(outside rtt)" in out.split("emit_rx")[1].split("\n")[0]
       and "4002 µs (50% of the step)" in out,
       "the text: the ran: line and the verdict agree; emit_rx marked outside", out)
    # rant's JSON names the largest component (inside the metric) itself
    doc = {"breaches": [{"seq": 5, "metric": "rtt", "largest": "network", "stamps": {}}]}
    rc, j, err = run_json(path, "--json", write(tmp, "net.json", json.dumps(doc)))
    b = j["breaches"][0] if j else {}
    ok(b.get("spike_step") == "network_out", "the JSON's largest, network: its larger half", b or err)
    # --threshold-metric rtt_sw: emit_rx is inside, and the largest
    text2 = text.replace("threshold_ns=1000000 ", "threshold_ns=1000000 metric=rtt_sw ")
    rc, j, err = run_json(write(tmp, "sw.trace", text2))
    b = j["breaches"][0] if j else {}
    ok(b.get("metric") == "rtt_sw" and b.get("spike_step") == "emit_rx" and b.get("cpus") == [0],
       "an rtt_sw breach: emit_rx is inside it, on the emitter's CPU", b or err)
    # a metric no step lies inside: said, no window made up
    text3 = text.replace("threshold_ns=1000000 ", "threshold_ns=1000000 metric=emit_ack ")
    rc, j, err = run_json(write(tmp, "ack.trace", text3))
    b = j["breaches"][0] if j else {}
    ok(b.get("kind") == "unknown" and "inside emit_ack" in b.get("verdict", ""),
       "emit_ack: no step inside it, said", b or err)
    # --cpu 1 without the reflector's marker: the hog named with its own
    # time; rant's process there unknown, not the emitter's taken for it
    text4 = "".join(ln for ln in text.splitlines(True) if "RANT_TEST_START" not in ln)
    rc, j, err = run_json(write(tmp, "cpu1.trace", text4), "--cpu", "1")
    b = j["breaches"][0] if j else {}
    ok(b.get("kind") == "busy" and "hog (pid 77, prio 9) ran 4002 µs (50% of the step)" in b.get("verdict", "")
       and b.get("task_pid") is None,
       "--cpu 1 without the reflector's marker: the hog's own time, no task state guessed", b or err)


def test_not_traced(tmp):
    """A CPU outside the instance's tracing_cpumask: "CPU N was not
    traced", not "nothing traced ... a hypervisor or an SMI"."""
    with open(os.path.join(tmp, "gap.trace")) as f:
        gap = f.read()
    inst = os.path.join(tmp, "masked")
    os.mkdir(inst)
    write(inst, "trace", gap)
    write(inst, "trace_clock", "local global [mono]\n")
    write(inst, "tracing_cpumask", "00000000,00000003\n")
    rc, j, err = run_json("--instance", inst)
    b = j["breaches"][0] if j else {}
    ok(b.get("kind") == "not_traced" and b.get("verdict", "").startswith("CPU 2 was not traced") and
       "tracing_cpumask is CPU 0,1" in b.get("verdict", "") and "hypervisor" not in b.get("verdict", ""),
       "the breach's CPU 2 outside tracing_cpumask 3: CPU 2 was not traced, no verdict", b or err)
    rc, out, err = run("--instance", inst)
    ok(rc == 0 and "verdict: CPU 2 was not traced" in out, "the same in the text", out + err)
    write(inst, "tracing_cpumask", "4\n")
    rc, j, err = run_json("--instance", inst)
    b = j["breaches"][0] if j else {}
    ok(b.get("kind") == "untraced" and "nothing traced for 4400 µs" in b.get("verdict", ""),
       "CPU 2 inside tracing_cpumask 4: the hole is judged as before", b or err)
    # A saved trace: the CPU asked for has no event at all in it.
    rc, j, err = run_json(os.path.join(tmp, "gap.trace"), "--cpu", "3")
    b = j["breaches"][0] if j else {}
    ok(b.get("kind") == "not_traced" and "CPU 3 was not traced" in b.get("verdict", "") and
       "events from CPU 2 only" in b.get("verdict", ""),
       "a saved trace without an event of --cpu 3: CPU 3 was not traced", b or err)
    write(inst, "tracing_cpumask", "xyz\n")
    rc, out, err = run("--instance", inst)
    ok(rc == 1 and "not a CPU mask" in err, "an unreadable tracing_cpumask: exit 1, said", err)


def test_errors(tmp):
    rc, out, err = run(write(tmp, "none.trace", HDR + line("x", 1, 0, 5, "sched_stat_runtime", "comm=x pid=1 runtime=1 [ns]")))
    ok(rc == 2 and "no RANT_BREACH" in err, "no marker: exit 2 and why", err)
    rc, out, err = run("--instance", os.path.join(tmp, "no-such-instance"))
    ok(rc == 1 and "no such ftrace instance" in err, "a missing instance: exit 1", err)
    rc, out, err = run(os.path.join(tmp, "missing.trace"))
    ok(rc == 1 and "missing.trace" in err, "a missing file: exit 1, named", err)
    rc, out, err = run("--help")
    ok(rc == 0 and "Examples:" in out and "--instance" in out and "trace_clock" in out,
       "--help has examples and the setup", out)
    # An instance directory of plain files (as a saved copy of one).
    inst = os.path.join(tmp, "inst")
    os.mkdir(inst)
    with open(os.path.join(FIX, "hog.trace")) as f:
        write(inst, "trace", f.read())
    write(inst, "trace_clock", "local global [mono]\n")
    rc, out, err = run("--instance", inst)
    ok(rc == 0 and "preempted by hog-x" in out, "--instance DIR reads DIR/trace", out + err)
    os.makedirs(os.path.join(inst, "per_cpu", "cpu1"))
    os.rename(os.path.join(inst, "trace"), os.path.join(inst, "per_cpu", "cpu1", "trace"))
    rc, out, err = run("--instance", inst, "--per-cpu")
    ok(rc == 0 and "preempted by hog-x" in out, "--per-cpu reads per_cpu/cpuN/trace", out + err)


def main():
    print("TAP version 13")
    with tempfile.TemporaryDirectory(prefix="rant-trace-test.") as tmp:
        test_real(tmp)
        test_made_up(tmp)
        test_inside_metric(tmp)
        test_not_traced(tmp)
        test_errors(tmp)
    return done()


if __name__ == "__main__":
    sys.exit(main())
