#!/usr/bin/env python3
"""Send hand-made datagrams to a rant reflector and report its replies.

Usage: udp_probe.py ADDR PORT
       udp_probe.py ADDR PORT forge SESSION_HEX SEQ [SRC]
       udp_probe.py ADDR PORT flood N [SIZE]
       udp_probe.py ADDR PORT sessions N RATE [SRC]
       udp_probe.py ADDR PORT sessions-tcp N RATE [SRC]
The first sends garbage of several kinds (each must get no reply), each from a
socket of its own and all at once, the replies read until 0.3 s after the last
(each has had 0.3 s or more, and a reply is its own socket's); then valid pings
of several sizes (each must get a pong exactly as long), one at a time from one
socket, each waiting up to 0.3 s for its pong.
Prints one line per probe: "<name> sent=<bytes> reply=<bytes or none>",
and the number of invalid datagrams it sent as "invalid_sent=N".
The second sends one measured ping of a live session's id and the given
seq from a port of its own (as an attacker would), and prints
"forged reply=<bytes or none>"; with SRC, from that local address.
The third sends N garbage datagrams of SIZE bytes (default 1000: a few
hundred fill a default receive queue) back to back, as fast as the
socket takes them, and prints "flood_sent=N" (those the kernel accepted).
The fourth sends N valid measured pings of 72 bytes at RATE a second from one
socket (from SRC with it), each with a session id of its own, as a fleet of
many emitters behind one address does or an attacker would; it reads the
replies as they come and for WAIT_S after the last, and prints
"sessions_sent=N replies=R refused=F" (F: replies with the refused flag).
The fifth does the same on one TCP connection (a --tcp reflector: each
message after its 4-byte big-endian length); with HOLD_FILE in its
environment it then creates that file and keeps the connection open until
the file is gone (10 s at most), for a look at the reflector's side of it.
"""
import os
import select
import socket
import struct
import sys
import time

WAIT_S = 0.3  # how long a reply is waited for

HDR = struct.Struct(">4sBBHIIQq")  # magic ver type flags session len seq t1


def ping(size, seq, session=0xC0FFEE, flags=0, ptype=1, version=1,
         magic=b"RANT", length=None):
    hdr = HDR.pack(magic, version, ptype, flags, session,
                   size if length is None else length, seq, time.time_ns())
    return (hdr + bytes(size))[:size] if size >= HDR.size else hdr[:size]


def forge(s, addr, port, session, seq):
    s.sendto(ping(72, seq, session=session), (addr, port))
    try:
        print("forged reply=%d" % len(s.recv(65536)))
    except socket.timeout:
        print("forged reply=none")


def flood(s, addr, port, n, size):
    data = ping(size, 1, magic=b"JUNK")
    sent = 0
    for _ in range(n):
        try:
            sent += s.sendto(data, (addr, port)) == len(data)
        except BlockingIOError:
            pass
    print("flood_sent=%d" % sent)


F_REFUSED = 0x4000  # msgfmt.h: MSG_F_REFUSED


def new_sessions(s, addr, port, n, rate):
    s.setblocking(False)
    replies = refused = sent = 0
    start = time.monotonic()
    last = start
    while True:
        now = time.monotonic()
        if sent < n and now >= start + sent / rate:
            try:
                s.sendto(ping(72, 1, session=0x51000000 + sent), (addr, port))
            except BlockingIOError:
                pass
            sent += 1
            last = now
            continue
        if sent == n and now > last + WAIT_S:
            break
        wait = start + sent / rate - now if sent < n else last + WAIT_S - now
        ready, _, _ = select.select([s], [], [], max(wait, 0))
        while ready:
            try:
                data = s.recv(65536)
            except BlockingIOError:
                break
            replies += 1
            refused += len(data) >= HDR.size and bool(HDR.unpack_from(data)[3] & F_REFUSED)
    print("sessions_sent=%d replies=%d refused=%d" % (sent, replies, refused))


