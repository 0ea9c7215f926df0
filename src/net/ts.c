// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * SO_TIMESTAMPING: socket set-up, control-message parsing.
 * The error-queue matching follows the kernel's txtimestamp.c: a report
 * is an IP(V6)_RECVERR with SO_EE_ORIGIN_TIMESTAMPING and ee_errno ENOMSG,
 * keyed by ee_data (OPT_ID), beside an SCM_TIMESTAMPING block.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>

#include "missing.h"
#include "timeutil.h"
#include "ts.h"

static bool cmsg_is_tstamp(const struct cmsghdr *c)
{
	return c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPING;
}

static bool cmsg_is_drops(const struct cmsghdr *c)
{
	return c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL;
}

static bool cmsg_is_recverr(const struct cmsghdr *c)
{
	return (c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) ||
	       (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_RECVERR);
}

/*
 * A walk over the control buffer that never reads past msg_controllen
 * (the kernel hands over msg_controllen as the bytes it wrote). Each
 * header is copied out, so the buffer needs no particular alignment.
 */
struct cmsg_walk {
	const unsigned char *buf;
	size_t len;		/* msg_controllen */
	size_t off;		/* start of the next header */
};

static void walk_init(struct cmsg_walk *w, const struct msghdr *msg)
{
	w->buf = msg->msg_control;
	w->len = msg->msg_control ? msg->msg_controllen : 0;
	w->off = 0;
}

/*
 * The next cmsg: 1 with its header in *c and its data at *data (cmsg_len
 * bytes in all, checked to lie inside the buffer), 0 at the end (fewer
 * bytes left than a header, as CMSG_NXTHDR ends), -EINVAL when cmsg_len
 * is shorter than a header or runs past the end of the buffer.
 */
static int walk_next(struct cmsg_walk *w, struct cmsghdr *c,
		     const unsigned char **data)
{
	size_t left = w->off < w->len ? w->len - w->off : 0;

	if (left < sizeof(*c))
		return 0;
	memcpy(c, w->buf + w->off, sizeof(*c));
	if (c->cmsg_len < CMSG_LEN(0) || c->cmsg_len > left)
		return -EINVAL;
	*data = w->buf + w->off + CMSG_LEN(0);
	/* The padding after the last one may be cut: CMSG_NXTHDR allows it. */
	w->off += CMSG_ALIGN(c->cmsg_len) < left ? CMSG_ALIGN(c->cmsg_len) : left;
	return 1;
}

/* The first cmsg that is(c) holds for: 1 with it (as walk_next gives
 * it), -ENOENT when none does, -EINVAL when the walk meets a bad one
 * first. The single-item parsers' walk. */
static int walk_find(const struct msghdr *msg, bool (*is)(const struct cmsghdr *c),
		     struct cmsghdr *c, const unsigned char **data)
{
	struct cmsg_walk w;
	int ret;

	walk_init(&w, msg);
	while ((ret = walk_next(&w, c, data)) > 0)
		if (is(c))
			return 1;
	return ret ? ret : -ENOENT;
}

/* Bytes of data the cmsg holds. */
static size_t cmsg_data_len(const struct cmsghdr *c)
{
	return c->cmsg_len - CMSG_LEN(0);
}

/* Inlined into each parser: it runs for every RX and TX report. */
static inline __attribute__((always_inline)) int
read_tstamp(const struct cmsghdr *c, const unsigned char *data, struct ts_stamps *out)
{
	struct scm_timestamping tss;

	if (cmsg_data_len(c) < sizeof(tss))
		return -EINVAL;
	memcpy(&tss, data, sizeof(tss));
	out->kn_ns = timespec_to_ns(&tss.ts[0]);
	out->hw_ns = timespec_to_ns(&tss.ts[2]);
	return 0;
}

/* Undetermined: no cmsg of the item seen yet (struct ts_rx). */
#define RX_OPEN 1

/* The item's value from its first cmsg: 0, or -EINVAL when too short. */
static int read_drops(const struct cmsghdr *c, const unsigned char *data, uint32_t *drops)
{
	if (cmsg_data_len(c) < sizeof(*drops))
		return -EINVAL;
	memcpy(drops, data, sizeof(*drops));
	return 0;
}

