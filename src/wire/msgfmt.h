/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The message-format interface: how a ping and a pong are laid out in
 * the bytes a transport (transport.h) carries, apart from how they are
 * carried, as linuxptp keeps its msg.c apart from its transport.c. The
 * loops (emit.c, openloop.c, reflect.c) and the capture check
 * (capmatch.c) encode and parse messages only through struct msgfmt and
 * the decoded struct msg_hdr and struct msg_body; they never touch a
 * byte offset.
 *
 * The formats (msgfmt.c's table; rant's own is the first row):
 *   rant  rant's own layout (wire.h)
 *   ptp   --ptp-mode: rant's message behind a PTPv2 event header (ptp.h)
 *   stamp --stamp: STAMP's test packets (RFC 8762, RFC 8972; fmtstamp.c)
 *
 * Lengths: -m (cfg->size) counts the bytes of the message a format
 * sizes (rant's message; for ptp, the bytes after its PTP header). A
 * datagram is -m + caps.overhead bytes; struct msg_hdr.len, the buffers
 * the ops work on and what the transport sends are whole datagrams.
 *
 * How a new format plugs in (STAMP, say):
 *   1. One file, src/<name>.c, defines `const struct msgfmt msgfmt_<name>`
 *      with its caps and ops: init() for its per-run settings (kept in ctx->priv, or
 *      allocated there and freed by fini()), and the encode and parse ops
 *      below. It maps its fields onto struct msg_hdr / struct msg_body
 *      and its own bits onto the MSG_F_* meanings; what it cannot carry
 *      it leaves unset (a pong without MSG_F_SW has no SW stamps) and says
 *      so in its caps. A sequence number narrower than 64 bits is given
 *      as caps.seq_mask: the loops widen it (msgfmt_seq_near). Its parse
 *      errors are the MSG_E* codes.
 *   2. One row: its name in msgfmt.c's table; and the option that
 *      selects it names it in opts_format() (cfg.h), beside its row in
 *      the option table.
 * Nothing in the loops changes. The formats never read the command line
 * (struct msgfmt_side is what they are told), so opts.c may ask a
 * format's caps without an include cycle. tests/unit/test_msgfmt.c and
 * tests/fuzz/fuzz_wire.c then drive it through the same round trips and
 * rejections as every other row (test_msgfmt.c asks for the offsets of
 * its magic and version octets in its cases[]).
 */
#ifndef RANT_MSGFMT_H
#define RANT_MSGFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "auth.h"

enum msg_type {
	MSG_PING = 1,
	MSG_PONG = 2,
};

/* What a message says (struct msg_hdr.flags), whatever bits its format
 * uses for it. Ping flags, echoed in the pong: */
#define MSG_F_WARMUP	0x0001	/* not measured: the reflector does not count it */
#define MSG_F_WANT_SW	0x0002	/* the emitter asks for T2_SW and T3_SW */
#define MSG_F_MAC	0x0004	/* ends in a MAC (--key); a reflector without
				 * --key answers with the flag cleared */
#define MSG_F_WANT_REPORT 0x0008 /* the emitter asks for the reflector's report
				 * (struct msg_report) where the pong has room */
#define MSG_F_FETCH	0x0010	/* an unmeasured ping after measuring, to fetch a
				 * T3 or the report: counted fetch, not warm-up */
/* Pong flags: which body fields hold data. */
#define MSG_F_T2	0x0100	/* t2_wire */
#define MSG_F_T2_HW	0x0200	/* t2_wire is a NIC stamp (else kernel) */
#define MSG_F_SW	0x0400	/* t2_sw and t3_sw */
#define MSG_F_FU	0x0800	/* fu_seq and fu_t3_wire */
#define MSG_F_FU_HW	0x1000	/* fu_t3_wire is a NIC stamp (else kernel) */
#define MSG_F_CLOCK_BAD 0x2000	/* the reflector's PHC and system clock differ by
				 * more than its --max-clock-offset (clock.h) */
#define MSG_F_REFUSED	0x4000	/* no session for this ping (the reflector's table
				 * is full for its address): no stamps, not measured */
