#!/usr/bin/env python3
"""Hoard a rant reflector's sessions, capture pings, replay them.

Usage: hoard.py hoard ADDR PORT N EVERY_S SRC[,SRC...] [KEYFILE | replay:CAPFILE]
       hoard.py hoardtcp ADDR PORT N EVERY_S SRC[,SRC...]
       hoard.py capture IFACE PORT N CAPFILE
       hoard.py replay ADDR PORT CAPFILE [SRC [SPORT]]

hoard: N UDP sockets, socket i bound to the i-th SRC (round robin), each
sending one valid measured ping every EVERY_S seconds, staggered, each with
a session id of its own and seqs 1, 2, ... (signed with the key in KEYFILE,
as rant --key does), or each sending the first ping of CAPFILE unchanged
(a captured ping replayed from N ports). Prints "ready answered=A
refused=R silent=S", what the first pings of the N sockets got, once each
has had a reply or a second passed after the last of them. On SIGTERM it
stops sending, waits for the last replies (3 s at most) and prints
"sent=N answered=A refused=R longer=L": pongs, pongs flagged refused
(MSG_F_REFUSED), replies longer than their ping.

hoardtcp: the same over TCP (a --tcp reflector): N connections, the i-th
from the i-th SRC (round robin), each sending a framed valid ping every
EVERY_S seconds, staggered, and reading its pongs; a connection the
reflector closes is made again 0.2 s later, as a hoarder would. Prints
"ready connected=C answered=A" once every connection was tried and has
had a pong or a second passed after the last first ping; on SIGTERM
"sent=N answered=A cut=C": pongs read, connections the reflector closed.

capture: the first N rant pings to PORT on IFACE (an AF_PACKET socket, IPv4
over Ethernet), one line each: "SRC SPORT HEX"; prints "capturing" when
the socket is open.

replay: every ping of CAPFILE, in order, from SRC (default any) and SPORT
(default any), back to back, then the replies counted until 0.3 s after
the last (each ping has had 0.3 s or more for its reply, as when each
waited for its own); prints "sent=N replies=R".
"""
import hashlib
import hmac
import os
import select
import signal
import socket
import struct
import sys
import time

HDR = struct.Struct(">4sBBHIIQq")  # magic ver type flags session len seq t1
F_AUTH = 0x0004
F_REFUSED = 0x4000
MAC_LEN = 16
REPLY_WAIT_S = 0.3  # replay: how long a reply is waited for


def read_key(path):
    with open(path, "rb") as f:
        key = f.read()
    return key[:-1] if key.endswith(b"\n") else key


def ping(session, seq, key):
    size = 88 if key else 72
    msg = HDR.pack(b"RANT", 1, 1, F_AUTH if key else 0, session, size, seq,
                   time.time_ns()) + bytes(size - HDR.size)
    if key:
        mac = hmac.new(key, msg[:-MAC_LEN], hashlib.sha256).digest()
        msg = msg[:-MAC_LEN] + mac[:MAC_LEN]
    return msg


def read_capture(path):
    with open(path) as f:
        return [(a, int(p), bytes.fromhex(h)) for a, p, h in
                (line.split() for line in f if line.strip())]


