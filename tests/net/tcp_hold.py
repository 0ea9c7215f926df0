#!/usr/bin/env python3
"""Hold TCP connections open to a rant --tcp reflector, as a client that
would lock others out: some idle, some with a partial frame.

Usage: tcp_hold.py ADDR PORT IDLE PARTIAL HOLD_S

Opens IDLE connections that send nothing and PARTIAL connections that
send the first 6 bytes of a frame (a 4-byte length of 64, then "RA", the
start of rant's magic: a message begun, never finished), all at once,
and holds them up to HOLD_S seconds. Prints, flushing each line:
  "connect_failed KIND ERROR"   for a connection that could not be made
  "up idle=N partial=M"         once every connection is made (or failed)
  "closed KIND AFTER_S EPOCH_S" when the reflector closes one (EOF or
                                reset), AFTER_S since "up"
  "open N"                      at the end: the connections still open
"""
import select
import socket
import struct
import sys
import time

PARTIAL = struct.pack(">I", 64) + b"RA"


def say(line):
    print(line, flush=True)


def main():
    addr, port = sys.argv[1], int(sys.argv[2])
    idle, partial, hold = int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
    kinds = ["idle"] * idle + ["partial"] * partial
    socks = {}
    for kind in kinds:
        try:
            s = socket.create_connection((addr, port), timeout=3)
        except OSError as e:
            say("connect_failed %s %s" % (kind, e))
            continue
        if kind == "partial":
            s.sendall(PARTIAL)
        s.setblocking(False)
        socks[s] = kind
    up = time.monotonic()
    say("up idle=%d partial=%d" % (sum(k == "idle" for k in socks.values()),
                                   sum(k == "partial" for k in socks.values())))
    while socks:
        left = up + hold - time.monotonic()
        if left <= 0:
            break
        readable, _, _ = select.select(list(socks), [], [], left)
        for s in readable:
            try:
                data = s.recv(4096)
            except OSError:
                data = b""
            if data:
                continue  # rant never answers a frame that did not finish
            say("closed %s %.3f %.3f" % (socks.pop(s), time.monotonic() - up,
                                         time.time()))
            s.close()
    say("open %d" % len(socks))


if __name__ == "__main__":
    main()