#define MSG_F_T3	0x8000	/* t3_wire: this pong's own T3 is its reflector's
				 * only one (it sends no follow-up; stamp: the
				 * reply's Timestamp, Follow-Up Telemetry not
				 * understood) */
/* Pong flags in the ping octet (no ping sets them, so no echo does): */
#define MSG_F_HOST	0x0080	/* host_tag: the reflector's kernel (hostid.h) */
#define MSG_F_REPORT	0x0040	/* report: the reflector's side of the session */

/* A message's header, decoded. */
struct msg_hdr {
	uint8_t type;		/* enum msg_type */
	uint16_t flags;		/* MSG_F_* */
	uint32_t session;	/* the session key: tells one emitter run from another */
	uint32_t len;		/* the whole datagram, bytes (caps.overhead included) */
	uint64_t seq;		/* as carried: caps.seq_mask wide */
	int64_t t1_sw;		/* ns, echoed back by the reflector */
	uint8_t dscp;		/* put_ping: the DSCP the ping leaves with (--dscp,
				 * a --targets line's), which STAMP's Class of
				 * Service TLV asks the reply to carry too (RFC
				 * 8972 §4.4: DSCP1); not parsed */
};

/*
 * What a reflector says of itself in a pong, where its format carries it
 * (stamp: the reply's Error Estimate, SSID, TTL field and TLV flags;
 * fmtstamp.c). Compared whole from pong to pong: parse_body() zeroes it
 * before it fills it.
 */
struct msg_peer {
	bool have;		/* the format carries this: the fields below hold data */
	bool tlv_integrity;	/* the reply's TLVs failed their HMAC (I) */
	bool have_tsinfo;	/* Timestamp Information understood */
	bool have_cos;		/* Class of Service understood */
	uint8_t ttl;		/* the TTL the ping had on arrival, as reported */
	uint8_t tsinfo[4];	/* sync source and method of T2, then of T3 */
	uint8_t cos[3];		/* DSCP2 and ECN as the ping arrived, RP (1: the
				 * reply did not leave with the DSCP asked for);
				 * with the rest: no padding, so that memcmp
				 * compares */
	uint16_t ee;		/* its Error Estimate (RFC 4656 §4.1.2) */
	uint16_t ssid;		/* as returned: 0, a reflector without RFC 8972 */
	/* TLVs, as STAMP_TLV_BIT() masks */
	uint32_t tlv_seen, tlv_understood, tlv_unknown, tlv_malformed;
};

_Static_assert(sizeof(struct msg_peer) == 32, "struct msg_peer has no padding");

/*
 * The reflector's side of a session, as its pongs report it where asked
 * (MSG_F_WANT_REPORT) and long enough (caps.report_len): of the pongs of
 * the session's measured pings, those its kernel refused to send and
 * those its qdisc dropped, and the longest any waited in its qdisc.
 */
struct msg_report {
	bool have;		/* parsed: the pong carried a report this rant reads */
	uint64_t send_errors;	/* the send call failed */
	uint64_t qdisc_drops;	/* entered the qdisc (SCHED stamp), never left */
	int64_t queue_max_ns;	/* the longest T3_KN - T3_SCHED, 0: none known */
};

