#!/usr/bin/python3
"""Handshake round trips from a capture, read back by tcpdump: what
rant --syn must agree with, computed without rant's code.

Usage: tcpdump -r FILE -nn --nano -tt | synrtt.py PORT [START_NS]

Pairs each SYN to PORT with the SYN-ACK (or RST) from PORT to the same
client port, the first of each, and prints

  count N p50 NS min NS max NS refused N

over the SYNs at or after START_NS (CLOCK_REALTIME ns; default 0). p50
is the lower median. Exits 1 when no SYN-ACK came.
"""
import re
import sys

LINE = re.compile(r"^(\d+)\.(\d+) IP6? (\S+)\.(\d+) > (\S+)\.(\d+): Flags \[([^\]]*)\]")


def main():
    port = int(sys.argv[1])
    start = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    syn, rtt, refused = {}, [], 0
    for line in sys.stdin:
        m = LINE.match(line)
        if not m:
            continue
        t = int(m.group(1)) * 1000000000 + int(m.group(2).ljust(9, "0")[:9])
        sport, dport, flags = int(m.group(4)), int(m.group(6)), m.group(7)
        if dport == port and flags == "S":
            if t >= start:
                syn.setdefault(sport, t)
        elif sport == port and dport in syn:
            if flags == "S.":
                rtt.append(t - syn.pop(dport))
            elif "R" in flags:
                syn.pop(dport)
                refused += 1
    if not rtt:
        print("no SYN-ACK in the capture", file=sys.stderr)
        return 1
    rtt.sort()
    print("count %d p50 %d min %d max %d refused %d" %
          (len(rtt), rtt[(len(rtt) - 1) // 2], rtt[0], rtt[-1], refused))
    return 0


if __name__ == "__main__":
    sys.exit(main())
