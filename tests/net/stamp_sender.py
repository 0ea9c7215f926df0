#!/usr/bin/env python3
"""A STAMP Session-Sender of its own, written from RFC 8762 and RFC 8972, to
check a stateful Session-Reflector's Follow-Up Telemetry.

Usage: stamp_sender.py ADDR PORT SEQ [SEQ ...]
       stamp_sender.py --sessions N ADDR PORT
       stamp_sender.py --cos DSCP1 TOS N ADDR PORT

Sends one test packet per SEQ, in the order given (so a list may skip
numbers and repeat them, as a sender that lost or resent packets would),
each in open mode (RFC 8762 §4.2.1: a 44-octet base, NTP timestamps) with
a Timestamp Information TLV (RFC 8972 §4.3) and a Follow-Up Telemetry TLV
(§4.7), waiting for its reply (0.5 s at most) and 20 ms more before the
next. RFC 8972 §4.7: a stateful reflector's Follow-Up Telemetry carries
the sequence number of the reflector's previous reply (its own number,
not the sender's), the timestamp of when that reply was sent, and how
that timestamp was taken. So for each reply after the first the sender
checks, against the reply it received before (the reflector's reply
numbers are its own: RFC 8762 §4.3.1 has a stateful reflector count
them itself):
  - the follow-up's sequence number is that reply's sequence number;
  - its timestamp is no earlier than that reply's own Timestamp (taken
    before it was sent) and no later than when it arrived here (one
    machine, one clock), within 1 us of rounding;
  - its method is reported (not 0).
One line per reply: "reply N sender_seq=S seq=R fu_seq=F fu_ts_ns=T
fu_method=M ok" (or "bad: WHY"), "lost sender_seq=S" for a request
without a reply, then "replies=N bad=N". Exit 1 when any check failed
or a reply was lost.

With --sessions N: one request (seq 0) from each of N sockets in turn,
each its own port and so a session of its own at the reflector; one line
each, "session I reply=LEN t2_ns=T2 t3_ns=T3" or "session I reply=none".
A reply whose T2 or T3 is zero reads as a measurement of 1900-01-01 (STAMP
has no refusal): exit 1 for any.

With --cos: N requests (seq 0 on) from one socket whose packets leave
with TOS (DSCP and ECN), each with a Class of Service TLV asking for
DSCP1 (RFC 8972 §4.4) and a Direct Measurement TLV with S_TxC the count
of requests sent (§4.5). Each reply must carry the DSCP and ECN the
request arrived with (DSCP2, ECN), RP 0 and have come with DSCP1 in its
IP header (read with IP_RECVTOS), and the session's counts: R_RxC and
R_TxC both the count of requests so far. The first reply too: a
reflector that turned on its reading of the TOS only when the first
request that needs it came would answer that one U (not processed), a
wrong answer (rant's did so, on 66d9566). One line each, "cos N dscp2=D
ecn=E rp=R reply_dscp=X r_rxc=A r_txc=B ok" (or "bad: WHY"); exit 1 for
any bad or lost.
"""
import socket
import struct
import sys
import time

NTP_EPOCH = 2208988800
TSINFO, COS, DIRECT, FOLLOWUP = 3, 4, 5, 7
U_FLAG = 0x80  # a sender sets U on every TLV (RFC 8972 §4)


