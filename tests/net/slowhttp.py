#!/usr/bin/env python3
"""Slow HTTP clients that would hold every slot of an HTTP server.

Usage: slowhttp.py ADDR PORT N SRC[,SRC...] DURATION_S [keepalive]

N connections to ADDR:PORT from each SRC, each sending
"GET /metrics HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n" one byte a second (the
request is never whole before about 35 s). A connection the server closes
(or refuses) is made again half a second later, as an attacker would.
With keepalive, the clients are polite holders instead: each sends the
whole request, reads the whole answer, and sends the next a second later
on the same connection (kept alive), holding its slot between scrapes;
"answers=N" is added to the done line.
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
        self.buf = None	# keepalive: the answer read so far, None: none awaited
        self.next_at = 0.0


def whole(buf):
    """An answer's headers and its Content-Length of body are in buf."""
    head, sep, body = buf.partition(b"\r\n\r\n")
    if not sep:
        return False
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(body) >= int(value)
    return True


def main():
    addr, port, n, srcs, dur = (sys.argv[1], int(sys.argv[2]), int(sys.argv[3]),
                                sys.argv[4].split(","), float(sys.argv[5]))
    sel = selectors.DefaultSelector()
    conns = [Conn(s) for s in srcs for _ in range(n)]
    keep = sys.argv[6:7] == ["keepalive"]
    stats = {"opened": 0, "cut": 0, "longest": 0.0, "answers": 0}
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
        c.sock, c.up_at, c.sent, c.buf, c.next_at = s, now, 0, None, now
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
            elif keep and c.buf is not None:
                c.buf += data
                if whole(c.buf):
                    stats["answers"] += 1
                    c.buf, c.next_at = None, time.monotonic() + 1.0
        now = time.monotonic()
        for c in conns:
            if c.sock is None:
                if now >= c.retry_at:
                    connect(c, now)
                continue
            if keep:
                if c.buf is None and now >= c.next_at:
                    try:
                        c.sock.send(REQ)
                        c.buf = b""
                    except BlockingIOError:
                        pass
                    except OSError:
                        cut(c, now)
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
          (stats["opened"], stats["cut"], stats["longest"], len(still)) +
          (" answers=%d" % stats["answers"] if keep else ""), flush=True)


if __name__ == "__main__":
    main()