/* An octet the kernel hands over as an int (TTL, Hop Limit, IPv6's
 * Traffic Class): 0, or -EINVAL when too short or out of 0 to 255. */
static int read_ttl(const struct cmsghdr *c, const unsigned char *data, uint8_t *ttl)
{
	int v;

	if (cmsg_data_len(c) < sizeof(v))
		return -EINVAL;
	memcpy(&v, data, sizeof(v));
	if (v < 0 || v > 255)
		return -EINVAL;
	*ttl = (uint8_t)v;
	return 0;
}

static bool cmsg_is_ttl(const struct cmsghdr *c)
{
	return (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TTL) ||
	       (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_HOPLIMIT);
}

/* IPv4's IP_TOS is one octet, IPv6's IPV6_TCLASS an int (0 to 255). */
static int read_tos(const struct cmsghdr *c, const unsigned char *data, uint8_t *tos)
{
	if (c->cmsg_level != IPPROTO_IP)
		return read_ttl(c, data, tos);
	if (cmsg_data_len(c) < 1)
		return -EINVAL;
	*tos = data[0];
	return 0;
}

static bool cmsg_is_tos(const struct cmsghdr *c)
{
	return (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS) ||
	       (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_TCLASS);
}

#define TS_SPACE CMSG_SPACE(sizeof(struct scm_timestamping))	/* a stamp block's room */

/* Whether msg's control data is whole and exactly len bytes (a fast
 * path's layout, if its cmsgs are the ones it expects). */
static inline bool control_of_len(const struct msghdr *msg, size_t len)
{
	return !(msg->msg_flags & MSG_CTRUNC) && msg->msg_control && msg->msg_controllen == len;
}

/* The whole SCM_TIMESTAMPING block that starts buf: its stamps into out. */
static inline bool stamps_first(const unsigned char *buf, struct ts_stamps *out)
{
	struct cmsghdr c;

	memcpy(&c, buf, sizeof(c));
	return c.cmsg_len == CMSG_LEN(sizeof(struct scm_timestamping)) && cmsg_is_tstamp(&c) &&
	       read_tstamp(&c, buf + CMSG_LEN(0), out) == 0;
}

bool ts_parse_rx_only(const struct msghdr *msg, struct ts_stamps *out)
{
	return control_of_len(msg, TS_SPACE) && stamps_first(msg->msg_control, out);
}

/* The TOS cmsg at buf, as the kernel writes it last (one octet for
 * IPv4, an int for IPv6: either fills CMSG_SPACE(sizeof(int))). */
static inline bool tos_at(const unsigned char *buf, uint8_t *tos)
{
	struct cmsghdr c;

	memcpy(&c, buf, sizeof(c));
	return (c.cmsg_len == CMSG_LEN(1) || c.cmsg_len == CMSG_LEN(sizeof(int))) &&
	       cmsg_is_tos(&c) && read_tos(&c, buf + CMSG_LEN(0), tos) == 0;
}

/* The same with its TTL: control data that is the SCM_TIMESTAMPING block
 * and then one IP_TTL or IPV6_HOPLIMIT, and perhaps one IP_TOS or
 * IPV6_TCLASS, as the kernel writes them for a socket that asked for
 * them (a STAMP reflector's every request). */
bool ts_parse_rx_ttl(const struct msghdr *msg, struct ts_stamps *out, uint8_t *ttl,
		     int16_t *tos)
{
	const unsigned char *buf = msg->msg_control;
	const size_t with_ttl = TS_SPACE + CMSG_SPACE(sizeof(int));
	struct ts_stamps st;
	struct cmsghdr t;
	uint8_t v, tv = 0;
	bool has_tos;

	if (!control_of_len(msg, with_ttl) &&
	    !control_of_len(msg, with_ttl + CMSG_SPACE(sizeof(int))))
		return false;
	has_tos = msg->msg_controllen != with_ttl;
	memcpy(&t, buf + TS_SPACE, sizeof(t));
	if (t.cmsg_len != CMSG_LEN(sizeof(int)) || !cmsg_is_ttl(&t) ||
	    read_ttl(&t, buf + TS_SPACE + CMSG_LEN(0), &v) || !stamps_first(buf, &st) ||
	    (has_tos && !tos_at(buf + with_ttl, &tv)))
		return false;
	*out = st;
	*ttl = v;
	*tos = has_tos ? tv : -1;
	return true;
}

