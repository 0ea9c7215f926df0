#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Hand-built captures of what a hostile or unusual network hands --read
(tests/net/test_watch.sh watch_hostile checks rant against tshark on
each): DIR/tunnels.pcap (TCP flows behind 9 VLAN tags, 10 IPv6
extension headers, IPIP, 6in4, GRE with key and sequence number, GRE of
Ethernet, VXLAN; and one flow in a GRE with routing, which rant does not
decode), DIR/len65535.pcap (one flow whose short frames say an IP total
length of 65535), DIR/tsoffset.pcapng (an interface whose if_tsoffset is
2^62 s), DIR/twolinks.pcapng (two interfaces: Ethernet and raw IP).

With --seeds DIR: the same frames as seeds of tests/fuzz/fuzz_pcap.c
(make fuzz-corpus): DIR/hostile-tunnels, DIR/hostile-len65535.

Usage: hostilecap.py DIR | hostilecap.py --seeds DIR
"""
import struct
import sys

from scapy.all import (GRE, IP, TCP, UDP, VXLAN, Dot1AD, Dot1Q, Ether, IPv6,
                       IPv6ExtHdrDestOpt, Raw, raw, rdpcap, wrpcap)

T0 = 1700000000.0


def flow(outer, inner_ip, cport, t0, step=0.001, req=100, resp=300):
    """One TCP exchange (handshake, request, response, close) as frames:
    outer(frame_payload, to_server) wraps each IP packet."""
    c, s = 1000, 5000
    segs = [
        (True, 'S', c, 0, 0), (False, 'SA', s, c + 1, 0), (True, 'A', c + 1, s + 1, 0),
        (True, 'PA', c + 1, s + 1, req), (False, 'PA', s + 1, c + 1 + req, resp),
        (True, 'A', c + 1 + req, s + 1 + resp, 0), (True, 'FA', c + 1 + req, s + 1 + resp, 0),
        (False, 'FA', s + 1 + resp, c + 2 + req, 0), (True, 'A', c + 2 + req, s + 2 + resp, 0),
    ]
    out = []
    for i, (up, fl, seq, ack, n) in enumerate(segs):
        tcp = TCP(sport=cport if up else 80, dport=80 if up else cport, flags=fl, seq=seq,
                  ack=ack, window=1000)
        pkt = inner_ip(up) / tcp
        if n:
            pkt = pkt / Raw(b'x' * n)
        fr = outer(pkt, up)
        fr.time = t0 + i * step
        out.append(fr)
    return out


def v4(a, b):
    return lambda up: IP(src=a if up else b, dst=b if up else a)


def v6(a, b):
    return lambda up: IPv6(src=a if up else b, dst=b if up else a)


def eth(p, _up):
    return Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02') / p


def vlans9(p, _up):
    f = Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02') / Dot1AD(vlan=1)
    for i in range(8):
        f = f / Dot1Q(vlan=10 + i)
    return f / p


def ext10(p, _up):
    hdrs = IPv6ExtHdrDestOpt()
    for _ in range(9):
        hdrs = hdrs / IPv6ExtHdrDestOpt()
    ip = p[IPv6]
    tcp = ip.payload
    ip.remove_payload()
    return eth(ip / hdrs / tcp, _up)


def ipip(p, up):
    return eth(v4('192.0.2.1', '192.0.2.2')(up) / p, up)


def gre_ks(p, up):
    return eth(v4('192.0.2.1', '192.0.2.2')(up) / GRE(key_present=1, key=7, seqnum_present=1,
                                                       seqence_number=3) / p, up)


def gre_teb(p, up):
    return eth(v4('192.0.2.1', '192.0.2.2')(up) / GRE(proto=0x6558) /
               Ether(src='02:00:00:00:01:01', dst='02:00:00:00:01:02') / p, up)


def vxlan(p, up):
    return eth(v4('192.0.2.1', '192.0.2.2')(up) / UDP(sport=40000, dport=4789) /
               VXLAN(vni=42) / Ether(src='02:00:00:00:02:01', dst='02:00:00:00:02:02') / p, up)


def gre_routing(p, up):
    """R set (RFC 1701): checksum and offset, then a NULL SRE ending the routing."""
    hdr = struct.pack('>HHHH', 0x4000, 0x0800, 0, 0) + struct.pack('>HBB', 0, 0, 0)
    return eth(IP(src='192.0.2.1' if up else '192.0.2.2', dst='192.0.2.2' if up else '192.0.2.1',
                  proto=47) / Raw(hdr + raw(p)), up)


def tunnels(path):
    frames, t = [], T0
    kinds = [(eth, v4('10.0.0.1', '10.0.0.2')), (vlans9, v4('10.0.1.1', '10.0.1.2')),
             (ext10, v6('fd00::1', 'fd00::2')), (ipip, v4('10.0.2.1', '10.0.2.2')),
             (ipip, v6('fd00:2::1', 'fd00:2::2')), (gre_ks, v4('10.0.3.1', '10.0.3.2')),
             (gre_teb, v6('fd00:3::1', 'fd00:3::2')), (vxlan, v4('10.0.4.1', '10.0.4.2')),
             (gre_routing, v4('10.0.5.1', '10.0.5.2'))]
    for i, (outer, inner) in enumerate(kinds):
        frames += flow(outer, inner, 40000 + i, t)
        t += 0.1
    wrpcap(path, frames)


def len65535(path):
    """Every frame says an IP total length of 65535: only the frame's bytes are there."""
    frames = []
    for k in range(3):
        for fr in flow(eth, v4('10.0.9.1', '10.0.9.2'), 41000 + k, T0 + k):
            ip = fr[IP]
            ip.len = 65535
            del ip.chksum
            frames.append(Ether(raw(fr)))
            frames[-1].time = fr.time
    wrpcap(path, frames)


