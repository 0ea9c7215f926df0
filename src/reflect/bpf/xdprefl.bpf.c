// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rant reflect --xdp: the reflector in the driver (README.md here). A
 * valid rant ping or open STAMP / TWAMP-Light test packet to the
 * reflector's port is answered with XDP_TX: addresses and ports swapped,
 * the pong written in place as the socket reflector writes it
 * (src/wire/wire.c, src/wire/stamp.c), never a byte longer; the rest goes
 * to the stack (XDP_PASS), where the socket reflector answers or counts
 * it. The loader (../xdprefl.c) sets the constants below before loading
 * and keeps the clock offset and the Error Estimate current.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "xdpmap.h"
#include "xdpwire.h"

/* Set by the loader before load. */
const volatile __u16 cfg_port = 12345;	/* host order */
const volatile bool cfg_stamp;		/* --stamp: STAMP, else rant's format */
const volatile bool cfg_stateful;	/* --stamp-stateful */
const volatile bool cfg_keyed;		/* --key: every MAC is the socket's to check */
const volatile bool cfg_allow;		/* --allow given: the trie decides */
const volatile bool cfg_host_known;	/* the boot id was read: host tags */
const volatile __u64 cfg_sip_k0, cfg_sip_k1;	/* its SipHash key (hostid.c) */
const volatile __u32 cfg_warmup;	/* -w: measured pings left out per session */
const volatile __u32 cfg_max_rate;	/* --max-rate, 0: none */
const volatile bool cfg_xsk;		/* --afxdp: pongs to the AF_XDP socket of their queue */

/* Kept current by the loader (mmapped .bss). */
__s64 real_off_ns;	/* CLOCK_REALTIME - CLOCK_TAI */
__u16 stamp_ee;		/* the reflector's Error Estimate (fmtstamp.c's) */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XDPC_N);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, XDP_SESSIONS_MIN);	/* the loader sets --max-sessions */
	__type(key, struct xdp_skey);
	__type(value, struct xdp_sval);
} sessions SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 32);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct xdp_akey);
	__type(value, __u8);
} allow SEC(".maps");

/* --afxdp: the AF_XDP socket of each queue (the loader sets its entries)
 * and the transmit stamps their completions gave (user space writes). */
struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, XDP_QUEUES);
	__type(key, __u32);
	__type(value, __u32);
} xsks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, XDP_SESSIONS_MIN);	/* the loader sets --max-sessions */
	__type(key, struct xdp_skey);
	__type(value, struct xdp_sent);
} sent SEC(".maps");

extern int bpf_xdp_metadata_rx_timestamp(const struct xdp_md *ctx, __u64 *timestamp) __ksym;

/* One frame's facts, parsed. */
struct pkt {
	void *end;
	struct ethhdr *eth;
	void *l3;		/* the IPv4 or IPv6 header, after eth */
	struct udphdr *udp;
	__u8 *msg;		/* the UDP payload */
	__u32 len;		/* its bytes, as the UDP header says */
	__u8 ttl;		/* the ping's TTL or Hop Limit */
	bool v6;		/* ip6, else ip4 (the verifier follows a flag, not a NULL) */
	struct xdp_skey key;
};

static __always_inline void count(__u32 i)
{
	__u64 *c = bpf_map_lookup_elem(&counts, &i);

	if (c)
		(*c)++;
}

static __always_inline __s64 now_real_ns(void)
{
	return (__s64)bpf_ktime_get_tai_ns() + real_off_ns;
}

static __always_inline __u64 get64(const __u8 *p)
{
	__u64 v;

	__builtin_memcpy(&v, p, 8);
	return bpf_be64_to_cpu(v);
}

static __always_inline void put64(__u8 *p, __u64 v)
{
	v = bpf_cpu_to_be64(v);
	__builtin_memcpy(p, &v, 8);
}

static __always_inline void put16(__u8 *p, __u16 v)
{
	v = bpf_htons(v);
	__builtin_memcpy(p, &v, 2);
}

/* fold a 32-bit one's-complement sum into 16 bits */
static __always_inline __u16 fold(__u64 s)
{
	s = (s & 0xffffffff) + (s >> 32);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (__u16)s;
}

