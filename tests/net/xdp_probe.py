#!/usr/bin/python3
"""Send odd datagrams to a reflector and print what came back.

Usage: xdp_probe.py DST PORT FORMAT   (DST IPv4 or IPv6, FORMAT rant or stamp)
One line per case: "NAME SENT REPLY" (REPLY: the reply's bytes, or
"none" within 200 ms). tests/net/test_xdp.sh checks that no reply is
longer than its request and that the invalid ones get none.
"""
import socket
import struct
import sys
import time


def rant_ping(length, magic=b'RANT', version=1, typ=1, flags=0, len_field=None, seq=1):
    hdr = magic + bytes([version, typ]) + struct.pack('!HII', flags, 0x1234,
                                                      length if len_field is None else len_field)
    hdr += struct.pack('!QQ', seq, time.time_ns())
    return (hdr + bytes(max(0, length - len(hdr))))[:length]


def stamp_req(length, seq=1, tail=b''):
    ns = time.time_ns()
    base = struct.pack('!IIIHH', seq, ns // 10**9 + 2208988800, 0, 0x0001, 7) + bytes(28)
    return (base + tail + bytes(max(0, length - 44 - len(tail))))[:length]


CASES = {
    'rant': [
        ('short', rant_ping(20)),
        ('bad_magic', rant_ping(72, magic=b'RANX')),
        ('bad_version', rant_ping(72, version=2)),
        ('pong_type', rant_ping(72, typ=2)),
        ('bad_length', rant_ping(72, len_field=200)),
        ('header_only', rant_ping(32)),
        ('valid_72', rant_ping(72, seq=2)),
        ('valid_104', rant_ping(104, seq=3, flags=0x0008)),
        ('oversized_3000', rant_ping(3000, seq=4)),
    ],
    'stamp': [
        ('short_20', stamp_req(20)),
        ('short_40', stamp_req(40)),
        ('twamp_41', stamp_req(41, seq=1)),
        ('base_44', stamp_req(44, seq=2)),
        ('padded_100', stamp_req(100, seq=3)),
        ('tlv_60', stamp_req(60, seq=4, tail=bytes([0x80, 1, 0, 12]) + bytes(12))),
        ('oversized_3000', stamp_req(3000, seq=5)),
    ],
}


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in CASES:
        sys.exit(__doc__)
    dst, port, fmt = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    v6 = ':' in dst
    s = socket.socket(socket.AF_INET6 if v6 else socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(('::' if v6 else '0.0.0.0', 40000))
    s.settimeout(0.2)
    for name, data in CASES[fmt]:
        s.sendto(data, (dst, port))
        try:
            reply = s.recv(65536)
            print(name, len(data), len(reply))
        except socket.timeout:
            print(name, len(data), 'none')


main()
