#!/usr/bin/env python3
"""Hold TCP connections open to a rant --tcp reflector, as a client that
would lock others out: some idle, some with a partial frame.

Usage: tcp_hold.py ADDR PORT IDLE PARTIAL HOLD_S [SLOW]

Opens IDLE connections that send nothing and PARTIAL connections that
send the first 6 bytes of a frame (a 4-byte length of 64, then "RA", the
start of rant's magic: a message begun, never finished), all at once,
and holds them up to HOLD_S seconds. With SLOW, one more connection (a
slow reader, with a 4 KiB receive buffer, held all HOLD_S) sends SLOW
valid pings of 1 MiB and never reads a pong. Prints, flushing each line:
  "connect_failed KIND ERROR"   for a connection that could not be made
  "up idle=N partial=M"         once every connection is made (or failed)
                                and the slow reader's pings are sent
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
HDR = struct.Struct(">4sBBHIIQq")  # magic ver type flags session len seq t1
SLOW_SIZE = 1 << 20


def slow_reader(addr, port, pings):
    """A connection that sends pings of SLOW_SIZE and reads nothing."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.settimeout(10)
    s.connect((addr, port))
    for seq in range(1, pings + 1):
        hdr = HDR.pack(b"RANT", 1, 1, 0, 0x510E, SLOW_SIZE, seq, time.time_ns())
        s.sendall(struct.pack(">I", SLOW_SIZE) + hdr + bytes(SLOW_SIZE - HDR.size))
    s.setblocking(False)
    return s


def say(line):
    print(line, flush=True)


def main():
    addr, port = sys.argv[1], int(sys.argv[2])
    idle, partial, hold = int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
    slow = int(sys.argv[6]) if len(sys.argv) > 6 else 0
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
    held = slow_reader(addr, port, slow) if slow else None  # never read
    up = time.monotonic()
    say("up idle=%d partial=%d" % (sum(k == "idle" for k in socks.values()),
                                   sum(k == "partial" for k in socks.values())))
    while socks or held:
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
    if held:
        held.close()


if __name__ == "__main__":
    main()