/* A 16-bit word of a checksummed region changed from o to n (RFC 1624). */
static __always_inline __u16 csum_adj(__u16 csum, __u16 o, __u16 n)
{
	return (__u16)~fold((__u64)(__u16)~csum + (__u16)~o + n);
}

/* ns since the Unix epoch as STAMP's 64-bit timestamp (stampts.h's
 * stamp_ts_encode, for times after 1970). */
static __always_inline __u64 stamp_ts(__s64 ns, __u16 ee)
{
	__u64 sec = (__u64)ns / 1000000000ULL, frac = (__u64)ns % 1000000000ULL, w;

	if (ee & S_EE_Z)
		w = (sec & 0xffffffff) << 32 | frac;
	else
		w = ((sec + NTP_UNIX) & 0xffffffff) << 32 |
		    ((frac << 32) + 500000000ULL) / 1000000000ULL;
	return w ? w : 1;
}

#define ROTL(x, b) (((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND do { \
	v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32); \
	v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2; \
	v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0; \
	v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32); \
} while (0)

/* hostid.c's hostid_tag(): SipHash-2-4 of the session id's 4 octets. */
static __always_inline __u64 host_tag(__u32 session)
{
	__u64 v0 = cfg_sip_k0 ^ 0x736f6d6570736575ULL, v1 = cfg_sip_k1 ^ 0x646f72616e646f6dULL;
	__u64 v2 = cfg_sip_k0 ^ 0x6c7967656e657261ULL, v3 = cfg_sip_k1 ^ 0x7465646279746573ULL;
	__u64 last = 4ULL << 56 | (__u64)bpf_htonl(session);

	v3 ^= last;
	SIPROUND;
	SIPROUND;
	v0 ^= last;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

/* Ethernet, IPv4 without options and unfragmented or IPv6 with UDP next,
 * UDP to the port, lengths consistent: 0; else -1 (not ours: the stack's). */
static __always_inline int parse(struct xdp_md *ctx, struct pkt *p)
{
	void *data = (void *)(long)ctx->data;
	__u32 ulen, l3len;

	p->end = (void *)(long)ctx->data_end;
	p->eth = data;
	if ((void *)(p->eth + 1) > p->end)
		return -1;
	__builtin_memset(&p->key, 0, sizeof(p->key));
	p->l3 = p->eth + 1;
	if (p->eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip4 = p->l3;

		p->v6 = false;
		if ((void *)(ip4 + 1) > p->end || ip4->ihl != 5 || ip4->protocol != IPPROTO_UDP_ ||
		    (ip4->frag_off & bpf_htons(0x3fff)))
			return -1;
		p->udp = (void *)(ip4 + 1);
		p->ttl = ip4->ttl;
		l3len = bpf_ntohs(ip4->tot_len) - (__u32)sizeof(*ip4);
		p->key.addr[10] = p->key.addr[11] = 0xff;
		__builtin_memcpy(&p->key.addr[12], &ip4->saddr, 4);
	} else if (p->eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = p->l3;

		p->v6 = true;
		if ((void *)(ip6 + 1) > p->end || ip6->nexthdr != IPPROTO_UDP_)
			return -1;
		p->udp = (void *)(ip6 + 1);
		p->ttl = ip6->hop_limit;
		l3len = bpf_ntohs(ip6->payload_len);
		__builtin_memcpy(p->key.addr, &ip6->saddr, 16);
	} else {
		return -1;
	}
	if ((void *)(p->udp + 1) > p->end || p->udp->dest != bpf_htons(cfg_port))
		return -1;
	ulen = bpf_ntohs(p->udp->len);
	if (ulen < sizeof(struct udphdr) || ulen != l3len)
		return -1;
	p->msg = (__u8 *)(p->udp + 1);
	p->len = ulen - sizeof(struct udphdr);
	if (p->len > XDP_LEN_MAX)
		return -1;	/* the socket reflector's */
	if ((void *)p->msg + p->len > p->end)
		return -1;	/* a truncated frame: the stack drops it */
	p->key.port = p->udp->source;
	return 0;
}

/* The frame turned round: MACs, addresses and ports swapped, TTL and TOS
 * as a socket's pong leaves (the UDP checksum does not change with the
 * swap: its words only change places). */
static __always_inline void turn(struct pkt *p)
{
	__u8 mac[6];
	__u16 port = p->udp->source;

	__builtin_memcpy(mac, p->eth->h_source, 6);
	__builtin_memcpy(p->eth->h_source, p->eth->h_dest, 6);
	__builtin_memcpy(p->eth->h_dest, mac, 6);
	p->udp->source = p->udp->dest;
	p->udp->dest = port;
	if (!p->v6) {
		struct iphdr *ip4 = p->l3;
		__be32 a = ip4->saddr;
		__u16 o = *(__u16 *)ip4, n;
		__u16 ot = *((__u16 *)ip4 + 4), nt;

		ip4->saddr = ip4->daddr;
		ip4->daddr = a;
		ip4->tos = 0;
		n = *(__u16 *)ip4;
		ip4->ttl = TTL_OUT;
		nt = *((__u16 *)ip4 + 4);
		ip4->check = csum_adj(csum_adj(ip4->check, o, n), ot, nt);
	} else {
		struct ipv6hdr *ip6 = p->l3;
		struct in6_addr a = ip6->saddr;

		ip6->saddr = ip6->daddr;
		ip6->daddr = a;
		ip6->priority = 0;
		ip6->flow_lbl[0] &= 0x0f;
		ip6->hop_limit = TTL_OUT;
	}
}

/*
 * The sender's session (found or started), if it is answered: the loop
 * guard on its seq and --max-rate. NULL: dropped, counted.
 */
static __always_inline struct xdp_sval *admit(struct pkt *p, __u64 seq, __s64 now_ns)
{
	struct xdp_sval *s, fresh = {};

	s = bpf_map_lookup_elem(&sessions, &p->key);
	if (!s) {
		bpf_map_update_elem(&sessions, &p->key, &fresh, BPF_NOEXIST);
		s = bpf_map_lookup_elem(&sessions, &p->key);
		if (!s)
			return NULL;
		count(XDPC_SESSIONS);
	}
	if (cfg_stamp) {	/* two reflectors that answer each other stop here */
		if (s->pongs && s->rep_seq == seq) {
			if (++s->repeats >= XDP_REPEAT_MAX) {
				count(XDPC_REPEATED);
				return NULL;
			}
		} else {
			s->rep_seq = seq;
			s->repeats = 0;
		}
	}
	if (cfg_max_rate) {	/* session_rate_ok() of session.h */
		__s64 step = 1000000000LL / cfg_max_rate;
		__s64 burst = step * (cfg_max_rate / 10 > 8 ? cfg_max_rate / 10 : 8);

		if (s->rate_tat_ns - now_ns > burst) {
			count(XDPC_RATE_LIMITED);
			return NULL;
		}
		s->rate_tat_ns = (s->rate_tat_ns > now_ns ? s->rate_tat_ns : now_ns) + step;
	}
	return s;
}

/* T2: the driver's stamp where it has one (*hw set), else the clock. */
static __always_inline __s64 rx_stamp(struct xdp_md *ctx, const bool meta, bool *hw)
{
	__u64 t = 0;

	*hw = false;
	if (meta && !bpf_xdp_metadata_rx_timestamp(ctx, &t) && t) {
		*hw = true;
		count(XDPC_T2_NIC);
		return (__s64)t;
	}
	count(XDPC_T2_KERNEL);
	return now_real_ns();
}

/* The turned frame out: XDP_TX, or with --afxdp to its queue's AF_XDP
 * socket (XDP_TX where the queue has none). */
static __always_inline int send(struct xdp_md *ctx)
{
	int act;

	if (!cfg_xsk)
		return XDP_TX;
	act = (int)bpf_redirect_map(&xsks, ctx->rx_queue_index, XDP_TX);
	if (act == XDP_REDIRECT)
		count(XDPC_XSK);
	return act;
}

/* --afxdp: the previous pong's sent stamp, where its completion gave
 * one, for the follow-up (else the hook's, already in o). */
static __always_inline void sent_t3(struct pkt *p, __u64 seq, __s64 *t3, __u16 *flags)
{
	struct xdp_sent *v;

	if (!cfg_xsk)
		return;
	v = bpf_map_lookup_elem(&sent, &p->key);
	if (!v || v->seq != seq || !v->t3_ns)
		return;
	*t3 = v->t3_ns;
	if (v->nic)
		*flags |= F_FU_HW;
	count(XDPC_FU_SENT);
}

/* The counts of a ping of seq: measured, duplicate, warm-up, fetch or
 * -w's left out (reflect.c's reflect_compose). */
static __always_inline void tally(struct xdp_sval *s, __u16 flags, __u64 seq)
{
	if (flags & F_WARMUP) {
		count(flags & F_FETCH ? XDPC_FETCH : XDPC_WARMUP);
		return;
	}
	if (s->last_seq && seq <= s->last_seq) {
		count(XDPC_DUPLICATE);
		return;
	}
	s->last_seq = seq;
	if (s->left_out < cfg_warmup) {
		s->left_out++;
		count(XDPC_WARMUP);
		return;
	}
	count(XDPC_MEASURED);
}

/* A 16-bit word of memory as the checksum reads it, from its two bytes. */
static __always_inline __u16 word(__u8 hi, __u8 lo)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (__u16)hi | (__u16)lo << 8;
#else
	return (__u16)hi << 8 | lo;
#endif
}

