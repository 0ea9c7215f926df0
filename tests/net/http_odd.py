#!/usr/bin/python3
"""A small HTTP/1.1 server that misbehaves in one way, for rant --http.

    http_odd.py PORT MODE[:N]

MODE is what it answers each request with (with :N, every Nth request
only, the others a good 200 response):
  chunked     a good 200 response, its body in chunks (kept alive)
  close       a good 200 response with "Connection: close", then closes
  garbage     a line that is no HTTP status line
  huge        a Content-Length of 10^15
  badlength   a Content-Length that is not a number
  midway      half a response, then closes the connection
  silent      nothing: reads requests and never answers
  forever     a 200 with chunked encoding whose chunks never end
  continue    "100 Continue" interim responses, without end
  status404   a good 404 response (kept alive)
  slow        a good 200 response 20 ms after the request (a backend's time)
  slowread    a good 200 response, its requests read 2 KiB a millisecond
              through a 4 KiB receive buffer (a large request's tail held
              back by the window)

It prints "listening PORT" once it listens. Threads, one a connection.
"""
import socket
import socketserver
import sys
import threading
import time

BODY = b"x" * 600


def head(status, extra=b""):
    return b"HTTP/1.1 " + status + b"\r\nServer: odd\r\n" + extra


RESPONSES = {
    "chunked": head(b"200 OK", b"Transfer-Encoding: chunked\r\n\r\n")
    + b"12c\r\n" + BODY[:300] + b"\r\n12c\r\n" + BODY[300:] + b"\r\n0\r\n\r\n",
    "close": head(b"200 OK", b"Content-Length: 600\r\nConnection: close\r\n\r\n") + BODY,
    "garbage": b"SSH-2.0-OpenSSH_9.2 not HTTP at all\r\n\r\n",
    "huge": head(b"200 OK", b"Content-Length: 1000000000000000\r\n\r\n") + BODY,
    "badlength": head(b"200 OK", b"Content-Length: 12x4\r\n\r\n") + BODY,
    "midway": head(b"200 OK", b"Content-Length: 600\r\n\r\n") + BODY[:100],
    "status404": head(b"404 Not Found", b"Content-Length: 9\r\n\r\nnot found"),
    "good": head(b"200 OK", b"Content-Length: 600\r\n\r\n") + BODY,
}


class Handler(socketserver.BaseRequestHandler):
    def requests(self):
        """Yield once per request read (the end of its headers)."""
        buf = b""
        slowread = self.server.mode == "slowread"
        while True:
            if slowread:
                time.sleep(0.001)
            data = self.request.recv(2048 if slowread else 65536)
            if not data:
                return
            buf += data
            while b"\r\n\r\n" in buf:
                _, buf = buf.split(b"\r\n\r\n", 1)
                yield

    def handle(self):
        every = self.server.every
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            for _ in self.requests():
                with self.server.lock:
                    self.server.count += 1
                    odd = self.server.count % every == 0
                mode = self.server.mode if odd else "good"
                mode = "good" if mode == "slowread" else mode
                if mode == "silent":
                    continue
                if mode == "slow":
                    time.sleep(0.02)
                    mode = "good"
                if mode == "continue":
                    interim = head(b"100 Continue", b"\r\n") * 64
                    while True:
                        self.request.sendall(interim)
                if mode == "forever":
                    self.request.sendall(head(b"200 OK", b"Transfer-Encoding: chunked\r\n\r\n"))
                    chunk = b"1000\r\n" + b"y" * 4096 + b"\r\n"
                    while True:
                        self.request.sendall(chunk)
                self.request.sendall(RESPONSES[mode])
                if mode in ("close", "midway", "garbage"):
                    return
        except OSError:
            return


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True
    address_family = socket.AF_INET6

    def server_bind(self):
        self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        super().server_bind()


def main():
    port = int(sys.argv[1])
    mode, _, every = sys.argv[2].partition(":")
    if mode not in RESPONSES and mode not in ("silent", "forever", "continue", "slow",
                                              "slowread"):
        sys.exit("http_odd.py: no mode " + mode)
    srv = Server(("::", port), Handler, bind_and_activate=False)
    if mode == "slowread":
        srv.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    srv.server_bind()
    srv.server_activate()
    srv.mode = mode
    srv.every = int(every or 1)
    srv.count = 0
    srv.lock = threading.Lock()
    print("listening", port, flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