/* The reflector's part of a pong. */
struct msg_body {
	int64_t t2_wire;	/* ns */
	int64_t t2_sw;		/* ns */
	int64_t t3_sw;		/* ns: the best T3 there is when the pong leaves */
	uint64_t fu_seq;	/* follow-up: the seq of an earlier pong's ping ... */
	uint64_t fu_pong_no;	/* ... that pong's number in its session (a
				 * format with caps.fu_by_pong_no names it so) ... */
	int64_t fu_t3_wire;	/* ... and its T3 wire stamp, ns */
	int64_t t3_wire;	/* this pong's own T3 as it carried it, ns (MSG_F_T3:
				 * the reflector's only one) */
	/* Pong flags only the body can tell (stamp: its TLVs, which the
	 * header's parse, reading a capture's parse_len bytes, cannot
	 * reach): parse_body() sets them, the emitter adds them to the
	 * header's. */
	uint16_t flags;
	uint64_t host_tag;	/* MSG_F_HOST: hostid_tag() of the ping's session */
	struct msg_report report;	/* MSG_F_REPORT */
	struct msg_peer peer;	/* emitter: what the reflector says of itself */
	/* stamp: a Direct Measurement TLV's counters (has_dm): the pings the
	 * emitter had sent, the reflector's of the session received and its
	 * pongs sent, each this one counted */
	bool has_dm;
	uint32_t dm_s_tx, dm_r_rx, dm_r_tx;
	/* Reflector-side facts a format may carry (stamp): */
	uint64_t pong_no;	/* the session's pongs before this one (stamp: a
				 * stateful reflector's sequence number; parsed
				 * back, caps.seq_mask wide) */
	uint8_t ttl;		/* the ping's IPv4 TTL or IPv6 Hop Limit, 0: unknown
				 * (not parsed back) */
	int16_t tos;		/* its IPv4 TOS or IPv6 Traffic Class, -1: unknown */
	uint32_t rx_count;	/* the session's pings received, this one counted */
};

/* Why parse() rejects a message; it returns their negatives. */
enum msg_err {
	MSG_OK = 0,
	MSG_ESHORT,		/* shorter than the format's smallest message */
	MSG_EMAGIC,		/* not this format's (magic, PTP domain) */
	MSG_EVERSION,		/* another version of the format */
	MSG_ETYPE,		/* not the type the caller expects */
	MSG_ELEN,		/* a length field differs from the bytes received */
	MSG_NERR
};

/* How a format encodes its timestamps. */
enum msgfmt_ts {
	MSGFMT_TS_NS64,		/* signed 64-bit ns since the epoch (rant's) */
	MSGFMT_TS_NTP64,	/* NTP: 32-bit seconds since 1900, 32-bit fraction */
	MSGFMT_TS_PTP64,	/* PTP truncated: 32-bit seconds, 32-bit ns */
};

/* What a format carries. Lengths in -m's bytes (after caps.overhead). */
struct msgfmt_caps {
	uint32_t overhead;	/* bytes before the message -m sizes (ptp: 34) */
	uint32_t min_len;	/* the smallest message: its header */
	uint32_t body_len;	/* the smallest whose pong carries the body */
	uint32_t auth_min_len;	/* the same with --key's MAC, or 0: no MAC */
	uint32_t auth_body_len;
	uint32_t report_len;	/* the smallest whose pong carries the report
				 * (MSG_F_REPORT), 0: the format has none */
	uint32_t auth_report_len;
	uint32_t parse_len;	/* bytes of a datagram parse() reads at most */
	uint64_t seq_mask;	/* the sequence number's bits on the wire */
	bool reflector_stamps;	/* pongs carry T2 (and SW stamps when asked) */
	bool refusal;		/* a pong can say "no session for you"
				 * (MSG_F_REFUSED); a format without it (stamp:
				 * STAMP has no refusal, and a reply without
				 * stamps reads as a measurement) leaves such a
				 * ping unanswered */
	bool follow_up;		/* a later pong carries an earlier one's wire T3 */
	bool fu_by_pong_no;	/* ... naming it by the reflector's number of that
				 * pong (msg_body.fu_pong_no, as the pong's own
				 * pong_no), not by its ping's seq */
	enum msgfmt_ts ts;
};

/* The bytes --key's MAC covers: it is the last bytes of [off, off + len)
 * (auth_sign() and auth_verify() of buf + off, len). */
struct msgfmt_span {
	size_t off, len;
};

#define MSGFMT_PRIV_LEN 96

/* The side of the run a format is set up for (run.c fills it from the
 * command line; formats do not read the command line themselves). */