/*
 * The UDP checksum of the pong, computed whole (pseudo-header, header,
 * payload): a ping from a veth peer on this host carries only the
 * pseudo-header's sum (checksum offload), which no update of it can
 * mend. The payload in 64-byte steps, then 4, then the last bytes. A
 * global function, verified once on its own (its loops would multiply
 * the caller's paths): it finds the headers again from ctx, IPv4
 * without options (parse() made sure) or IPv6.
 */
__noinline int udp_csum(struct xdp_md *ctx, __u32 v6)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	__u32 l3 = v6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr), off = 0, len;
	struct udphdr *udp = data + sizeof(struct ethhdr) + l3;
	__u8 *m = (__u8 *)(udp + 1);
	__u64 s = 0;
	__s64 d;

	if ((void *)(udp + 1) > end)
		return -1;
	len = bpf_ntohs(udp->len) - sizeof(*udp);
	udp->check = 0;
	if (v6) {
		struct ipv6hdr *ip6 = data + sizeof(struct ethhdr);

		if ((void *)(ip6 + 1) > end)
			return -1;
		d = bpf_csum_diff(NULL, 0, (__be32 *)&ip6->saddr, 32, 0);
	} else {
		struct iphdr *ip4 = data + sizeof(struct ethhdr);

		if ((void *)(ip4 + 1) > end)
			return -1;
		d = bpf_csum_diff(NULL, 0, (__be32 *)&ip4->saddr, 8, 0);
	}
	s += (__u32)d + (__u32)bpf_htons(IPPROTO_UDP_) + udp->len;
	s += (__u32)bpf_csum_diff(NULL, 0, (__be32 *)udp, 8, 0);
	for (int i = 0; i < XDP_LEN_MAX / 64; i++) {
		if (off + 64 > len || (void *)(m + off + 64) > end)
			break;
		s += (__u32)bpf_csum_diff(NULL, 0, (__be32 *)(m + off), 64, 0);
		off += 64;
	}
	for (int i = 0; i < 16; i++) {
		if (off + 4 > len || (void *)(m + off + 4) > end)
			break;
		s += (__u32)bpf_csum_diff(NULL, 0, (__be32 *)(m + off), 4, 0);
		off += 4;
	}
	if (off + 2 <= len && (void *)(m + off + 2) <= end) {
		s += word(m[off], m[off + 1]);
		off += 2;
	}
	if (off + 1 <= len && (void *)(m + off + 1) <= end)
		s += word(m[off], 0);
	udp->check = ~fold(s) ? : 0xffff;
	return 0;
}

