// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * capgen: a large pcap of many HTTP-like TCP flows, for --read's bench
 * row and its memory figure (bench/README.md, "Reading a capture").
 *
 * Each flow: the handshake (SYN with MSS, SACK, timestamps and window
 * scale options), -e exchanges (a 100-byte request; a 840-byte response
 * in one segment, or, on the "Nagle" flows, a 240-byte head at once and
 * the 600-byte tail after the client's delayed ACK 40 ms later, as
 * nginx with tcp_nodelay off sends it), then FIN, FIN, ACK. -c flows run
 * at once, their packets interleaved by time; when one ends the next
 * begins, until -f flows. Every segment carries the timestamps option.
 * Frames are cut at -s bytes (as tcpdump -s), nanosecond stamps (-u:
 * microsecond), Ethernet, IPv4 (-6: IPv6). Checksums are left 0.
 *
 *	capgen -o FILE [-f FLOWS] [-c CONCURRENT] [-e EXCHANGES] [-n PERMILLE]
 *	       [-s SNAPLEN] [-u] [-6]
 *
 * -n: flows in a thousand to the Nagle port (8080; the others 8081).
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REQ_LEN 100
#define HEAD_LEN 240
#define BODY_LEN 600
#define SERVER_NS 50000		/* the server's answer, ns */
#define CLIENT_NS 20000		/* the client's next request */
#define WIRE_NS 20000		/* a segment's way to the other end and back */
#define DELACK_NS 40000000	/* the client's delayed ACK */
#define START_NS 1700000000000000000LL

/* One step of a flow: who sends, flags, payload. */
enum step { SYN, SYNACK, ACK3, REQ, HEAD, DELACK, TAIL, RESP, FIN1, FIN2, LASTACK, DONE };

struct flow {
	int64_t t;		/* its next packet */
	uint32_t id;
	enum step step;
	uint32_t left;		/* exchanges to go */
	uint32_t seq[2];	/* next seq, client and server */
	bool nagle;
};