struct msgfmt_side {
	bool emit;		/* this side sends pings */
	bool mac;		/* --key: every message ends in a MAC */
	const char *iface;	/* -i, or NULL */
	/* A format that signs more than mac_span covers (stamp: its HMAC
	 * TLV, over the sequence number and the TLVs) signs and checks that
	 * itself, with this key (NULL: no --key). */
	const struct auth *key;
	/* --stamp's settings (the other formats ignore them) */
	bool stamp_ptp;		/* --stamp-ts ptp: PTPv2 timestamps (else NTP) */
	bool stamp_stateful;	/* --stamp-stateful: the reflector's own sequence numbers */
	int64_t stamp_phc_bound_ns;	/* --max-clock-offset: how far the PHC may
					 * be from the system clock while the
					 * clock checks pass (clock.h) */
	uint16_t stamp_ssid;	/* --ssid, 0: a random one */
	const uint8_t *host_key;	/* reflector: its boot id (hostid.h), or NULL */
};

/* One run's format: its row and its settings. */
struct msgfmt_ctx {
	const struct msgfmt *f;
	bool emit;		/* this side sends pings */
	bool mac;		/* --key: every message ends in a MAC */
	bool host_known;	/* host_key holds the reflector's boot id */
	uint8_t host_key[16];
	/* put_pong(): the TOS octet the pong must leave with (stamp: a Class
	 * of Service TLV answered), -1: the socket's */
	int16_t reply_tos;
	union {
		uint64_t align;
		uint8_t b[MSGFMT_PRIV_LEN];
	} priv;			/* the format's own settings */
};

/*
 * One row of the table. Every buffer holds a whole datagram. Encoding
 * may update the format's state in ctx (a stateful reflector's counter);
 * parsing never writes ctx, so the capture thread parses with the loop's
 * ctx. Nothing here allocates, blocks or prints.
 */
struct msgfmt {
	const char *name;
	struct msgfmt_caps caps;
	/* The run's settings into ctx->priv (NULL: none). 0, or -errno
	 * with one line for the user in err. */
	int (*init)(struct msgfmt_ctx *ctx, const struct msgfmt_side *side, char *err,
		    size_t len);
	void (*fini)(struct msgfmt_ctx *ctx);	/* NULL: nothing to free */
	/* The emitter's session key from a random value (NULL: the value
	 * as it is). */
	uint32_t (*session_key)(const struct msgfmt_ctx *ctx, uint32_t random);
	/* A ping's header for a phase: h->len bytes at buf, the rest of the
	 * message (padding) left as it is. */
	void (*put_ping)(struct msgfmt_ctx *ctx, void *buf, const struct msg_hdr *h);
	/* Only seq and T1_SW of a ping put_ping() wrote: per ping. */
	void (*set_seq)(struct msgfmt_ctx *ctx, void *buf, uint64_t seq, int64_t t1_sw);
	/* seq (and *t1_sw) of a message this side encoded, not validated;
	 * 0 when len is below the header. */
	uint64_t (*get_seq)(const struct msgfmt_ctx *ctx, const void *buf, size_t len,
			    int64_t *t1_sw);
	/* Validate n received bytes as a message of type want and decode its
	 * header: 0, or -MSG_E* with h untouched. Reads at most
	 * caps.parse_len bytes (n is the length the datagram had). */
	int (*parse)(const struct msgfmt_ctx *ctx, const void *buf, size_t n,
		     enum msg_type want, struct msg_hdr *h);
	/*
	 * Turn the ping parsed as ping in buf into its pong, in place and as
	 * long: flags (the MSG_F_T2.. pong flags) say which fields of b hold
	 * data; b goes in when the message has room for it.
	 */
	void (*put_pong)(struct msgfmt_ctx *ctx, void *buf, const struct msg_hdr *ping,
			 uint16_t flags, const struct msg_body *b);
	/* The body of the pong parsed as h: 0, or -MSG_ESHORT when it has
	 * no room for one. */
	int (*parse_body)(const struct msgfmt_ctx *ctx, const void *buf,
			  const struct msg_hdr *h, struct msg_body *b);
	/* Where --key's MAC is in a message of len bytes. */
	struct msgfmt_span (*mac_span)(const struct msgfmt_ctx *ctx, size_t len);
};

/* rant's own format (wire.c), which others may wrap. */
extern const struct msgfmt msgfmt_rant;

/* The format named name (opts_format(): NULL is rant's own), or NULL
 * when the table has no such row. */
const struct msgfmt *msgfmt_find(const char *name);