/* What a rant pong says besides the header it echoes. */
struct rant_out {
	__u16 flags;		/* the pong's */
	__s64 t2, t2_sw;
	__u64 fu_seq;
	__s64 fu_t3;
};

/* The first n bytes of the ping (8: the header's type and flags; 72
 * with the body; 104 with the report) rewritten as its pong. */
static __always_inline int rant_fill(struct pkt *p, const __u32 n, const struct rant_out *o)
{
	__u8 *m = p->msg;

	if ((void *)m + n > p->end)
		return -1;
	m[5] = 2;
	put16(m + 6, o->flags);
	if (n >= W_BODY) {
		put64(m + 32, (__u64)o->t2);
		put64(m + 40, (__u64)o->t2_sw);
		put64(m + 48, 0);
		put64(m + 56, o->fu_seq);
		put64(m + 64, (__u64)o->fu_t3);
	}
	if (n >= W_REPORT) {	/* no send error, drop or queue known */
		__builtin_memset(m + 72, 0, 32);
		m[72] = 1;
	}
	return 0;
}

/* rant's ping: its pong, in place (wire.c's rant_put_pong). */
static __always_inline int rant_pong(struct xdp_md *ctx, struct pkt *p, const bool meta)
{
	struct rant_out o = {};
	__u8 *m = p->msg;
	struct xdp_sval *s;
	__u64 seq, sl;
	__u16 flags;
	bool hw, body, report;
	int ret;

	if (p->len < W_HDR || (void *)m + W_HDR > p->end)
		goto pass;
	sl = get64(m + 8);	/* session id, length */
	if (m[0] != 'R' || m[1] != 'A' || m[2] != 'N' || m[3] != 'T' || m[4] != 1 ||
	    m[5] != 1 || (__u32)sl != p->len)
		goto pass;	/* not a ping: the socket counts it invalid */
	flags = (__u16)m[6] << 8 | m[7];
	if (flags & (F_MAC | F_WANT_SW))
		goto pass;	/* --key, -s: the socket reflector's */
	o.t2 = rx_stamp(ctx, meta, &hw);
	seq = get64(m + 16);
	p->key.session = (__u32)(sl >> 32);
	s = admit(p, seq, o.t2);
	if (!s)
		return XDP_DROP;
	tally(s, flags, seq);
	body = p->len >= W_BODY;
	report = (flags & F_WANT_REPORT) && p->len >= W_REPORT;
	o.flags = (flags & F_PING_MASK & ~(F_MAC | F_HOST | F_REPORT)) | F_T2 |
		  (hw ? F_T2_HW : 0) | (report ? F_REPORT : 0);
	if (body && s->fu_t3_ns) {
		o.flags |= F_FU;
		o.fu_seq = s->fu_seq;
		o.fu_t3 = s->fu_t3_ns;
		sent_t3(p, s->fu_seq, &o.fu_t3, &o.flags);
		s->fu_t3_ns = 0;
	}
	if (body && cfg_host_known && (flags & F_WARMUP)) {
		o.flags = (o.flags & ~F_SW) | F_HOST;
		o.t2_sw = (__s64)host_tag(p->key.session);
	}
	ret = report ? rant_fill(p, W_REPORT, &o) : body ? rant_fill(p, W_BODY, &o) :
	      rant_fill(p, 8, &o);
	if (ret)
		goto pass;
	turn(p);
	udp_csum(ctx, p->v6);
	s->pongs++;
	/* T3: the last the program does before the driver sends */
	s->fu_seq = seq;
	s->fu_t3_ns = now_real_ns();
	return send(ctx);
pass:
	count(XDPC_PASSED);
	return XDP_PASS;
}