def block(btype, body):
    body += b'\0' * (-len(body) % 4)
    n = 12 + len(body)
    return struct.pack('<II', btype, n) + body + struct.pack('<I', n)


def option(code, value):
    return struct.pack('<HH', code, len(value)) + value + b'\0' * (-len(value) % 4)


def pcapng(path, links, packets, tsoffset=None):
    """links: [linktype]; packets: [(interface, t_ns, bytes)]."""
    out = block(0x0a0d0d0a, struct.pack('<IHHq', 0x1a2b3c4d, 1, 0, -1))
    for lt in links:
        opts = option(9, b'\x09')                       # if_tsresol: ns
        if tsoffset is not None:
            opts += option(14, struct.pack('<q', tsoffset))
        opts += struct.pack('<HH', 0, 0)
        out += block(1, struct.pack('<HHI', lt, 0, 65535) + opts)
    for ifc, t, data in packets:
        out += block(6, struct.pack('<IIIII', ifc, t >> 32, t & 0xffffffff, len(data),
                                    len(data)) + data)
    with open(path, 'wb') as f:
        f.write(out)


def seeds(d):
    """fuzz_pcap.c's input: a byte picking Ethernet, then [length:2][step:1][frame]."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        tunnels(f'{tmp}/t.pcap')
        len65535(f'{tmp}/l.pcap')
        for name, path in (('tunnels', f'{tmp}/t.pcap'), ('len65535', f'{tmp}/l.pcap')):
            out = b'\0'
            for fr in rdpcap(path):
                b = raw(fr)
                out += struct.pack('>HB', len(b), 1) + b
            with open(f'{d}/hostile-{name}', 'wb') as f:
                f.write(out)


def main():
    if sys.argv[1] == '--seeds':
        seeds(sys.argv[2])
        return
    d = sys.argv[1]
    tunnels(f'{d}/tunnels.pcap')
    len65535(f'{d}/len65535.pcap')
    fl = flow(eth, v4('10.0.7.1', '10.0.7.2'), 42000, T0)
    pcapng(f'{d}/tsoffset.pcapng', [1],
           [(0, int(f.time * 1e9), raw(f)) for f in fl], tsoffset=1 << 62)
    a = flow(eth, v4('10.0.8.1', '10.0.8.2'), 43000, T0)
    b = flow(lambda p, up: p, v4('10.0.8.3', '10.0.8.4'), 43001, T0 + 0.0005)
    pk = sorted([(0, int(f.time * 1e9), raw(f)) for f in a] +
                [(1, int(f.time * 1e9), raw(f)) for f in b], key=lambda x: x[1])
    pcapng(f'{d}/twolinks.pcapng', [1, 101], pk)


if __name__ == '__main__':
    main()
