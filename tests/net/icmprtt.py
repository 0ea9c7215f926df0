#!/usr/bin/python3
"""Echo round trips from a capture, read back by tcpdump: what rant
--icmp must agree with, computed without rant's code.

Usage: tcpdump -r FILE -nn --nano -tt icmp | icmprtt.py [START_NS [LOG]]

Pairs each ICMP echo request with the first echo reply of the same
identifier and sequence, over the requests at or after START_NS
(CLOCK_REALTIME ns; default 0), and prints

  count N p50 NS min NS max NS

(p50 the lower median). With LOG (rant's -l log: SEQ T1_KN T4_KN RTT
T1_SCHED ...), each logged echo is compared with the capture's of its
sequence, and it prints

  count N matched N rx_max NS tx_outside N tx_lead_p50 NS tx_lead_max NS

rx_max: the largest |T4 - the reply's capture stamp|; tx_outside: the
requests whose capture stamp is not between T1_SCHED and T1 (2 us of
slack each way: a packet tap stamps a sent packet after the qdisc and
before the driver's stamp); tx_lead: T1 less the capture's stamp. Exits
1 when no reply came.
"""
import re
import sys

LINE = re.compile(r"^(\d+)\.(\d+) IP6? .*ICMP6?,? echo (request|reply), id (\d+), seq (\d+)")
SLACK = 2000


def ns(text):
    s, _, f = text.partition(".")
    return int(s) * 1000000000 + int(f.ljust(9, "0")[:9])


def capture(start):
    req, pairs = {}, {}
    for line in sys.stdin:
        m = LINE.match(line)
        if not m:
            continue
        t = ns(m.group(1) + "." + m.group(2))
        key = (m.group(4), m.group(5))
        if m.group(3) == "request":
            if t >= start:
                req.setdefault(key, t)
        elif key in req:
            pairs[int(key[1])] = (req.pop(key), t)
    return pairs


def against_log(pairs, path):
    n = matched = outside = 0
    rx_max, lead = 0, []
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) < 6 or not w[0].isdigit() or w[5] != "-":
                continue
            n += 1
            p = pairs.get(int(w[0]) % 65536)
            if not p:
                continue
            matched += 1
            t1, t4, sched = ns(w[1]), ns(w[2]), ns(w[4])
            rx_max = max(rx_max, abs(t4 - p[1]))
            outside += not (sched - SLACK <= p[0] <= t1 + SLACK)
            lead.append(t1 - p[0])
    lead.sort()
    print("count %d matched %d rx_max %d tx_outside %d tx_lead_p50 %d tx_lead_max %d" %
          (n, matched, rx_max, outside, lead[(len(lead) - 1) // 2] if lead else 0,
           lead[-1] if lead else 0))


def main():
    start = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    pairs = capture(start)
    if not pairs:
        print("no echo reply in the capture", file=sys.stderr)
        return 1
    if len(sys.argv) > 2:
        against_log(pairs, sys.argv[2])
        return 0
    rtt = sorted(b - a for a, b in pairs.values())
    print("count %d p50 %d min %d max %d" % (len(rtt), rtt[(len(rtt) - 1) // 2], rtt[0], rtt[-1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