/* Whether the datagram's bytes after STAMP's base, at most XDP_PAD_MAX
 * and a multiple of 4, are zero padding (answered as they came); a global
 * function, verified on its own (see udp_csum). */
__noinline int stamp_padding(struct xdp_md *ctx, __u32 v6)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	__u32 l3 = v6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr), len;
	struct udphdr *udp = data + sizeof(struct ethhdr) + l3;
	__u8 *m = (__u8 *)(udp + 1);

	if ((void *)(udp + 1) > end)
		return 0;
	len = bpf_ntohs(udp->len) - sizeof(*udp);
	if (len & 3)
		return 0;	/* the socket's to tell */
	for (__u32 i = S_BASE; i < S_BASE + XDP_PAD_MAX; i += 4) {
		if (i + 4 > len)
			break;
		if ((void *)(m + i + 4) > end || *(__u32 *)(m + i))
			return 0;
	}
	return len <= S_BASE + XDP_PAD_MAX;
}

/* The reply's first n bytes (40 or 44) from base over the request's. */
static __always_inline int stamp_fill(struct pkt *p, const __u32 n, const __u8 *base)
{
	if ((void *)p->msg + n > p->end)
		return -1;
	__builtin_memcpy(p->msg, base, n);
	return 0;
}

/* An open STAMP or TWAMP-Light test packet: its reply, in place
 * (stamp.c's put_reflected; a 41-43 octet request's reply cut to it). */
