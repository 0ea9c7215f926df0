#!/usr/bin/python3
"""An HTTP server whose listen queue overflows, for rant --http.

    slowaccept.py PORT [BACKLOG [PAUSE_MS]]

One thread: it listens with BACKLOG (1 unless given), accepts one
connection at a time, answers its one request with a 200 and
"Connection: close" (as python3 -m http.server's HTTP/1.0 does), closes
it, then waits PAUSE_MS (5 unless given) before the next accept. More
clients at once than the queue holds: the kernel drops their SYNs (the
namespace's TcpExt ListenOverflows grows) and their connects send the
SYN again. It prints "listening PORT" once it listens.
"""
import socket
import sys
import time

BODY = b"x" * 600
RESPONSE = (b"HTTP/1.1 200 OK\r\nServer: slowaccept\r\nContent-Length: 600\r\n"
            b"Connection: close\r\n\r\n" + BODY)


def serve(conn):
    conn.settimeout(2)
    buf = b""
    try:
        while b"\r\n\r\n" not in buf:
            data = conn.recv(65536)
            if not data:
                return
            buf += data
        conn.sendall(RESPONSE)
    except OSError:
        return


def main():
    port = int(sys.argv[1])
    backlog = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    pause = (int(sys.argv[3]) if len(sys.argv) > 3 else 5) / 1000.0
    lsk = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    lsk.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsk.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    lsk.bind(("::", port))
    lsk.listen(backlog)
    print("listening", port, flush=True)
    while True:
        conn, _ = lsk.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        serve(conn)
        conn.close()
        time.sleep(pause)


if __name__ == "__main__":
    main()