struct gen {
	FILE *f;
	int snaplen;
	bool usec, v6;
	uint8_t buf[2048];
};

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static void put32le(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* The client's address and port, the server's. */
static void ends(const struct flow *fl, bool v6, uint8_t *ca, uint8_t *sa, uint16_t *cp,
		 uint16_t *sp)
{
	memset(ca, 0, 16);
	memset(sa, 0, 16);
	if (v6) {
		ca[0] = 0xfd;
		ca[1] = 0x77;
		put32(ca + 12, fl->id / 50000 + 1);
		sa[0] = 0xfd;
		sa[1] = 0x77;
		sa[15] = 0xfe;
	} else {
		ca[0] = 10;
		ca[1] = (uint8_t)(fl->id / 50000 >> 8);
		ca[2] = (uint8_t)(fl->id / 50000);
		ca[3] = 1;
		sa[0] = 192;
		sa[1] = 168;
		sa[3] = 1;
	}
	*cp = (uint16_t)(10000 + fl->id % 50000);
	*sp = fl->nagle ? 8080 : 8081;
}

/* One segment of fl from the client (c2s) or the server. */
static void emit(struct gen *g, const struct flow *fl, bool c2s, uint8_t flags, uint32_t len)
{
	uint8_t *p = g->buf, ca[16], sa[16];
	uint16_t cp, sp;
	bool syn = flags & 0x02;
	uint32_t ip = g->v6 ? 40 : 20, tcp = syn ? 40 : 32, wire = 14 + ip + tcp + len;
	uint32_t cap = wire < (uint32_t)g->snaplen ? wire : (uint32_t)g->snaplen;
	uint32_t tsv = (uint32_t)(fl->t / 1000000);
	uint8_t *t;

	ends(fl, g->v6, ca, sa, &cp, &sp);
	memset(p, 0, 14 + ip + tcp);
	p[12] = g->v6 ? 0x86 : 0x08;
	p[13] = g->v6 ? 0xdd : 0x00;
	if (g->v6) {
		p[14] = 0x60;
		put16(p + 18, (uint16_t)(tcp + len));
		p[20] = 6;
		p[21] = 64;
		memcpy(p + 22, c2s ? ca : sa, 16);
		memcpy(p + 38, c2s ? sa : ca, 16);
	} else {
		p[14] = 0x45;
		put16(p + 16, (uint16_t)(ip + tcp + len));
		p[20] = 0x40;	/* DF */
		p[22] = 64;
		p[23] = 6;
		memcpy(p + 26, c2s ? ca : sa, 4);
		memcpy(p + 30, c2s ? sa : ca, 4);
	}
	t = p + 14 + ip;
	put16(t, c2s ? cp : sp);
	put16(t + 2, c2s ? sp : cp);
	put32(t + 4, fl->seq[!c2s]);
	put32(t + 8, (flags & 0x10) ? fl->seq[c2s] : 0);
	t[12] = (uint8_t)(tcp / 4 << 4);
	t[13] = flags;
	put16(t + 14, syn ? 64240 : 502);
	if (syn) {	/* MSS, SACK permitted, timestamps, NOP, window scale 7 */
		static const uint8_t o[] = { 2, 4, 5, 0xb4, 4, 2, 8, 10, 0, 0, 0, 0, 0, 0, 0, 0,
					     1, 3, 3, 7 };

		memcpy(t + 20, o, sizeof(o));
		put32(t + 28, tsv);
	} else {
		t[20] = 1;
		t[21] = 1;
		t[22] = 8;
		t[23] = 10;
		put32(t + 24, tsv);
		put32(t + 28, tsv - 1);
	}
	if (cap > 14 + ip + tcp)
		memset(p + 14 + ip + tcp, 'x', cap - (14 + ip + tcp));
	{
		uint8_t h[16];
		int64_t sec = fl->t / 1000000000, frac = fl->t % 1000000000;

		put32le(h, (uint32_t)sec);
		put32le(h + 4, (uint32_t)(g->usec ? frac / 1000 : frac));
		put32le(h + 8, cap);
		put32le(h + 12, wire);
		fwrite(h, 1, sizeof(h), g->f);
		fwrite(p, 1, cap, g->f);
	}
}

/* fl's next packet out, its step advanced and its next time set. */
static void step(struct gen *g, struct flow *fl)
{
	uint32_t *cs = &fl->seq[0], *ss = &fl->seq[1];

	switch (fl->step) {
	case SYN: emit(g, fl, true, 0x02, 0); ++*cs; fl->step = SYNACK; fl->t += WIRE_NS; break;
	case SYNACK: emit(g, fl, false, 0x12, 0); ++*ss; fl->step = ACK3; fl->t += WIRE_NS; break;
	case ACK3: emit(g, fl, true, 0x10, 0); fl->step = REQ; fl->t += CLIENT_NS; break;
	case REQ:
		emit(g, fl, true, 0x18, REQ_LEN);
		*cs += REQ_LEN;
		fl->step = fl->nagle ? HEAD : RESP;
		fl->t += SERVER_NS;
		break;
	case HEAD: emit(g, fl, false, 0x18, HEAD_LEN); *ss += HEAD_LEN; fl->step = DELACK;
		fl->t += DELACK_NS; break;
	case DELACK: emit(g, fl, true, 0x10, 0); fl->step = TAIL; fl->t += WIRE_NS / 2; break;
	case TAIL: case RESP: {
		uint32_t n = fl->step == TAIL ? BODY_LEN : HEAD_LEN + BODY_LEN;

		emit(g, fl, false, 0x18, n);
		*ss += n;
		fl->step = --fl->left ? REQ : FIN1;
		fl->t += CLIENT_NS + WIRE_NS;
		break;
	}
	case FIN1: emit(g, fl, true, 0x11, 0); ++*cs; fl->step = FIN2; fl->t += WIRE_NS; break;
	case FIN2: emit(g, fl, false, 0x11, 0); ++*ss; fl->step = LASTACK; fl->t += WIRE_NS; break;
	case LASTACK: emit(g, fl, true, 0x10, 0); fl->step = DONE; break;
	case DONE: break;
	}
}

/* A min-heap of the flows by their next packet's time: capgen's own, as it
 * builds alone (readbench.sh: cc bench/capgen.c), without src/'s heap.h. */
static void sift(struct flow *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct flow t;

		if (l < n && h[l].t < h[m].t)
			m = l;
		if (l + 1 < n && h[l + 1].t < h[m].t)
			m = l + 1;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static void flow_init(struct flow *fl, uint32_t id, int64_t t, uint32_t ex, int nagle_pm)
{
	*fl = (struct flow){ .t = t, .id = id, .step = SYN, .left = ex,
			     .seq = { id * 2654435761u, ~id * 40503u },
			     .nagle = (int)(id % 1000) < nagle_pm };
}

static int usage(void)
{
	fprintf(stderr, "usage: capgen -o FILE [-f FLOWS] [-c CONCURRENT] [-e EXCHANGES] [-n PERMILLE] [-s SNAPLEN] [-u] [-6]\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct gen g = { .snaplen = 128 };
	uint32_t flows = 10000, conc = 100, ex = 10, next = 0;
	int nagle_pm = 500, opt;
	const char *out = NULL;
	struct flow *h;
	size_t n = 0;
	uint8_t hdr[24] = { 0 };

	while ((opt = getopt(argc, argv, "o:f:c:e:n:s:u6")) != -1) {
		switch (opt) {
		case 'o': out = optarg; break;
		case 'f': flows = (uint32_t)strtoul(optarg, NULL, 10); break;
		case 'c': conc = (uint32_t)strtoul(optarg, NULL, 10); break;
		case 'e': ex = (uint32_t)strtoul(optarg, NULL, 10); break;
		case 'n': nagle_pm = atoi(optarg); break;
		case 's': g.snaplen = atoi(optarg); break;
		case 'u': g.usec = true; break;
		case '6': g.v6 = true; break;
		default: return usage();
		}
	}
	if (!out || !conc || !ex || g.snaplen < 16 || g.snaplen > 2048)
		return usage();
	g.f = strcmp(out, "-") ? fopen(out, "wb") : stdout;
	h = calloc(conc, sizeof(*h));
	if (!g.f || !h) {
		perror(out);
		return 1;
	}
	setvbuf(g.f, NULL, _IOFBF, 1 << 20);
	put32le(hdr, g.usec ? 0xa1b2c3d4u : 0xa1b23c4du);
	hdr[4] = 2;
	hdr[6] = 4;
	put32le(hdr + 16, (uint32_t)g.snaplen);
	put32le(hdr + 20, 1);
	fwrite(hdr, 1, sizeof(hdr), g.f);
	for (; n < conc && next < flows; n++, next++)
		flow_init(&h[n], next, START_NS + (int64_t)next * 1000, ex, nagle_pm);
	for (size_t i = n; i-- > 0;)
		sift(h, n, i);
	while (n) {
		step(&g, &h[0]);
		if (h[0].step == DONE) {
			if (next < flows)
				flow_init(&h[0], next++, h[0].t + 1000, ex, nagle_pm);
			else
				h[0] = h[--n];
		}
		sift(h, n, 0);
	}
	free(h);
	if (fflush(g.f) || (g.f != stdout && fclose(g.f))) {
		perror(out);
		return 1;
	}
	return 0;
}