/* Each item from the first cmsg of its kind; the walk stops once all
 * four are known. MSG_CTRUNC spoils the stamps and the drop count, not
 * a TTL or TOS whose cmsg is whole (the kernel writes them after the
 * stamps: test_ts.c's loopback test). */
void ts_parse_rxmsg(const struct msghdr *msg, struct ts_rx *out)
{
	const unsigned char *data;
	struct cmsg_walk w;
	struct cmsghdr c;
	int ret = 0, open = 4;

	if (ts_parse_rx_only(msg, &out->ts)) {
		out->ts_ret = 0;
		out->drops_ret = out->ttl_ret = out->tos_ret = -ENOENT;
		return;
	}
	out->ts_ret = out->drops_ret = out->ttl_ret = out->tos_ret = RX_OPEN;
	out->ts.kn_ns = out->ts.hw_ns = TS_NONE;
	if (msg->msg_flags & MSG_CTRUNC) {
		out->ts_ret = out->drops_ret = -EINVAL;
		open = 2;
	}
	walk_init(&w, msg);
	while (open && (ret = walk_next(&w, &c, &data)) > 0) {
		if (out->ts_ret == RX_OPEN && cmsg_is_tstamp(&c))
			out->ts_ret = read_tstamp(&c, data, &out->ts);
		else if (out->drops_ret == RX_OPEN && cmsg_is_drops(&c))
			out->drops_ret = read_drops(&c, data, &out->drops);
		else if (out->ttl_ret == RX_OPEN && cmsg_is_ttl(&c))
			out->ttl_ret = read_ttl(&c, data, &out->ttl);
		else if (out->tos_ret == RX_OPEN && cmsg_is_tos(&c))
			out->tos_ret = read_tos(&c, data, &out->tos);
		else
			continue;
		open--;
	}
	if (!open)
		return;
	/* the end (-ENOENT) or a malformed cmsg (-EINVAL) before the item */
	ret = ret ? ret : -ENOENT;
	if (out->ts_ret == RX_OPEN)
		out->ts_ret = ret;
	if (out->drops_ret == RX_OPEN)
		out->drops_ret = ret;
	if (out->ttl_ret == RX_OPEN)
		out->ttl_ret = ret;
	if (out->tos_ret == RX_OPEN)
		out->tos_ret = ret;
}

int ts_parse_rx(const struct msghdr *msg, struct ts_stamps *out)
{
	const unsigned char *data;
	struct cmsghdr c;
	int ret;

	if (msg->msg_flags & MSG_CTRUNC)
		return -EINVAL;
	ret = walk_find(msg, cmsg_is_tstamp, &c, &data);
	return ret > 0 ? read_tstamp(&c, data, out) : ret;
}

int ts_parse_drops(const struct msghdr *msg, uint32_t *drops)
{
	const unsigned char *data;
	struct cmsghdr c;
	int ret;

	if (msg->msg_flags & MSG_CTRUNC)
		return -EINVAL;
	ret = walk_find(msg, cmsg_is_drops, &c, &data);
	return ret > 0 ? read_drops(&c, data, drops) : ret;
}

/* The first cmsg that is(): its octet by read(); -ENOENT when none. */
static int parse_octet(const struct msghdr *msg, bool (*is)(const struct cmsghdr *),
		       int (*read)(const struct cmsghdr *, const unsigned char *, uint8_t *),
		       uint8_t *out)
{
	const unsigned char *data;
	struct cmsghdr c;
	int ret = walk_find(msg, is, &c, &data);

	return ret > 0 ? read(&c, data, out) : ret;
}

int ts_parse_ttl(const struct msghdr *msg, uint8_t *ttl)
{
	return parse_octet(msg, cmsg_is_ttl, read_ttl, ttl);
}

