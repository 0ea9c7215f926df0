#!/usr/bin/python3
"""A trace's RTTs from a capture, without rant's code, checked against
rant trace's JSON.

Usage: hopcap.py JSON TOLERANCE_NS OUTLIER_NS PCAP...

PCAP: tcpdump -w files (Ethernet, microsecond or nanosecond pcap) of rant
trace's TCP probes and their answers, merged in time order: the client's
interface, or the probes where the first router receives them and the
answers where the client does (a capture on the sending interface copies
each probe before the driver sends it, so its stamp is taken before the
kernel's TX stamp by the time the copy takes: doc/trace.md). Each SYN
to the trace's port is keyed by (source port, sequence number) and timed
from its capture stamp; its answer is the ICMP Time Exceeded or
Destination Unreachable that quotes that key, or the destination's
SYN-ACK or RST acknowledging it (the first of each). The RTTs are grouped
by (source port, TTL of the SYN).

Against JSON (rant trace -j): for every path's hop with samples, the
sample counts agree, the differences of rant's min and max from the
capture's have a median within TOLERANCE_NS, and none is beyond
OUTLIER_NS. (Where the probes are captured at the first router, its RX
stamp comes after rant's TX stamp by the link's crossing, which a busy
machine can stretch for one probe by the time its CPU was away.) Prints one line a
(path, hop) and the largest difference; exits 1 on a mismatch.
"""
import json
import struct
import sys


def records(path):
    """(t_ns, frame) of each packet of a pcap file."""
    with open(path, 'rb') as f:
        data = f.read()
    magic = struct.unpack('<I', data[:4])[0]
    if magic == 0xa1b23c4d:
        scale, endian = 1, '<'
    elif magic == 0xa1b2c3d4:
        scale, endian = 1000, '<'
    elif magic == 0x4d3cb2a1:
        scale, endian = 1, '>'
    elif magic == 0xd4c3b2a1:
        scale, endian = 1000, '>'
    else:
        sys.exit(f'{path}: not a pcap file')
    off = 24
    while off + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack(endian + 'IIII', data[off:off + 16])
        off += 16
        yield sec * 1000000000 + frac * scale, data[off:off + incl]
        off += incl


def ipv4(frame):
    """The IPv4 packet of an Ethernet frame (802.1Q not expected), or None."""
    if len(frame) < 34 or frame[12:14] != b'\x08\x00':
        return None
    return frame[14:]


def probe_key(ip):
    """(sport, seq) of a quoted or sent TCP header after IPv4 header ip."""
    ihl = (ip[0] & 0xf) * 4
    t = ip[ihl:ihl + 8]
    if len(t) < 8:
        return None
    sport, _, seq = struct.unpack('>HHI', t)
    return sport, seq


def rtts(pcaps, port):
    """{(sport, ttl): [rtt_ns, ...]} of the captures."""
    sent, out, done = {}, {}, set()
    merged = sorted((r for p in pcaps for r in records(p)), key=lambda r: r[0])
    for t, frame in merged:
        ip = ipv4(frame)
        if ip is None:
            continue
        ihl = (ip[0] & 0xf) * 4
        proto, ttl = ip[9], ip[8]
        if proto == 6:
            sport, dport, seq, ack = struct.unpack('>HHII', ip[ihl:ihl + 12])
            flags = ip[ihl + 13]
            if dport == port and flags == 0x02:
                sent.setdefault((sport, seq), (t, ttl))
                continue
            if sport == port and flags & 0x10 and flags & 0x06:
                key = (dport, (ack - 1) & 0xffffffff)
            else:
                continue
        elif proto == 1 and ip[ihl] in (3, 11):
            key = probe_key(ip[ihl + 8:])
        else:
            continue
        if key in sent and key not in done:
            done.add(key)
            t0, ttl0 = sent[key]
            out.setdefault((key[0], ttl0), []).append(t - t0)
    return out


def main():
    js, tol, outlier, pcaps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
    with open(js, encoding='utf-8') as f:
        doc = json.load(f)
    cap = rtts(pcaps, doc['port'])
    bad, worst, n, diffs = 0, 0, 0, []
    for p in doc['paths']:
        for h in p['hops']:
            rtt = h['metrics'].get('rtt')
            if not rtt:
                continue
            got = cap.get((p['source_port'], h['ttl']), [])
            n += 1
            if len(got) != rtt['samples']:
                print(f'port {p["source_port"]} hop {h["ttl"]}: {len(got)} in the capture, '
                      f'{rtt["samples"]} in rant\'s')
                bad += 1
                continue
            dmin, dmax = rtt['min'] - min(got), rtt['max'] - max(got)
            worst = max(worst, abs(dmin), abs(dmax))
            diffs += [abs(dmin), abs(dmax)]
            line = (f'port {p["source_port"]} hop {h["ttl"]}: min {rtt["min"]} / {min(got)} ns, '
                    f'max {rtt["max"]} / {max(got)} ns (rant / capture)')
            if max(abs(dmin), abs(dmax)) > outlier:
                bad += 1
                line += f'  MISMATCH over {outlier} ns'
            print(line)
    diffs.sort()
    med = diffs[(len(diffs) - 1) // 2] if diffs else 0
    print(f'{n} (path, hop)s compared: the median difference {med} ns, the largest {worst} ns')
    if med > tol:
        print(f'MISMATCH: the median difference over {tol} ns')
        bad += 1
    return 1 if bad or not n else 0


if __name__ == '__main__':
    sys.exit(main())
