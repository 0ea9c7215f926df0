#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""rant's STAMP packets read by decoders no one here wrote (TAP, run by prove).

tests/unit/stamp_vectors prints packets as src/wire/stamp.c writes them, with
the values each field should hold; this test writes them into a pcap of
its own (Ethernet, IPv4, UDP: requests to port 862, replies from it) and
checks that scapy's STAMP layer (scapy.contrib.stamp, RFC 8762/8972) and
tshark's TWAMP-Test dissector (-d udp.port==862,twamp.test) read the same
values: sequence numbers, timestamps (NTP and PTP, by the Z bit), Error
Estimates, SSID, TTL, the TLVs' flags, types and lengths. A decoder that
is not installed is skipped (make deps installs both).
"""

import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
from decimal import Decimal

from tap import done, ok, skip

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS = os.path.join(HERE, "stamp_vectors")
NTP_UNIX = 2208988800
SENDER_PORT = 40862

def ptp_of(ns):
    sec, frac = divmod(ns, 10**9)
    return (sec % 2**32) << 32 | frac


def checksum(b):
    s = sum(struct.unpack(f">{len(b) // 2}H", b))
    s = (s >> 16) + (s & 0xffff)
    s += s >> 16
    return ~s & 0xffff


def frame(payload, request):
    sport, dport = (SENDER_PORT, 862) if request else (862, SENDER_PORT)
    src, dst = (b"\x7f\x00\x00\x01", b"\x7f\x00\x00\x02")
    if not request:
        src, dst = dst, src
    udp = struct.pack(">HHHH", sport, dport, 8 + len(payload), 0) + payload
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, 64, 17, 0, src, dst)
    ip = ip[:10] + struct.pack(">H", checksum(ip)) + ip[12:]
    eth = b"\x02\x00\x00\x00\x00\x02" + b"\x02\x00\x00\x00\x00\x01" + b"\x08\x00"
    return eth + ip + udp


def write_pcap(path, vecs):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i, v in enumerate(vecs):
            fr = frame(bytes.fromhex(v["hex"]), v["dir"] == "req")
            f.write(struct.pack("<IIII", 1700000000 + i, 0, len(fr), len(fr)))
            f.write(fr)


def ee_fields(ee):
    return {"S": ee >> 15 & 1, "Z": ee >> 14 & 1, "scale": ee >> 8 & 63, "mult": ee & 255}


def scapy_ts_ok(layer, name, ns, ee):
    """Whether scapy read the timestamp as ns: NTP (Z = 0) as seconds since
    1900 with the binary fraction, to the ns; PTP (Z = 1), which scapy
    keeps as one 64-bit count, as seconds and nanoseconds."""
    val = getattr(layer, name)
    if ee & 0x4000:
        return int(val) == ptp_of(ns)
    return abs((Decimal(val) - NTP_UNIX) * 10**9 - ns) <= 1


def check_scapy_common(v, s, what):
    ok(s.seq == v["seq"], f"scapy {what}: seq", (s.seq, v["seq"]))
    ok(scapy_ts_ok(s, "ts", v["ts"], v["ee"]), f"scapy {what}: timestamp", (s.ts, v["ts"]))
    e = s.err_estimate
    ok({"S": e.S, "Z": e.Z, "scale": e.scale, "mult": e.multiplier} == ee_fields(v["ee"]),
       f"scapy {what}: error estimate S, Z, scale, multiplier", (e.fields, v["ee"]))
    ok(s.ssid == v["ssid"], f"scapy {what}: SSID", (s.ssid, v["ssid"]))


def check_scapy_tlvs(v, s, what):
    got = [[int(t.flags), t.type, t.len, len(t.value)] for t in s.tlv_objects]
    want = [[f, t, ln, ln] for f, t, ln in v["tlvs"]]
    ok(got == want, f"scapy {what}: TLVs (flags, type, length, value)", (got, want))


def scapy_layer(p, cls, stamp_udp):
    """The STAMP layer of a frame. scapy 2.5.0's TLV list takes its length
    from pkt.parent (the UDP header), which its automatic dissection
    leaves unset, so a packet with TLVs falls back to Raw: the layer is
    dissected with its UDP header as parent, as scapy's fields expect."""
    udp = p[stamp_udp]
    return cls(bytes(udp.payload), _parent=udp)


