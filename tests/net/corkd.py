#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A small HTTP/1.1 keep-alive server that sets TCP_CORK on every
connection and writes each response in two calls (headers, then body)
without pulling the cork: the tail waits for the kernel's 200 ms cork
timer (tests/net/test_server.sh: the stall is named cork, not Nagle).
Usage: corkd.py PORT"""
import socket
import sys
import threading

BODY = b"a" * 600
HEAD = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nContent-Type: text/plain\r\n\r\n" % len(BODY)


def serve(c):
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 1)
    buf = b""
    try:
        while True:
            d = c.recv(65536)
            if not d:
                return
            buf += d
            while b"\r\n\r\n" in buf:
                _, buf = buf.split(b"\r\n\r\n", 1)
                c.sendall(HEAD)
                c.sendall(BODY)
    except OSError:
        return
    finally:
        c.close()


def main():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", int(sys.argv[1])))
    s.listen(128)
    while True:
        c, _ = s.accept()
        threading.Thread(target=serve, args=(c,), daemon=True).start()


main()
