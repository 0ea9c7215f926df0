#!/usr/bin/env python3
"""Compare a rant log's wire stamps with a capture read back by tcpdump,
independently of rant's own check (src/capture/capmatch.c).

Usage: tcpdump -r FILE -nn --nano -tt -x | pcapstamps.py LOG emit|reflect

Reads tcpdump's lines (a time stamp in seconds.nanoseconds, then the
packet from its IP header as hex), finds rant's header in each UDP
datagram (magic RANT, type, session, seq) and pairs each measured packet
(warm-up flag clear) with the log's stamp of it: on the emitter T1 (ping,
TX) and T4 (pong, RX), on the reflector T3 (pong, TX) and T2 (ping, RX).
A lost ping's row (LOST) is left out, as rant's check leaves it out.
Prints one line per direction:

  tx matched N exact N min_diff D max_diff D only_in_log N
  rx matched N exact N min_diff D max_diff D only_in_log N

with diff = log - capture in ns. Exits 1 on a malformed input.
"""
import re
import sys

WARMUP = 0x0001
PING, PONG = 1, 2


def ns(stamp):
    sec, _, frac = stamp.partition(".")
    return int(sec) * 1000000000 + int(frac.ljust(9, "0")[:9])


def packets(lines):
    """(type, session, seq, flags, ts_ns) of each rant datagram."""
    ts, hexdata = None, []

    def flush():
        if ts is None or not hexdata:
            return None
        b = bytes.fromhex("".join(hexdata))
        if b[0] >> 4 == 4:
            off = (b[0] & 0x0F) * 4
        elif b[0] >> 4 == 6:
            off = 40
        else:
            return None
        r = b[off + 8:]
        if len(r) < 32 or r[0:4] != b"RANT":
            return None
        return (r[5], int.from_bytes(r[8:12], "big"),
                int.from_bytes(r[16:24], "big"),
                int.from_bytes(r[6:8], "big"), ts)

    for line in lines:
        m = re.match(r"^(\d+\.\d{9}) ", line)
        if m:
            p = flush()
            if p:
                yield p
            ts, hexdata = ns(m.group(1)), []
            continue
        m = re.match(r"^\s+0x[0-9a-f]+:\s+((?:[0-9a-f]{2,4} ?)+)", line)
        if m:
            hexdata.append(m.group(1).replace(" ", ""))
    p = flush()
    if p:
        yield p


def log_stamps(path, side):
    """{seq: (ping_ns, pong_ns)} from the log's wire columns."""
    with open(path) as f:
        names = f.readline().split()
        f.readline()
        cols = {n: i for i, n in enumerate(names)}
        want = ("T1", "T4") if side == "emit" else ("T2", "T3")
        idx = []
        for w in want:
            c = [n for n in names if n in (w + "_KN", w + "_HW")]
            if not c:
                sys.exit("log %s has no %s wire column: %s" % (path, w, names))
            idx.append(cols[c[0]])
        lost = cols.get("LOST")
        seq = cols["SEQ"]
        out = {}
        for line in f:
            v = line.split()
            # a lost ping's row: in no count, as in rant's own check
            if lost is not None and v[lost] == "LOST":
                continue
            st = [ns(v[i]) if v[i] != "-" else None for i in idx]
            out[int(v[seq])] = tuple(st)
        return out


def main():
    log, side = sys.argv[1], sys.argv[2]
    stamps = log_stamps(log, side)
    tx_type = PING if side == "emit" else PONG
    res = {"tx": [0, 0, None, None, 0], "rx": [0, 0, None, None, 0]}
    seen = set()
    for typ, _session, seq, flags, ts in packets(sys.stdin):
        if flags & WARMUP or seq not in stamps:
            continue
        # the log's order: emitter (T1, T4) = (ping, pong); reflector (T2, T3)
        st = stamps[seq][0 if typ == PING else 1]
        if st is None:
            continue
        seen.add((typ, seq))
        r = res["tx" if typ == tx_type else "rx"]
        d = st - ts
        r[0] += 1
        r[1] += d == 0
        r[2] = d if r[2] is None else min(r[2], d)
        r[3] = d if r[3] is None else max(r[3], d)
    for seq, st in stamps.items():
        for i, typ in enumerate((PING, PONG)):
            if st[i] is not None and (typ, seq) not in seen:
                res["tx" if typ == tx_type else "rx"][4] += 1
    for k in ("tx", "rx"):
        r = res[k]
        print("%s matched %d exact %d min_diff %s max_diff %s only_in_log %d"
              % (k, r[0], r[1], r[2], r[3], r[4]))


if __name__ == "__main__":
    main()
