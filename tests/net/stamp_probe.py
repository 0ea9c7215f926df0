#!/usr/bin/env python3
"""Send hand-made STAMP test packets to a Session-Reflector and report its replies.

Usage: stamp_probe.py ADDR PORT [KEYFILE]
Open mode without KEYFILE, authenticated mode (RFC 8762 §4.2.2) with it.
Sends packets the reflector must not answer (short, empty, an open packet
to an authenticated reflector, a bad base HMAC; each from a socket of its
own, all at once, the replies read until 0.3 s after the last), then, in
order, packets it
must answer exactly as long as they came (valid ones of several sizes up
to the largest UDP datagram, TLVs with bad lengths, which come back
flagged M (or I, authenticated without an HMAC TLV), an unknown TLV, which
comes back flagged U, and, authenticated, a bad HMAC TLV, which comes back
with every TLV flagged I), and, open, a TWAMP-Light test packet (RFC 8762
§4.6: 14 octets and the 27 of padding RFC 5357 recommends), answered with
41 octets, and one with less padding, which would need a longer answer
and is dropped as short. Probes leave with TTL 77 (IPv4). One line per probe:
"<name> sent=<bytes> reply=<bytes or none> flags=<hex flags of the reply's
TLVs, or ->", then "invalid_sent=N" and "unauthenticated_sent=N": the
probes the reflector must count as invalid and as failing their MAC.
Then "fields NAME ok" for each answered probe whose reply echoes the
request's sequence number, timestamp and error estimate where RFC 8762
puts them and reports TTL 77 in Ses-Sender TTL, else "fields NAME bad:
WHY".
"""
import hashlib
import hmac
import socket
import struct
import sys
import time

from udp_probe import at_once

NTP_EPOCH = 2208988800


def ntp_now():
    ns = time.time_ns()
    sec = ns // 10**9 + NTP_EPOCH
    frac = ((ns % 10**9) << 32) // 10**9
    return (sec << 32) | frac


def tlv(ttype, value, flags=0x80):
    return struct.pack(">BBH", flags, ttype, len(value)) + value


def base(seq, auth):
    ts, ee, ssid = ntp_now(), 0x0001, 0x1234
    if auth:
        return struct.pack(">I12xQHH68x", seq, ts, ee, ssid)  # 96 octets, HMAC after
    return struct.pack(">IQHH28x", seq, ts, ee, ssid)  # 44 octets


def sign(key, pkt96):
    return pkt96 + hmac.new(key, pkt96, hashlib.sha256).digest()[:16]


def packet(seq, key, tlvs=b"", pad=0, hmac_tlv=True, bad_base=False, bad_tlv=False):
    if key is None:
        return base(seq, False) + tlvs + bytes(pad)
    p = bytearray(sign(key, base(seq, True)))
    if bad_base:
        p[100] ^= 1
    if tlvs and hmac_tlv:
        mac = hmac.new(key, bytes(p[:4]) + tlvs, hashlib.sha256).digest()[:16]
        if bad_tlv:
            mac = bytes([mac[0] ^ 1]) + mac[1:]
        tlvs += tlv(8, mac)
    return bytes(p) + tlvs + bytes(pad)


def reply_flags(data, auth):
    """The flags of the TLVs after the reply's base, as hex, or '-'."""
    off, flags = 112 if auth else 44, []
    while off + 4 <= len(data) and any(data[off:]):
        f, _, n = struct.unpack(">BBH", data[off:off + 4])
        flags.append("%02x" % f)
        off += 4 + n
    return ",".join(flags) or "-"


TTL = 77


def echo_check(data, r, auth):
    """Why reply r does not reflect request data (RFC 8762 §4.3), or ''."""
    if auth:  # sender: seq 0, T1 16, EE 24; reflector: 48, 64, 72, TTL 80
        got = (r[48:52], r[64:72], r[72:74], r[80])
        want = (data[0:4], data[16:24], data[24:26], TTL)
    else:  # sender: seq 0, T1 4, EE 12; reflector: 24, 28, 36, TTL 40
        got = (r[24:28], r[28:36], r[36:38], r[40])
        want = (data[0:4], data[4:12], data[12:14], TTL)
    names = ("seq", "timestamp", "error estimate", "ttl")
    return ", ".join("%s %r not %r" % (n, g, w) for n, g, w in zip(names, got, want) if g != w)


CHECKS = []


def probe(s, dst, name, data, auth):
    s.sendto(data, dst)
    try:
        r = s.recv(65536)
        print("%s sent=%d reply=%d flags=%s" % (name, len(data), len(r), reply_flags(r, auth)))
        if len(r) >= 41:
            CHECKS.append((name, echo_check(data, r, auth)))
    except socket.timeout:
        print("%s sent=%d reply=none flags=-" % (name, len(data)))


def main():
    addr, port = sys.argv[1], int(sys.argv[2])
    key = open(sys.argv[3], "rb").read() if len(sys.argv) > 3 else None
    auth = key is not None
    family = socket.AF_INET6 if ":" in addr else socket.AF_INET
    s = socket.socket(family, socket.SOCK_DGRAM)
    s.settimeout(0.3)
    if family == socket.AF_INET:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, TTL)
    dst = (addr, port)
    good = packet(1, key)
    invalid = [("short", good[:111 if auth else 40]), ("empty", b"")]
    if auth:
        invalid.append(("open_in_auth", packet(4, None)))  # 44 octets: short here
    else:  # TWAMP-Light with 10 octets of padding: a 41-octet answer would amplify
        invalid.append(("twamp_short", base(5, False)[:14] + bytes(10)))
    unauth = 0
    if auth:
        unanswered = invalid + [("bad_hmac", packet(3, key, bad_base=True))]
        unauth = 1
    else:
        unanswered = invalid
    # each from a socket of its own, at once, every one given 0.3 s or more
    # (udp_probe.py): none may be answered
    replies = at_once(family, dst, [data for _, data in unanswered])
    for (name, data), reply in zip(unanswered, replies):
        print("%s sent=%d reply=%s flags=-" % (name, len(data), reply))
    seq = 10
    for size in (0, 1, 100, 1400, 65507 - len(good)):
        probe(s, dst, "valid_pad%d" % size, packet(seq, key, pad=size), auth)
        seq += 1
    probe(s, dst, "tlv_len_past_end",
          packet(seq, key, tlvs=struct.pack(">BBH", 0x80, 1, 8) + bytes(3) + b"\x01",
                 hmac_tlv=False), auth)
    probe(s, dst, "tlv_len_bad_type", packet(seq + 1, key, tlvs=tlv(7, bytes(3))), auth)
    probe(s, dst, "tlv_unknown", packet(seq + 2, key, tlvs=tlv(200, bytes(6))), auth)
    if not auth:  # TWAMP-Light (RFC 5357 §4.1.2): 14 octets, 27 of padding
        probe(s, dst, "twamp_light", base(seq + 4, False)[:14] + bytes(27), auth)
    if auth:
        probe(s, dst, "tlv_bad_hmac", packet(seq + 3, key, tlvs=tlv(3, bytes(4)),
                                             bad_tlv=True), auth)
    for name, why in CHECKS:
        print("fields %s %s" % (name, "bad: " + why if why else "ok"))
    print("invalid_sent=%d" % len(invalid))
    print("unauthenticated_sent=%d" % unauth)


if __name__ == "__main__":
    main()
