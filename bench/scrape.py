#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Scrape http://HOST:PORT/metrics every PERIOD seconds, as Prometheus
does (one kept-alive connection, reopened when it breaks), until killed.

Usage: scrape.py HOST PORT PERIOD OUT
Each scrape appends its HTTP status (or the error) and body length to
OUT, one line each, flushed, so the bench can count what was served.
Before the first successful connection it retries every 10 ms (the run
it scrapes may not have started yet).
"""
import http.client
import sys
import time


def main():
    host, port, period, out = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    conn, up = None, False
    with open(out, 'a', encoding='utf-8') as log:
        nxt = time.monotonic()
        while True:
            try:
                if conn is None:
                    conn = http.client.HTTPConnection(host, port, timeout=2)
                conn.request('GET', '/metrics')
                resp = conn.getresponse()
                body = resp.read()
                log.write('%d %d\n' % (resp.status, len(body)))
                up = True
            except OSError as e:
                conn = None
                if not up:
                    time.sleep(0.01)
                    continue
                log.write('error %s\n' % e.__class__.__name__)
            log.flush()
            nxt += period
            time.sleep(max(0.0, nxt - time.monotonic()))


if __name__ == '__main__':
    main()