int ts_parse_tos(const struct msghdr *msg, uint8_t *tos)
{
	return parse_octet(msg, cmsg_is_tos, read_tos, tos);
}

static bool cmsg_is_pktinfo(const struct cmsghdr *c)
{
	return (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO) ||
	       (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO);
}

/* The destination address of IPV6_PKTINFO (as it is: IPv6, or an IPv4
 * one mapped) or IP_PKTINFO (its ipi_addr, mapped). */
static int read_dst(const struct cmsghdr *c, const unsigned char *data, uint8_t dst[16])
{
	if (c->cmsg_level == IPPROTO_IPV6) {
		if (cmsg_data_len(c) < sizeof(struct in6_pktinfo))
			return -EINVAL;
		memcpy(dst, data + offsetof(struct in6_pktinfo, ipi6_addr), 16);
		return 0;
	}
	if (cmsg_data_len(c) < sizeof(struct in_pktinfo))
		return -EINVAL;
	memset(dst, 0, 10);
	dst[10] = dst[11] = 0xff;
	memcpy(dst + 12, data + offsetof(struct in_pktinfo, ipi_addr), 4);
	return 0;
}

int ts_parse_dst(const struct msghdr *msg, uint8_t dst[16])
{
	const unsigned char *data;
	struct cmsghdr c;
	int ret = walk_find(msg, cmsg_is_pktinfo, &c, &data);

	return ret > 0 ? read_dst(&c, data, dst) : ret;
}

/* The TTL (IP_TTL, IPV6_HOPLIMIT: an int) or TOS (IPV6_TCLASS: an int;
 * IP_TOS: an octet) cmsg at buf + off, its room exactly to len or to
 * what follows: its value, or -1 when it is none of them (want: 't' a
 * TTL, 'q' a TOS). */
static int small_cmsg(const unsigned char *buf, size_t len, size_t *off, char want)
{
	struct cmsghdr c;
	int v = -1;

	if (len - *off < CMSG_SPACE(1))
		return -1;
	memcpy(&c, buf + *off, sizeof(c));
	if (c.cmsg_len == CMSG_LEN(sizeof(int)) && len - *off >= CMSG_SPACE(sizeof(int)) &&
	    (want == 't' ? cmsg_is_ttl(&c) : c.cmsg_level == IPPROTO_IPV6 &&
	     c.cmsg_type == IPV6_TCLASS))
		memcpy(&v, buf + *off + CMSG_LEN(0), sizeof(v));
	else if (want == 'q' && c.cmsg_len == CMSG_LEN(1) && c.cmsg_level == IPPROTO_IP &&
		 c.cmsg_type == IP_TOS)
		v = buf[*off + CMSG_LEN(0)];
	if (v < 0 || v > 255)
		return -1;	/* none of them, or out of range: the walk's */
	*off += CMSG_ALIGN(c.cmsg_len);
	return v;
}

/*
 * The reflector's common datagram, as the kernel lays it out, every
 * length exact (no cmsg_len is trusted beyond the constants it must
 * equal): the stamps; when dst is given, IPV6_PKTINFO (a dual-stack
 * socket, IPv4 senders mapped) or IP_PKTINFO; then, when ttl is given,
 * perhaps the TTL (IP_TTL, IPV6_HOPLIMIT); then perhaps the TOS
 * (IPV6_TCLASS, IP_TOS). Each receive's, so it reads the fields in place.
 */
