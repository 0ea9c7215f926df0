#!/usr/bin/env python3
"""Hold TCP connections open to a rant --tcp reflector, as a client that
would lock others out: some idle, some with a partial frame.

Usage: tcp_hold.py ADDR PORT IDLE PARTIAL HOLD_S [SLOW]

Opens IDLE connections that send nothing and PARTIAL connections that
send the first 6 bytes of a frame (a 4-byte length of 64, then "RA", the
start of rant's magic: a message begun, never finished), all at once,
and holds them up to HOLD_S seconds. With SLOW, one more connection (a
slow reader, with a 4 KiB receive buffer, held all HOLD_S) sends SLOW
valid pings of 1 MiB and reads no pong until HOLD_S is over. Prints,
flushing each line:
  "connect_failed KIND ERROR"   for a connection that could not be made
  "up idle=N partial=M"         once every connection is made (or failed)
                                and the slow reader's pings are sent
  "closed KIND AFTER_S EPOCH_S" when the reflector closes one (EOF or
                                reset), AFTER_S since "up"
  "open N"                      at the end: the connections still open
  "slow_pongs N bad M"          then, with SLOW: the pongs it read at last
                                (whole frames, 1 MiB pongs), M not so
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


def read_exact(s, n):
    buf = b""
    while len(buf) < n:
        try:
            part = s.recv(n - len(buf))
        except OSError:
            return None
        if not part:
            return None
        buf += part
    return buf


def drain(s):
    """Read the pongs queued for the slow reader: (whole ones, bad ones)."""
    s.setblocking(True)
    s.settimeout(2)
    good = bad = 0
    while True:
        pfx = read_exact(s, 4)
        if pfx is None:
            return good, bad
        n = struct.unpack(">I", pfx)[0]
        body = read_exact(s, n) if n <= SLOW_SIZE else None
        if body is None or body[:4] != b"RANT" or body[5] != 2:
            return good, bad + 1
        good += 1


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
        say("slow_pongs %d bad %d" % drain(held))
        held.close()


if __name__ == "__main__":
    main()
