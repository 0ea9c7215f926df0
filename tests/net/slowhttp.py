#!/usr/bin/env python3
"""Slow HTTP clients that would hold every slot of an HTTP server.

Usage: slowhttp.py ADDR PORT N SRC[,SRC...] DURATION_S

N connections to ADDR:PORT from each SRC, each sending
"GET /metrics HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n" one byte a second (the
request is never whole before about 35 s). A connection the server closes
(or refuses) is made again half a second later, as an attacker would.
Prints, flushing each line:
  "ready open=O"   once every first connect has been tried, O of them up
  "done opened=A cut=C longest=L open=O"   after DURATION_S (or SIGTERM):
                   A connections made, C of them closed by the server,
                   the longest any was held L seconds (those still open
                   counted to now), O still open
"""
import selectors
import signal
import socket
import sys
import time

REQ = b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"


class Conn:
    def __init__(self, src):
        self.src = src
        self.sock = None
        self.up_at = 0.0
        self.sent = 0
        self.retry_at = 0.0


def main():
    addr, port, n, srcs, dur = (sys.argv[1], int(sys.argv[2]), int(sys.argv[3]),
                                sys.argv[4].split(","), float(sys.argv[5]))
    sel = selectors.DefaultSelector()
    conns = [Conn(s) for s in srcs for _ in range(n)]
    stats = {"opened": 0, "cut": 0, "longest": 0.0}
    stop = [False]
    signal.signal(signal.SIGTERM, lambda *_: stop.__setitem__(0, True))

    def connect(c, now):
        s = socket.socket()
        s.setblocking(False)
        try:
            s.bind((c.src, 0))
            s.connect_ex((addr, port))
        except OSError:
            s.close()
            c.retry_at = now + 0.5
            return
        c.sock, c.up_at, c.sent = s, now, 0
        stats["opened"] += 1
        sel.register(s, selectors.EVENT_READ, c)

    def cut(c, now):
        stats["longest"] = max(stats["longest"], now - c.up_at)
        stats["cut"] += 1
        sel.unregister(c.sock)
        c.sock.close()
        c.sock = None
        c.retry_at = now + 0.5

    start = time.monotonic()
    for c in conns:
        connect(c, start)
    time.sleep(0.2)
    print("ready open=%d" % sum(c.sock is not None for c in conns), flush=True)
    while not stop[0] and time.monotonic() - start < dur:
        for key, _ in sel.select(timeout=0.1):
            c = key.data
            try:
                data = c.sock.recv(4096)
            except OSError:
                data = b""
            if not data:	# closed by the server: a reply is not waited for
                cut(c, time.monotonic())
        now = time.monotonic()
        for c in conns:
            if c.sock is None:
                if now >= c.retry_at:
                    connect(c, now)
                continue
            if c.sent < len(REQ) and now - c.up_at >= c.sent:
                try:
                    c.sock.send(REQ[c.sent:c.sent + 1])
                    c.sent += 1
                except BlockingIOError:
                    pass
                except OSError:
                    cut(c, now)
    now = time.monotonic()
    still = [c for c in conns if c.sock is not None]
    for c in still:
        stats["longest"] = max(stats["longest"], now - c.up_at)
    print("done opened=%d cut=%d longest=%.1f open=%d" %
          (stats["opened"], stats["cut"], stats["longest"], len(still)), flush=True)


if __name__ == "__main__":
    main()
