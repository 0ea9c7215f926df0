// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness: the input is a control buffer, handed over as the
 * kernel hands one to recvmsg(): msg_control holds exactly the input and
 * msg_controllen is its size, so ASan sees any read past it. The parsers
 * (RX and TX stamps, an ICMP error, the drop count, the TTL, the TOS, the destination
 * address, and the loop's one walk of the first five) run on it, then
 * again on a copy at an odd address, which must give the same results
 * (the parsers promise any alignment). The one walk must agree with the
 * parsers of one item each, and the receive's fast paths
 * (ts_parse_rx_only, ts_parse_rx_ttl for a socket that asked for the
 * TTL, ts_parse_rx_dst for the UDP reflector's) with them wherever they
 * answer.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct result {
	int rx, tx, dr, tl, to, ic;
	uint32_t drops;
	struct ts_icmp icmp;
	uint8_t ttl, tos;
	struct ts_stamps s;
	struct ts_tx t;
	struct ts_rx all;
	bool only;		/* ts_parse_rx_only() answered ... */
	struct ts_stamps only_s;	/* ... these */
	bool with_ttl;		/* ts_parse_rx_ttl() answered ... */
	struct ts_stamps ttl_s;	/* ... these */
	uint8_t ttl_v;		/* ... and this TTL */
	int16_t tos_v;		/* ... and this TOS (-1: none) */
	int ds;			/* ts_parse_dst() */
	uint8_t dst[16];
	bool with_dst;		/* ts_parse_rx_dst(), the PKTINFO asked, answered ... */
	struct ts_stamps dst_s;	/* ... these, this address, this TOS */
	uint8_t dst_v[16];
	int16_t dst_q;
	bool with_dst_ttl;	/* the same asked for the TTL too ... */
	struct ts_stamps dstt_s;
	uint8_t dstt_v[16], dstt_ttl;
	int16_t dstt_q;
	bool with_tos;		/* ... and asked for the TTL, no PKTINFO */
	struct ts_stamps tos_s;
	uint8_t tos_ttl;
	int16_t tos_q;
};

static void parse(void *ctl, size_t size, struct result *out)
{
	struct msghdr msg;

	memset(&msg, 0, sizeof(msg));
	memset(out, 0, sizeof(*out));
	msg.msg_control = size ? ctl : NULL;
	msg.msg_controllen = size;
	out->rx = ts_parse_rx(&msg, &out->s);
	out->tx = ts_parse_tx(&msg, &out->t);
	out->ic = ts_parse_icmp(&msg, &out->icmp);
	out->dr = ts_parse_drops(&msg, &out->drops);
	out->tl = ts_parse_ttl(&msg, &out->ttl);
	out->to = ts_parse_tos(&msg, &out->tos);
	ts_parse_rxmsg(&msg, &out->all);
	out->only = ts_parse_rx_only(&msg, &out->only_s);
	out->with_ttl = ts_parse_rx_ttl(&msg, &out->ttl_s, &out->ttl_v, &out->tos_v);
	out->ds = ts_parse_dst(&msg, out->dst);
	out->with_dst = ts_parse_rx_dst(&msg, &out->dst_s, out->dst_v, NULL, &out->dst_q);
	out->with_dst_ttl = ts_parse_rx_dst(&msg, &out->dstt_s, out->dstt_v, &out->dstt_ttl,
					    &out->dstt_q);
	out->with_tos = ts_parse_rx_dst(&msg, &out->tos_s, NULL, &out->tos_ttl, &out->tos_q);
}

/* The TOS a fast path gave (-1: none) is the parser's. */
static bool tos_as_parsed(const struct result *a, int16_t q)
{
	return q < 0 ? a->to == -ENOENT : a->to == 0 && q == a->tos;
}

/* The TTL a fast path gave (0: none; a datagram never arrives with a TTL
 * of 0) is the parser's. */
static bool ttl_as_parsed(const struct result *a, uint8_t t)
{
	return t == 0 ? a->tl == -ENOENT || (a->tl == 0 && a->ttl == 0) :
	       a->tl == 0 && t == a->ttl;
}

/* The reflector's fast path (stamps, the destination, maybe the TOS)
 * answers only for that, and as the parsers do. */
static bool dst_fast_agrees(const struct result *a)
{
	return !a->with_dst ||
	       (a->rx == 0 && !memcmp(&a->dst_s, &a->s, sizeof(a->s)) && a->dr == -ENOENT &&
		a->tl == -ENOENT && a->ds == 0 && !memcmp(a->dst_v, a->dst, 16) &&
		tos_as_parsed(a, a->dst_q));
}

/* ... asked for the TTL too: what answers without it answers with it. */
static bool dst_ttl_fast_agrees(const struct result *a)
{
	return (!a->with_dst || a->with_dst_ttl) &&
	       (!a->with_dst_ttl ||
		(a->rx == 0 && !memcmp(&a->dstt_s, &a->s, sizeof(a->s)) && a->dr == -ENOENT &&
		 a->ds == 0 && !memcmp(a->dstt_v, a->dst, 16) && ttl_as_parsed(a, a->dstt_ttl) &&
		 tos_as_parsed(a, a->dstt_q)));
}

/* ... and without the PKTINFO (one address): stamps, TTL, TOS alone. */
static bool tos_fast_agrees(const struct result *a)
{
	return !a->with_tos ||
	       (a->rx == 0 && !memcmp(&a->tos_s, &a->s, sizeof(a->s)) && a->dr == -ENOENT &&
		a->ds == -ENOENT && ttl_as_parsed(a, a->tos_ttl) && tos_as_parsed(a, a->tos_q));
}

/* The fast path answers only for stamps alone, and as the parsers do. */
static bool fast_agrees(const struct result *a)
{
	return !a->only || (a->rx == 0 && !memcmp(&a->only_s, &a->s, sizeof(a->s)) &&
			    a->dr == -ENOENT && a->tl == -ENOENT);
}

/* The fast path with the TTL answers only for stamps and a TTL (and
 * perhaps a TOS), no drop count, and as the parsers do. */
static bool ttl_fast_agrees(const struct result *a)
{
	return !a->with_ttl ||
	       (a->rx == 0 && !memcmp(&a->ttl_s, &a->s, sizeof(a->s)) && a->dr == -ENOENT &&
		a->tl == 0 && a->ttl_v == a->ttl && !a->only &&
		(a->tos_v < 0 ? a->to == -ENOENT : a->to == 0 && a->tos_v == a->tos));
}

/* The one walk gives each item as its own parser does. */
static bool walk_agrees(const struct result *a)
{
	const struct ts_rx *w = &a->all;

	if (w->ts_ret != a->rx || w->drops_ret != a->dr || w->ttl_ret != a->tl ||
	    w->tos_ret != a->to)
		return false;
	if (a->rx ? w->ts.kn_ns != 0 || w->ts.hw_ns != 0 :
		    memcmp(&w->ts, &a->s, sizeof(a->s)))
		return false;
	return (a->dr || w->drops == a->drops) && (a->tl || w->ttl == a->ttl) &&
	       (a->to || w->tos == a->tos);
}

static bool same(const struct result *a, const struct result *b)
{
	if (a->rx != b->rx || a->tx != b->tx || a->dr != b->dr)
		return false;
	if (!a->dr && a->drops != b->drops)
		return false;
	if (a->tl != b->tl || (!a->tl && a->ttl != b->ttl))
		return false;
	if (a->to != b->to || (!a->to && a->tos != b->tos))
		return false;
	if (a->ds != b->ds || (!a->ds && memcmp(a->dst, b->dst, 16)) ||
	    a->with_dst != b->with_dst || a->with_dst_ttl != b->with_dst_ttl ||
	    a->with_tos != b->with_tos)
		return false;
	if (!a->rx && memcmp(&a->s, &b->s, sizeof(a->s)))
		return false;
	/* an entry is a TX stamp or an ICMP error, never both */
	if (a->ic != b->ic || (!a->ic && !a->tx) ||
	    (!a->ic && (a->icmp.v6 != b->icmp.v6 || a->icmp.type != b->icmp.type ||
			a->icmp.code != b->icmp.code ||
			memcmp(&a->icmp.rx, &b->icmp.rx, sizeof(a->icmp.rx)))))
		return false;
	return a->tx || (a->t.key == b->t.key && a->t.type == b->t.type &&
			 !memcmp(&a->t.ts, &b->t.ts, sizeof(a->t.ts)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *aligned = malloc(size ? size : 1);
	unsigned char *odd = malloc(size + 1);
	struct result a, b;

	if (!aligned || !odd)
		abort();
	memcpy(aligned, data, size);
	memcpy(odd + 1, data, size);
	parse(aligned, size, &a);
	parse(odd + 1, size, &b);
	if (!same(&a, &b) || !walk_agrees(&a) || !walk_agrees(&b) || !fast_agrees(&a) ||
	    !fast_agrees(&b) || a.only != b.only || !ttl_fast_agrees(&a) ||
	    !ttl_fast_agrees(&b) || a.with_ttl != b.with_ttl ||
	    !dst_fast_agrees(&a) || !dst_fast_agrees(&b) || !dst_ttl_fast_agrees(&a) ||
	    !dst_ttl_fast_agrees(&b) || !tos_fast_agrees(&a) || !tos_fast_agrees(&b))
		abort();
	free(aligned);
	free(odd);
	return 0;
}