def ntp_of(ns):
    sec = ns // 10**9 + NTP_EPOCH
    return (sec << 32) | (((ns % 10**9) << 32) // 10**9)


def ns_of(ntp):
    if not ntp:
        return 0
    return ((ntp >> 32) - NTP_EPOCH) * 10**9 + (((ntp & 0xffffffff) * 10**9) >> 32)


def request(seq):
    """The base (Sequence Number, Timestamp, Error Estimate: Multiplier 1,
    SSID 0x5eed, MBZ), then the two TLVs with zero values."""
    base = struct.pack(">IQHH28x", seq, ntp_of(time.time_ns()), 0x0001, 0x5eed)
    tlvs = struct.pack(">BBH4x", U_FLAG, TSINFO, 4)
    tlvs += struct.pack(">BBH16x", U_FLAG, FOLLOWUP, 16)
    return base + tlvs


def parse(data):
    """The reply's Sequence Number, Timestamp (T3, ns) and its Follow-Up
    Telemetry (seq, timestamp ns, method) or None."""
    seq, t3 = struct.unpack(">IQ", data[0:12])
    sender_seq = struct.unpack(">I", data[24:28])[0]
    off, fu = 44, None
    while off + 4 <= len(data):
        flags, ttype, n = struct.unpack(">BBH", data[off:off + 4])
        if ttype == FOLLOWUP and n == 16 and not flags:
            fseq, fts, method = struct.unpack(">IQB", data[off + 4:off + 17])
            fu = (fseq, ns_of(fts), method)
        off += 4 + n
    return seq, ns_of(t3), sender_seq, fu


def check(prev, fu):
    """Why follow-up fu does not name reply prev, or ''."""
    if prev is None:
        return "" if fu is None or fu[1] == 0 else "a follow-up in the first reply"
    if fu is None:
        return "no Follow-Up Telemetry understood"
    why = []
    if fu[0] != prev["seq"]:
        why.append("names reply %d, not %d" % (fu[0], prev["seq"]))
    if not prev["t3_ns"] - 1000 <= fu[1] <= prev["rx_ns"] + 1000:
        why.append("timestamp %d outside [%d, %d]" % (fu[1], prev["t3_ns"], prev["rx_ns"]))
    if fu[2] == 0:
        why.append("method not reported")
    return ", ".join(why)


def sessions(family, dst, n):
    """One request from each of n sockets; 1 if a reply carried no T2 or T3."""
    bad, socks = 0, []
    for i in range(n):
        s = socket.socket(family, socket.SOCK_DGRAM)
        socks.append(s)  # kept open: each port stays a live session
        s.settimeout(0.3)
        s.sendto(request(0), dst)
        try:
            data = s.recv(2048)
        except socket.timeout:
            print("session %d reply=none" % i)
            continue
        _, t3_ns, _, _ = parse(data)
        t2_ns = ns_of(struct.unpack(">Q", data[16:24])[0])
        print("session %d reply=%d t2_ns=%d t3_ns=%d" % (i, len(data), t2_ns, t3_ns))
        bad |= not t2_ns or not t3_ns
    return bad


def cos_request(seq, dscp1):
    """A request with Class of Service (DSCP1 in the first 6 bits, DSCP2,
    ECN, RP zero) and Direct Measurement (S_TxC: seq + 1 sent, the
    reflector's counters zero)."""
    base = struct.pack(">IQHH28x", seq, ntp_of(time.time_ns()), 0x0001, 0x5eed)
    tlvs = struct.pack(">BBHB3x", U_FLAG, COS, 4, dscp1 << 2)
    tlvs += struct.pack(">BBHI8x", U_FLAG, DIRECT, 12, seq + 1)
    return base + tlvs


def cos_check(data, anc, seq, dscp1, tos):
    """The line's fields and why reply data (ancillary anc) is not right
    (the first reply's as every other's)."""
    got, why = {}, []
    off = 44
    while off + 4 <= len(data):
        flags, ttype, n = struct.unpack(">BBH", data[off:off + 4])
        v = data[off + 4:off + 4 + n]
        if flags:
            why.append("TLV %d flags %02x" % (ttype, flags))
        elif ttype == COS and n == 4:
            got.update(dscp2=(v[0] & 3) << 4 | v[1] >> 4, ecn=v[1] >> 2 & 3, rp=v[1] & 3)
        elif ttype == DIRECT and n == 12:
            s_tx, got["r_rxc"], got["r_txc"] = struct.unpack(">III", v)
            if s_tx != seq + 1:
                why.append("S_TxC %d not %d" % (s_tx, seq + 1))
        off += 4 + n
    for level, kind, val in anc:
        if level == socket.IPPROTO_IP and kind == socket.IP_TOS:
            got["reply_dscp"] = val[0] >> 2
        elif level == socket.IPPROTO_IPV6 and kind == socket.IPV6_TCLASS:
            got["reply_dscp"] = struct.unpack("=i", val[:4])[0] >> 2
    want = {"dscp2": tos >> 2, "ecn": tos & 3, "rp": 0, "reply_dscp": dscp1,
            "r_rxc": seq + 1, "r_txc": seq + 1}
    why += ["%s %s not %s" % (k, got.get(k), w) for k, w in want.items() if got.get(k) != w]
    fields = " ".join("%s=%s" % (k, got.get(k, "-")) for k in
                      ("dscp2", "ecn", "rp", "reply_dscp", "r_rxc", "r_txc"))
    return fields, ", ".join(why)


def cos(dst, dscp1, tos, n):
    """The --cos run: 1 if any reply was lost or not right."""
    v6 = ":" in dst[0]
    s = socket.socket(socket.AF_INET6 if v6 else socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(0.5)
    if v6:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_TCLASS, tos)
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_RECVTCLASS, 1)
    else:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, tos)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_RECVTOS, 1)
    bad = 0
    for seq in range(n):
        s.sendto(cos_request(seq, dscp1), dst)
        try:
            data, anc, _, _ = s.recvmsg(2048, socket.CMSG_SPACE(4))
        except socket.timeout:
            print("cos %d lost" % seq)
            bad = 1
            continue
        fields, why = cos_check(data, anc, seq, dscp1, tos)
        print("cos %d %s %s" % (seq, fields, "bad: " + why if why else "ok"))
        bad |= bool(why)
        time.sleep(0.01)
    return bad


def main():
    if sys.argv[1] == "--cos":
        dscp1, tos, n = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
        sys.exit(cos((sys.argv[5], int(sys.argv[6])), dscp1, tos, n))
    if sys.argv[1] == "--sessions":
        addr, port = sys.argv[3], int(sys.argv[4])
        family = socket.AF_INET6 if ":" in addr else socket.AF_INET
        sys.exit(sessions(family, (addr, port), int(sys.argv[2])))
    addr, port, seqs = sys.argv[1], int(sys.argv[2]), [int(x) for x in sys.argv[3:]]
    family = socket.AF_INET6 if ":" in addr else socket.AF_INET
    s = socket.socket(family, socket.SOCK_DGRAM)
    s.settimeout(0.5)
    prev, n, bad = None, 0, 0
    for i, sseq in enumerate(seqs):
        s.sendto(request(sseq), (addr, port))
        try:
            data = s.recv(2048)
        except socket.timeout:
            print("lost sender_seq=%d" % sseq)
            bad += 1
            continue
        rx_ns = time.time_ns()
        seq, t3_ns, echoed, fu = parse(data)
        why = check(prev, fu) if echoed == sseq else "echoes sender seq %d" % echoed
        f = fu or (0, 0, 0)
        print("reply %d sender_seq=%d seq=%d fu_seq=%d fu_ts_ns=%d fu_method=%d %s"
              % (i, sseq, seq, f[0], f[1], f[2], "bad: " + why if why else "ok"))
        bad += bool(why)
        n += 1
        prev = {"seq": seq, "t3_ns": t3_ns, "rx_ns": rx_ns}
        time.sleep(0.02)
    print("replies=%d bad=%d" % (n, bad))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