/* Row i of the table, NULL past its end (tests, fuzzing). */
const struct msgfmt *msgfmt_nth(size_t i);

/* ctx for format f and cfg's side: 0, or -errno with one line in err. */
int msgfmt_init(struct msgfmt_ctx *ctx, const struct msgfmt *f,
		const struct msgfmt_side *side, char *err, size_t len);
void msgfmt_fini(struct msgfmt_ctx *ctx);

/* A short name for a rejection ("short", "magic", ...), given -MSG_E*
 * or MSG_E*; "unknown" for any other int. */
const char *msgfmt_strerror(int err);

/* "ns64", "ntp64", "ptp64". */
const char *msgfmt_ts_name(enum msgfmt_ts ts);

/* The emitter's session key (msg_hdr.session) from a random value. */
static inline uint32_t msgfmt_session_key(const struct msgfmt_ctx *c, uint32_t random)
{
	return c->f->session_key ? c->f->session_key(c, random) : random;
}

/* Whether a pong of len bytes on the wire (msg_hdr.len) carries the body. */
static inline bool msgfmt_has_body(const struct msgfmt_ctx *c, uint32_t len)
{
	const struct msgfmt_caps *k = &c->f->caps;

	return k->reflector_stamps &&
	       len >= k->overhead + (c->mac ? k->auth_body_len : k->body_len);
}

/* Whether a pong of len bytes on the wire has room for the report. */
static inline bool msgfmt_has_report(const struct msgfmt_ctx *c, uint32_t len)
{
	const struct msgfmt_caps *k = &c->f->caps;

	return k->report_len &&
	       len >= k->overhead + (c->mac ? k->auth_report_len : k->report_len);
}

/* The bytes on the wire of a message of size bytes (-m). */
static inline uint32_t msgfmt_wire_len(const struct msgfmt_ctx *c, uint32_t size)
{
	return size + c->f->caps.overhead;
}

/*
 * The sequence number that got (caps.seq_mask wide) stands for: the one
 * nearest to near (a 64-bit seq of this run) with the same low bits.
 * With a 64-bit seq, got itself.
 */
static inline uint64_t msgfmt_seq_near(const struct msgfmt_ctx *c, uint64_t near,
				       uint64_t got)
{
	uint64_t mask = c->f->caps.seq_mask, d = (got - near) & mask;

	return d <= (mask >> 1) ? near + d : near + d - mask - 1;
}

static inline int msgfmt_parse(const struct msgfmt_ctx *c, const void *buf, size_t n,
			       enum msg_type want, struct msg_hdr *h)
{
	return c->f->parse(c, buf, n, want, h);
}

static inline int msgfmt_parse_body(const struct msgfmt_ctx *c, const void *buf,
				    const struct msg_hdr *h, struct msg_body *b)
{
	return c->f->parse_body(c, buf, h, b);
}

static inline void msgfmt_put_ping(struct msgfmt_ctx *c, void *buf, const struct msg_hdr *h)
{
	c->f->put_ping(c, buf, h);
}

static inline void msgfmt_set_seq(struct msgfmt_ctx *c, void *buf, uint64_t seq,
				  int64_t t1_sw)
{
	c->f->set_seq(c, buf, seq, t1_sw);
}

static inline void msgfmt_put_pong(struct msgfmt_ctx *c, void *buf,
				   const struct msg_hdr *ping, uint16_t flags,
				   const struct msg_body *b)
{
	c->f->put_pong(c, buf, ping, flags, b);
}

/* --key: sign the message of len bytes at buf, or check its MAC, where
 * the format puts it. */
static inline void msgfmt_sign(const struct msgfmt_ctx *c, const struct auth *a, void *buf,
			       size_t len)
{
	struct msgfmt_span sp = c->f->mac_span(c, len);

	auth_sign(a, (uint8_t *)buf + sp.off, sp.len);
}

static inline bool msgfmt_verify(const struct msgfmt_ctx *c, const struct auth *a,
				 const void *buf, size_t len)
{
	struct msgfmt_span sp = c->f->mac_span(c, len);

	return auth_verify(a, (const uint8_t *)buf + sp.off, sp.len);
}

#endif
