#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Seeds of fuzz_capture.c (make fuzz-corpus, after mkcorpus): corpus/wire's
pings and pongs of each format behind Ethernet, IPv4 and UDP as a capture
holds them (op 0 records), and messages the harness builds itself (op 1)
for whole, lost, duplicated, left-out and late transactions. Run from the
top of the tree."""
import struct

DIR = "tests/fuzz/corpus/"
PORT = 4791
# the table's order (msgfmt.c): its index goes in bits 3-5 of the first byte
FORMATS = [("rant", "ping-72", "pong-72"), ("ptp", "ptp-ping-100", "ptp-pong-100"),
           ("stamp", "stamp-ping-100", "stamp-pong-100")]


def rec(op, body):
    return struct.pack(">HB", len(body), op) + bytes(body)


def frame(dgram, sport, dport):
    udp = struct.pack(">HHHH", sport, dport, 8 + len(dgram), 0)
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp) + len(dgram), 0, 0, 64, 17, 0,
                     bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    eth = bytes(6) + bytes(6) + struct.pack(">H", 0x0800)
    return eth + ip + udp + dgram


def built(kind, session, seq, corrupt=(0, 0, 0)):
    return rec(0x11, [kind, session, seq, *corrupt])


def main():
    for i, (name, ping, pong) in enumerate(FORMATS):
        with open(DIR + "wire/" + ping, "rb") as f:
            ping_dgram = f.read()
        with open(DIR + "wire/" + pong, "rb") as f:
            pong_dgram = f.read()
        for side, what in ((0, "emit"), (0x40, "reflect")):
            head = bytes([i << 3 | side])
            raw = head + rec(0x20, frame(ping_dgram, 40000, PORT)) + \
                rec(0x30, frame(pong_dgram, PORT, 40000))
            with open(f"{DIR}capture/{name}-{what}-frames", "wb") as f:
                f.write(raw)
            s = head
            s += built(0, 1, 5) + built(1, 1, 5) + rec(2, [1, 5, 2, 4])   # whole
            s += built(0, 1, 6) + rec(2, [1, 6, 2, 1])                    # pong lost
            s += built(0, 1, 7) * 2 + built(1, 1, 7) + rec(2, [1, 7, 0, 0])  # a duplicate
            s += built(0, 2, 8) + built(1, 2, 8) + rec(3, [2, 8, 0, 0])   # left out
            s += built(2, 3, 9)                                           # warm-up
            s += rec(4, [60]) + built(0, 1, 10, (45, 0xff, 1)) + rec(2, [1, 10, 2, 2])
            with open(f"{DIR}capture/{name}-{what}-built", "wb") as f:
                f.write(s)


main()