static __always_inline int stamp_reply(struct xdp_md *ctx, struct pkt *p, const bool meta)
{
	__u8 base[S_BASE] = {};
	__u8 *m = p->msg;
	struct xdp_sval *s;
	__u32 sseq, rseq;
	__u16 ee = stamp_ee;
	__s64 t2;
	bool hw;
	int ret;

	if (p->udp->source == bpf_htons(STAMP_PORT) || p->udp->source == bpf_htons(cfg_port)) {
		count(XDPC_LOOPED);	/* reflect.c's reflect_looped() */
		return XDP_DROP;
	}
	if (p->len < S_TWAMP_MIN || (void *)m + 40 > p->end)
		goto pass;	/* short: the socket counts it invalid */
	if (p->len > S_BASE && !stamp_padding(ctx, p->v6))
		goto pass;	/* TLVs (or --key's 112): the socket's */
	t2 = rx_stamp(ctx, meta, &hw);
	sseq = bpf_ntohl(*(__u32 *)m);
	p->key.session = (__u32)m[14] << 8 | m[15];	/* the SSID */
	s = admit(p, sseq, t2);
	if (!s)
		return XDP_DROP;
	tally(s, 0, (__u64)sseq + 1);
	rseq = cfg_stateful ? (__u32)s->pongs : sseq;
	__builtin_memcpy(base + 24, m, 4);	/* the sender's seq, */
	__builtin_memcpy(base + 28, m + 4, 8);	/* timestamp */
	__builtin_memcpy(base + 36, m + 12, 2);	/* and Error Estimate */
	__builtin_memcpy(base + 14, m + 14, 2);	/* the SSID */
	*(__u32 *)base = bpf_htonl(rseq);
	put16(base + 12, ee);
	put64(base + 16, stamp_ts(t2, ee));
	base[40] = p->ttl;
	s->pongs++;
	/* T3: the last the program does before the checksum and the driver */
	put64(base + 4, stamp_ts(now_real_ns(), ee));
	if (p->len >= S_BASE) {
		ret = stamp_fill(p, S_BASE, base);
	} else {
		ret = stamp_fill(p, 40, base);
		if ((void *)(m + 41) <= p->end)
			m[40] = p->ttl;
		if (p->len > 41 && (void *)(m + 42) <= p->end)
			m[41] = 0;
		if (p->len > 42 && (void *)(m + 43) <= p->end)
			m[42] = 0;
	}
	if (ret)
		goto pass;
	turn(p);
	udp_csum(ctx, p->v6);
	return send(ctx);
pass:
	count(XDPC_PASSED);
	return XDP_PASS;
}

/* --allow: the trie holds the sender (reflect.c: before any parsing). */
static __always_inline bool allowed(struct pkt *p)
{
	struct xdp_akey k = { .prefixlen = 128 };

	if (!cfg_allow)
		return true;
	__builtin_memcpy(k.addr, p->key.addr, 16);
	if (bpf_map_lookup_elem(&allow, &k))
		return true;
	count(XDPC_NOT_ALLOWED);
	return false;
}

static __always_inline int reflect(struct xdp_md *ctx, const bool meta)
{
	struct pkt p;

	if (parse(ctx, &p))
		return XDP_PASS;
	if (!allowed(&p))
		return XDP_DROP;
	if (cfg_keyed) {
		count(XDPC_PASSED);
		return XDP_PASS;
	}
	return cfg_stamp ? stamp_reply(ctx, &p, meta) : rant_pong(ctx, &p, meta);
}

/* Loaded bound to the device: T2 asked of the driver (a kernel rejects
 * the kfunc in a program that is not, even where it is never called). */
SEC("xdp")
int rant_xdp_meta(struct xdp_md *ctx)
{
	return reflect(ctx, true);
}

/* Anywhere else: T2 the kernel clock. */
SEC("xdp")
int rant_xdp(struct xdp_md *ctx)
{
	return reflect(ctx, false);
}

char LICENSE[] SEC("license") = "GPL";