def new_sessions_tcp(addr, port, n, rate, src):
    s = socket.create_connection((addr, port), timeout=5,
                                 source_address=(src, 0) if src else None)
    s.setblocking(False)
    rx = b""
    replies = refused = sent = 0
    start = time.monotonic()
    last = start
    while sent < n or time.monotonic() < last + WAIT_S:
        now = time.monotonic()
        if sent < n and now >= start + sent / rate:
            msg = ping(72, 1, session=0x52000000 + sent)
            s.setblocking(True)
            s.sendall(struct.pack(">I", len(msg)) + msg)
            s.setblocking(False)
            sent += 1
            last = now
            continue
        wait = start + sent / rate - now if sent < n else last + WAIT_S - now
        ready, _, _ = select.select([s], [], [], max(wait, 0))
        if ready:
            try:
                rx += s.recv(65536)
            except BlockingIOError:
                pass
        while len(rx) >= 4 and len(rx) >= 4 + struct.unpack(">I", rx[:4])[0]:
            ln = struct.unpack(">I", rx[:4])[0]
            data, rx = rx[4:4 + ln], rx[4 + ln:]
            replies += 1
            refused += len(data) >= HDR.size and bool(HDR.unpack_from(data)[3] & F_REFUSED)
    print("sessions_sent=%d replies=%d refused=%d" % (sent, replies, refused), flush=True)
    hold = os.environ.get("HOLD_FILE")
    if hold:
        open(hold, "w").close()
        end = time.monotonic() + 10
        while os.path.exists(hold) and time.monotonic() < end:
            time.sleep(0.01)
    s.close()


def at_once(family, dst, datagrams):
    """Each datagram from a socket of its own, all sent, then the replies
    read until WAIT_S after the last send: the length of each one's first
    reply, or "none"."""
    socks = []
    for data in datagrams:
        s = socket.socket(family, socket.SOCK_DGRAM)
        s.sendto(data, dst)
        socks.append(s)
    got = {}
    end = time.monotonic() + WAIT_S
    while len(got) < len(socks) and time.monotonic() < end:
        ready, _, _ = select.select([s for s in socks if s not in got], [], [],
                                    max(end - time.monotonic(), 0))
        for s in ready:
            got[s] = len(s.recv(65536))
    return [got.get(s, "none") for s in socks]


def main():
    addr, port = sys.argv[1], int(sys.argv[2])
    family = socket.AF_INET6 if ":" in addr else socket.AF_INET
    s = socket.socket(family, socket.SOCK_DGRAM)
    s.settimeout(WAIT_S)
    if len(sys.argv) in (6, 7) and sys.argv[3] == "forge":
        if len(sys.argv) == 7:
            s.bind((sys.argv[6], 0))
        forge(s, addr, port, int(sys.argv[4], 16), int(sys.argv[5]))
        return
    if len(sys.argv) in (5, 6) and sys.argv[3] == "flood":
        flood(s, addr, port, int(sys.argv[4]),
              int(sys.argv[5]) if len(sys.argv) == 6 else 1000)
        return
    if len(sys.argv) in (6, 7) and sys.argv[3] == "sessions-tcp":
        new_sessions_tcp(addr, port, int(sys.argv[4]), float(sys.argv[5]),
                         sys.argv[6] if len(sys.argv) == 7 else None)
        return
    if len(sys.argv) in (6, 7) and sys.argv[3] == "sessions":
        if len(sys.argv) == 7:
            s.bind((sys.argv[6], 0))
        new_sessions(s, addr, port, int(sys.argv[4]), float(sys.argv[5]))
        return
    invalid = [
        ("empty", b""),
        ("short", b"RANT\x01\x01"),
        ("bad_magic", ping(72, 1, magic=b"JUNK")),
        ("bad_version", ping(72, 2, version=9)),
        ("pong_type", ping(72, 3, ptype=2)),
        ("bad_type", ping(72, 4, ptype=77)),
        ("length_lies_long", ping(72, 5, length=1000)),
        ("length_lies_short", ping(1000, 6, length=72)),
        ("random", bytes(range(256)) * 4),
    ]
    valid = [("ping_%d" % n, ping(n, 100 + n)) for n in (32, 71, 72, 200, 1400, 9000)]
    replies = at_once(family, (addr, port), [data for _, data in invalid])
    for (name, data), reply in zip(invalid, replies):
        print("%s sent=%d reply=%s" % (name, len(data), reply))
    for name, data in valid:
        s.sendto(data, (addr, port))
        try:
            reply = s.recv(65536)
            print("%s sent=%d reply=%d" % (name, len(data), len(reply)))
        except socket.timeout:
            print("%s sent=%d reply=none" % (name, len(data)))
    print("invalid_sent=%d" % len(invalid))


if __name__ == "__main__":
    main()