bool ts_parse_rx_dst(const struct msghdr *msg, struct ts_stamps *out, uint8_t dst[16],
		     uint8_t *ttl, int16_t *tos)
{
	const unsigned char *buf = msg->msg_control, *d = NULL;
	size_t len = msg->msg_controllen, off = TS_SPACE;
	int t_v = 0, q_v = -1;
	struct cmsghdr t;
	bool v6 = false;

	if ((msg->msg_flags & MSG_CTRUNC) || !buf || len <= TS_SPACE)
		return false;
	if (dst) {
		if (len < TS_SPACE + CMSG_SPACE(sizeof(struct in_pktinfo)))
			return false;
		memcpy(&t, buf + TS_SPACE, sizeof(t));
		v6 = t.cmsg_level == IPPROTO_IPV6;
		if (v6 ? t.cmsg_type != IPV6_PKTINFO ||
			 t.cmsg_len != CMSG_LEN(sizeof(struct in6_pktinfo)) :
		    t.cmsg_level != IPPROTO_IP || t.cmsg_type != IP_PKTINFO ||
		    t.cmsg_len != CMSG_LEN(sizeof(struct in_pktinfo)))
			return false;
		d = buf + TS_SPACE + CMSG_LEN(0);
		off += CMSG_ALIGN(t.cmsg_len);
		if (off > len)
			return false;
	}
	if (ttl && off < len && (t_v = small_cmsg(buf, len, &off, 't')) < 0)
		t_v = 0;	/* no TTL: maybe the TOS */
	if (off < len && (q_v = small_cmsg(buf, len, &off, 'q')) < 0)
		return false;
	if (off != len || !stamps_first(buf, out))
		return false;
	if (dst && v6) {
		memcpy(dst, d + offsetof(struct in6_pktinfo, ipi6_addr), 16);
	} else if (dst) {
		memset(dst, 0, 10);
		dst[10] = dst[11] = 0xff;
		memcpy(dst + 12, d + offsetof(struct in_pktinfo, ipi_addr), 4);
	}
	if (ttl)
		*ttl = (uint8_t)t_v;
	*tos = (int16_t)q_v;
	return true;
}

/*
 * The usual report, as the kernel writes it: its stamps, then its
 * IP(V6)_RECVERR, nothing else. 1 with both read into st and ee (what
 * the walk would read), 0 for any other layout (the walk reads it).
 */
static int tx_usual(const struct msghdr *msg, struct ts_stamps *st,
		    struct sock_extended_err *ee)
{
	const size_t first = CMSG_SPACE(sizeof(struct scm_timestamping));
	const unsigned char *p = msg->msg_control;
	struct cmsghdr a, b;

	if (!p || msg->msg_controllen < first + sizeof(b))
		return 0;
	memcpy(&a, p, sizeof(a));
	memcpy(&b, p + first, sizeof(b));
	/* the second ends the buffer: nothing after it, its padding maybe cut */
	if (a.cmsg_len != CMSG_LEN(sizeof(struct scm_timestamping)) || !cmsg_is_tstamp(&a) ||
	    !cmsg_is_recverr(&b) || b.cmsg_len < CMSG_LEN(sizeof(*ee)) ||
	    msg->msg_controllen < first + b.cmsg_len ||
	    msg->msg_controllen > first + CMSG_ALIGN(b.cmsg_len))
		return 0;
	if (read_tstamp(&a, p + CMSG_LEN(0), st))
		return 0;
	memcpy(ee, p + first + CMSG_LEN(0), sizeof(*ee));
	return 1;
}

/* An error-queue entry's stamps and extended error, in one walk (the
 * usual layout first): 0 with *have_ts and *have_ee saying which came,
 * or -EINVAL for a malformed entry. Inlined: it runs for every report. */
static inline __attribute__((always_inline)) int
errq_entry(const struct msghdr *msg, struct ts_stamps *st, bool *have_ts,
	   struct sock_extended_err *ee, bool *have_ee)
{
	const unsigned char *data;
	struct cmsg_walk w;
	struct cmsghdr c;
	int ret;

	*have_ts = *have_ee = false;
	if (msg->msg_flags & MSG_CTRUNC)
		return -EINVAL;
	if (tx_usual(msg, st, ee)) {
		*have_ts = *have_ee = true;
		return 0;
	}
	walk_init(&w, msg);
	while ((ret = walk_next(&w, &c, &data)) > 0) {
		if (cmsg_is_tstamp(&c)) {
			ret = read_tstamp(&c, data, st);
			if (ret)
				return ret;
			*have_ts = true;
		} else if (cmsg_is_recverr(&c)) {
			if (cmsg_data_len(&c) < sizeof(*ee))
				return -EINVAL;
			memcpy(ee, data, sizeof(*ee));
			*have_ee = true;
		}
	}
	return ret;
}