def paced(h, n):
    """Until h.stop: h.send(i) for the n senders in turn, each every
    h.every seconds, staggered, h.drain() between; h.ready() printed once
    every sender has had a reply (h.first) or a second passed after the
    round."""
    t0 = time.monotonic()
    k, told = 0, False
    while not h.stop:
        due = t0 + (k // n) * h.every + (k % n) * h.every / n
        now = time.monotonic()
        if now >= due:
            h.send(k % n)
            k += 1
            continue
        h.drain(min(due - now, 0.05))
        if not told and k >= n and (len(h.first) == n or now >= t0 + h.every + 1):
            told = True
            print(h.ready(), flush=True)


class Hoard:
    def __init__(self, addr, port, n, every, srcs, source):
        self.dst = (addr, port)
        self.every = every
        self.socks = []
        for i in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.bind((srcs[i % len(srcs)], 0))
            s.setblocking(False)
            self.socks.append(s)
        self.key, self.captured = None, None
        if source and source.startswith("replay:"):
            self.captured = read_capture(source[7:])[0][2]
        elif source:
            self.key = read_key(source)
        self.ids = [int.from_bytes(os.urandom(4), "big") for _ in range(n)]
        self.seq = [0] * n
        self.lens = {}
        self.sent = self.answered = self.refused = self.longer = 0
        self.first = {}  # fileno: its first reply refused
        self.stop = False

    def send(self, i):
        self.seq[i] += 1
        data = self.captured or ping(self.ids[i], self.seq[i], self.key)
        self.lens[self.socks[i].fileno()] = len(data)
        try:
            self.socks[i].sendto(data, self.dst)
            self.sent += 1
        except OSError:
            pass

    def drain(self, timeout):
        ready, _, _ = select.select(self.socks, [], [], max(timeout, 0))
        for s in ready:
            try:
                data = s.recv(65536)
            except OSError:
                continue
            self.longer += len(data) > self.lens.get(s.fileno(), 0)
            flags = HDR.unpack_from(data)[3] if len(data) >= HDR.size else 0
            if flags & F_REFUSED:
                self.refused += 1
            else:
                self.answered += 1
            self.first.setdefault(s.fileno(), bool(flags & F_REFUSED))

    def ready(self):
        refused = sum(self.first.values())
        return "ready answered=%d refused=%d silent=%d" % (
            len(self.first) - refused, refused, len(self.socks) - len(self.first))

    def run(self):
        paced(self, len(self.socks))
        end = time.monotonic() + 3
        while time.monotonic() < end and self.answered + self.refused < self.sent:
            self.drain(min(end - time.monotonic(), 0.05))
        print("sent=%d answered=%d refused=%d longer=%d" % (
            self.sent, self.answered, self.refused, self.longer), flush=True)


class TcpHoard:
    def __init__(self, addr, port, n, every, srcs):
        self.dst = (addr, port)
        self.every = every
        self.srcs = [srcs[i % len(srcs)] for i in range(n)]
        self.socks = [None] * n
        self.bufs = [b""] * n
        self.retry = [0.0] * n
        self.ids = [int.from_bytes(os.urandom(4), "big") for _ in range(n)]
        self.seq = [0] * n
        self.first = set()  # connections that got a pong
        self.sent = self.answered = self.cut = 0
        self.stop = False

    def connect(self, i):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            s.bind((self.srcs[i], 0))
            s.settimeout(1)
            s.connect(self.dst)
            s.setblocking(False)
            self.socks[i], self.bufs[i] = s, b""
            return True
        except OSError:
            s.close()
            self.retry[i] = time.monotonic() + 0.2
            return False

    def drop(self, i):
        self.socks[i].close()
        self.socks[i] = None
        self.cut += 1
        self.retry[i] = time.monotonic() + 0.2

    def send(self, i):
        if self.socks[i] is None and (time.monotonic() < self.retry[i] or
                                      not self.connect(i)):
            return
        self.seq[i] += 1
        msg = ping(self.ids[i], self.seq[i], None)
        try:
            self.socks[i].send(struct.pack(">I", len(msg)) + msg)
            self.sent += 1
        except OSError:
            self.drop(i)

    def drain(self, timeout):
        live = [s for s in self.socks if s is not None]
        if not live:
            time.sleep(max(timeout, 0))
            return
        ready, _, _ = select.select(live, [], [], max(timeout, 0))
        for s in ready:
            i = self.socks.index(s)
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            if not data:
                self.drop(i)
                continue
            buf = self.bufs[i] + data
            while len(buf) >= 4 and len(buf) >= 4 + struct.unpack_from(">I", buf)[0]:
                buf = buf[4 + struct.unpack_from(">I", buf)[0]:]
                self.answered += 1
                self.first.add(i)
            self.bufs[i] = buf

    def ready(self):
        return "ready connected=%d answered=%d" % (
            sum(s is not None for s in self.socks), len(self.first))

    def run(self):
        for i in range(len(self.socks)):
            self.connect(i)
        paced(self, len(self.socks))
        print("sent=%d answered=%d cut=%d" % (self.sent, self.answered, self.cut), flush=True)


def hoardtcp(argv):
    h = TcpHoard(argv[0], int(argv[1]), int(argv[2]), float(argv[3]), argv[4].split(","))

    def stop(_sig, _frame):
        h.stop = True
    signal.signal(signal.SIGTERM, stop)
    h.run()


def hoard(argv):
    h = Hoard(argv[0], int(argv[1]), int(argv[2]), float(argv[3]),
              argv[4].split(","), argv[5] if len(argv) > 5 else None)

    def stop(_sig, _frame):
        h.stop = True
    signal.signal(signal.SIGTERM, stop)
    h.run()


def capture(argv):
    iface, port, n, out = argv[0], int(argv[1]), int(argv[2]), argv[3]
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.ntohs(0x0800))
    s.bind((iface, 0))
    print("capturing", flush=True)
    got = []
    while len(got) < n:
        frame = s.recv(65536)
        ip = frame[14:]
        if len(ip) < 28 or ip[9] != socket.IPPROTO_UDP:
            continue
        udp = ip[(ip[0] & 15) * 4:]
        sport, dport, length = struct.unpack_from(">HHH", udp)
        payload = udp[8:length]
        if dport == port and len(payload) >= HDR.size and payload[:4] == b"RANT" \
                and payload[5] == 1:
            got.append("%s %d %s" % (socket.inet_ntoa(ip[12:16]), sport, payload.hex()))
    with open(out, "w") as f:
        f.write("\n".join(got) + "\n")


def replay(argv):
    addr, port, pings = argv[0], int(argv[1]), read_capture(argv[2])
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if len(argv) > 3:
        s.bind((argv[3], int(argv[4]) if len(argv) > 4 else 0))
    for _, _, data in pings:
        s.sendto(data, (addr, port))
    # every ping has had REPLY_WAIT_S at least for its reply when this ends
    replies, end = 0, time.monotonic() + REPLY_WAIT_S
    while time.monotonic() < end:
        s.settimeout(max(end - time.monotonic(), 0.001))
        try:
            s.recv(65536)
            replies += 1
        except socket.timeout:
            break
    print("sent=%d replies=%d" % (len(pings), replies), flush=True)


def main():
    cmds = {"hoard": hoard, "hoardtcp": hoardtcp, "capture": capture, "replay": replay}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        sys.exit(__doc__)
    cmds[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    main()