def test_scapy(vecs, pcap):
    try:
        from scapy.utils import rdpcap
        from scapy.layers.inet import UDP
        from scapy.contrib import stamp
    except ImportError as e:
        skip(len(vecs) * 7 + 2, f"scapy.contrib.stamp: {e}")
        return
    pkts = rdpcap(pcap)
    ok(len(pkts) == len(vecs), "scapy reads every packet", len(pkts))
    bound = [p.haslayer(stamp.STAMPSessionSenderTestUnauthenticated) or
             p.haslayer(stamp.STAMPSessionReflectorTestUnauthenticated)
             for v, p in zip(vecs, pkts) if not v["tlvs"]]
    ok(bound and all(bound), "scapy: port 862 dissects as STAMP on its own (packets without TLVs)")
    for v, p in zip(vecs, pkts):
        what = v["name"]
        if v["dir"] == "req":
            s = scapy_layer(p, stamp.STAMPSessionSenderTestUnauthenticated, UDP)
            check_scapy_common(v, s, what)
            ok(s.mbz == 0, f"scapy {what}: MBZ zero", s.mbz)
        else:
            s = scapy_layer(p, stamp.STAMPSessionReflectorTestUnauthenticated, UDP)
            check_scapy_common(v, s, what)
            ok(scapy_ts_ok(s, "ts_rx", v["rx"], v["ee"]) and
               scapy_ts_ok(s, "ts_sender", v["sts"], v["see"]) and
               s.seq_sender == v["sseq"] and s.ttl_sender == v["ttl"] and
               s.err_estimate_sender.Z == v["see"] >> 14 & 1 and
               s.mbz1 == 0 and s.mbz2 == 0,
               f"scapy {what}: T2, sender's seq, T1, error estimate, TTL, MBZ",
               (s.fields, v))
        check_scapy_tlvs(v, s, what)


def tshark_fields(pcap):
    fields = ["twamp.test.seq_number", "twamp.test.error_estimate", "twamp.test.mbz1",
              "twamp.test.sender_seq_number", "twamp.test.sender_error_estimate",
              "twamp.test.sender_ttl", "twamp.test.error_estimate.z",
              "twamp.test.timestamp", "twamp.test.receive_timestamp",
              "twamp.test.sender_timestamp", "twamp.test.padding"]
    cmd = ["tshark", "-r", pcap, "-d", "udp.port==862,twamp.test", "-T", "fields",
           "-o", "gui.column.format:\"No.\",\"%m\"", "-E", "separator=|"]
    for f in fields:
        cmd += ["-e", f]
    env = dict(os.environ, HOME=tempfile.gettempdir())
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    rows = [dict(zip(fields, line.split("|"))) for line in p.stdout.splitlines()]
    return p, rows


def epoch_ns(text):
    """tshark's absolute time ("Nov 14, 2023 22:13:20.123456789 UTC") as ns."""
    import calendar
    import time
    date, frac = text.rsplit(".", 1)
    frac = frac.split()[0]
    sec = calendar.timegm(time.strptime(date, "%b %d, %Y %H:%M:%S"))
    return sec * 10**9 + int(frac.ljust(9, "0")[:9])


def test_tshark(vecs, pcap):
    if not shutil.which("tshark"):
        skip(len(vecs) + 1, "tshark not installed")
        return
    p, rows = tshark_fields(pcap)
    if not ok(p.returncode == 0 and len(rows) == len(vecs), "tshark reads every packet",
              p.stderr + p.stdout):
        return
    for v, r in zip(vecs, rows):
        what = v["name"]
        want = {"twamp.test.seq_number": str(v["seq"]),
                "twamp.test.error_estimate": str(v["ee"]),
                "twamp.test.mbz1": str(v["ssid"])}
        if v["dir"] == "rep":
            want.update({"twamp.test.sender_seq_number": str(v["sseq"]),
                         "twamp.test.sender_error_estimate": str(v["see"]),
                         "twamp.test.sender_ttl": str(v["ttl"])})
        got = {k: r[k] for k in want}
        # tshark 4.0 reads the Timestamp and the Receive Timestamp by the
        # packet's Z bit, but a reply's Session-Sender Timestamp always as
        # NTP (not by the sender's Z): that one is compared for NTP senders
        times_ok = abs(epoch_ns(r["twamp.test.timestamp"]) - v["ts"]) <= 1
        if v["dir"] == "rep":
            times_ok = times_ok and abs(epoch_ns(r["twamp.test.receive_timestamp"]) -
                                        v["rx"]) <= 1
            if not v["see"] & 0x4000:
                times_ok = times_ok and abs(epoch_ns(r["twamp.test.sender_timestamp"]) -
                                            v["sts"]) <= 1
        ok(got == want and times_ok,
           f"tshark {what}: seq, error estimate, SSID (its MBZ), sender's fields, times",
           (got, want, r))


def main():
    if not os.access(VECTORS, os.X_OK):
        print("1..0 # skip tests/unit/stamp_vectors not built (make unit builds it)")
        return 0
    p = subprocess.run([VECTORS], capture_output=True, text=True)
    vecs = [json.loads(line) for line in p.stdout.splitlines()]
    ok(p.returncode == 0 and len(vecs) >= 12, "stamp_vectors wrote the packets", p.stderr)
    with tempfile.TemporaryDirectory() as d:
        pcap = os.path.join(d, "stamp.pcap")
        write_pcap(pcap, vecs)
        test_scapy(vecs, pcap)
        test_tshark(vecs, pcap)
    return done()


if __name__ == "__main__":
    sys.exit(main())