int ts_parse_tx(const struct msghdr *msg, struct ts_tx *out)
{
	struct sock_extended_err ee;
	struct ts_stamps st;
	bool have_ts, have_ee;
	int ret = errq_entry(msg, &st, &have_ts, &ee, &have_ee);

	if (ret)
		return ret;
	if (!have_ee || ee.ee_origin != SO_EE_ORIGIN_TIMESTAMPING ||
	    ee.ee_errno != ENOMSG)
		return -ENOMSG;
	if (!have_ts)
		return -EINVAL;
	out->ts = st;
	out->key = ee.ee_data;
	out->type = ee.ee_info;
	return 0;
}

int ts_parse_icmp(const struct msghdr *msg, struct ts_icmp *out)
{
	struct sock_extended_err ee;
	struct ts_stamps st;
	bool have_ts, have_ee;
	int ret = errq_entry(msg, &st, &have_ts, &ee, &have_ee);

	if (ret)
		return ret;
	if (!have_ee || (ee.ee_origin != SO_EE_ORIGIN_ICMP && ee.ee_origin != SO_EE_ORIGIN_ICMP6))
		return -ENOMSG;
	*out = (struct ts_icmp){ .v6 = ee.ee_origin == SO_EE_ORIGIN_ICMP6, .type = ee.ee_type,
				 .code = ee.ee_code };
	out->rx = have_ts ? st : (struct ts_stamps){ .kn_ns = TS_NONE, .hw_ns = TS_NONE };
	return 0;
}

unsigned int ts_flags(bool hw, bool sched)
{
	unsigned int flags = SOF_TIMESTAMPING_OPT_ID | SOF_TIMESTAMPING_OPT_TSONLY |
			     SOF_TIMESTAMPING_SOFTWARE | SOF_TIMESTAMPING_RX_SOFTWARE;

	if (sched)
		flags |= SOF_TIMESTAMPING_TX_SCHED;
	/* With TX_HARDWARE the driver suppresses the TX software stamp. */
	if (hw)
		flags |= SOF_TIMESTAMPING_RAW_HARDWARE |
			 SOF_TIMESTAMPING_RX_HARDWARE | SOF_TIMESTAMPING_TX_HARDWARE;
	else
		flags |= SOF_TIMESTAMPING_TX_SOFTWARE;
	return flags;
}

int ts_sock_enable(int fd, bool hw, bool sched)
{
	unsigned int flags = ts_flags(hw, sched);

	if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags)))
		return -errno;
	return 0;
}

size_t ts_no_tx_cmsg(void *buf)
{
	struct cmsghdr c = { .cmsg_len = CMSG_LEN(sizeof(uint32_t)), .cmsg_level = SOL_SOCKET,
			     .cmsg_type = SO_TIMESTAMPING };
	const uint32_t none = 0;

	memset(buf, 0, TS_NO_TX_CMSG_LEN);
	memcpy(buf, &c, sizeof(c));
	memcpy((char *)buf + CMSG_LEN(0), &none, sizeof(none));
	return TS_NO_TX_CMSG_LEN;
}

size_t ts_layers(unsigned int flags, const char **names, size_t max)
{
	static const struct { unsigned int flag; const char *name; } layer[] = {
		{ SOF_TIMESTAMPING_RX_SOFTWARE, "rx_software" },
		{ SOF_TIMESTAMPING_TX_SOFTWARE, "tx_software" },
		{ SOF_TIMESTAMPING_RX_HARDWARE, "rx_hardware" },
		{ SOF_TIMESTAMPING_TX_HARDWARE, "tx_hardware" },
		{ SOF_TIMESTAMPING_TX_SCHED, "tx_sched" },
		{ SOF_TIMESTAMPING_TX_ACK, "tx_ack" },
	};
	size_t n = 0;

	for (size_t i = 0; i < sizeof(layer) / sizeof(layer[0]) && n < max; i++)
		if (flags & layer[i].flag)
			names[n++] = layer[i].name;
	return n;
}
