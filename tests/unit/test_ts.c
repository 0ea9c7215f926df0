/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/net/ts.h: stamps out of hand-built control messages, RX (SCM_TIMESTAMPING)
 * and TX (error queue: SCM_TIMESTAMPING plus IP_RECVERR/IPV6_RECVERR), as
 * the kernel lays them out; then, where the sandbox allows sockets, one
 * real datagram over loopback.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "missing.h"
#include "tap.h"
#include "timeutil.h"
#include "ts.h"

#define KN 1700000000123456789ll
#define HW 1700000000123450001ll

/* Room for several cmsgs, aligned for struct cmsghdr. */
union ctl {
	char buf[1024];
	struct cmsghdr align;
};

struct builder {
	struct msghdr msg;
	union ctl ctl;
	size_t used;
};

static void b_init(struct builder *b)
{
	memset(b, 0, sizeof(*b));
	b->msg.msg_control = b->ctl.buf;
	b->msg.msg_controllen = 0;
}

/*
 * Append a cmsg whose cmsg_len says len bytes of data, with copy bytes
 * of data copied (copy may be less than len only to fake truncation; the
 * space taken is always CMSG_SPACE(len)).
 */
static void b_add_len(struct builder *b, int level, int type, const void *data,
		      size_t copy, size_t len)
{
	struct cmsghdr *c = (struct cmsghdr *)(b->ctl.buf + b->used);

	c->cmsg_level = level;
	c->cmsg_type = type;
	c->cmsg_len = CMSG_LEN(len);
	memcpy(CMSG_DATA(c), data, copy);
	b->used += CMSG_SPACE(len);
	b->msg.msg_controllen = b->used;
}

static void b_add(struct builder *b, int level, int type, const void *data,
		  size_t len)
{
	b_add_len(b, level, type, data, len, len);
}

static struct scm_timestamping tss(int64_t kn, int64_t hw)
{
	struct scm_timestamping t;

	memset(&t, 0, sizeof(t));
	t.ts[0] = ns_to_timespec(kn);
	t.ts[2] = ns_to_timespec(hw);
	return t;
}

/* As the kernel writes IP_RECVERR: the error, then the offender address. */
struct errhdr4 {
	struct sock_extended_err ee;
	struct sockaddr_in offender;
};

static struct errhdr4 tserr(uint8_t origin, uint32_t eerrno, uint32_t info,
			    uint32_t data)
{
	struct errhdr4 e;

	memset(&e, 0, sizeof(e));
	e.ee.ee_errno = eerrno;
	e.ee.ee_origin = origin;
	e.ee.ee_info = info;
	e.ee.ee_data = data;
	return e;
}

static void add_ts(struct builder *b, int64_t kn, int64_t hw)
{
	struct scm_timestamping t = tss(kn, hw);

	b_add(b, SOL_SOCKET, SCM_TIMESTAMPING, &t, sizeof(t));
}

static void test_rx(void)
{
	struct builder b;
	struct ts_stamps s;
	int r;

	b_init(&b);
	add_ts(&b, KN, 0);
	memset(&s, 0x55, sizeof(s));
	r = ts_parse_rx(&b.msg, &s);
	is_int(r, 0, "rx: ts[0] only -> 0");
	is_i64(s.kn_ns, KN, "rx: ts[0] is kn_ns");
	is_i64(s.hw_ns, TS_NONE, "rx: ts[2] zero -> hw_ns TS_NONE");

	b_init(&b);
	add_ts(&b, 0, HW);
	memset(&s, 0x55, sizeof(s));
	r = ts_parse_rx(&b.msg, &s);
	is_int(r, 0, "rx: ts[2] only -> 0");
	is_i64(s.kn_ns, TS_NONE, "rx: ts[0] zero -> kn_ns TS_NONE");
	is_i64(s.hw_ns, HW, "rx: ts[2] is hw_ns");

	b_init(&b);
	{
		struct scm_timestamping t = tss(KN, HW);

		t.ts[1] = ns_to_timespec(42);	/* legacy slot: ignored */
		b_add(&b, SOL_SOCKET, SCM_TIMESTAMPING, &t, sizeof(t));
	}
	r = ts_parse_rx(&b.msg, &s);
	is_int(r, 0, "rx: both stamps -> 0");
	ok(s.kn_ns == KN && s.hw_ns == HW, "rx: both stamps read, ts[1] ignored");
	is_i64(ts_wire(&s, true), HW, "ts_wire(hw) is the HW stamp");
	is_i64(ts_wire(&s, false), KN, "ts_wire(!hw) is the KN stamp");

	/* nanoseconds and seconds both count */
	b_init(&b);
	add_ts(&b, 999999999, 1000000000);
	r = ts_parse_rx(&b.msg, &s);
	ok(r == 0 && s.kn_ns == 999999999 && s.hw_ns == 1000000000,
	   "rx: 0.999999999 s and 1.000000000 s converted to ns");

	/* unrelated cmsgs first */
	b_init(&b);
	{
		int tos = 0x10;
		struct in_pktinfo pi;
		struct timespec tns = { 5, 6 };

		memset(&pi, 0, sizeof(pi));
		b_add(&b, SOL_IP, IP_TOS, &tos, 1);
		b_add(&b, SOL_IP, IP_PKTINFO, &pi, sizeof(pi));
		b_add(&b, SOL_SOCKET, SCM_TIMESTAMPNS, &tns, sizeof(tns));
	}
	add_ts(&b, KN, HW);
	memset(&s, 0, sizeof(s));
	r = ts_parse_rx(&b.msg, &s);
	is_int(r, 0, "rx: unrelated cmsgs before it are skipped");
	ok(s.kn_ns == KN && s.hw_ns == HW,
	   "rx: stamps read after IP_TOS, IP_PKTINFO, SCM_TIMESTAMPNS");

	/* none */
	b_init(&b);
	b.msg.msg_control = NULL;
	is_int(ts_parse_rx(&b.msg, &s), -ENOENT, "rx: no control data -> -ENOENT");
	b_init(&b);
	{
		int tos = 0;
		struct timespec tns = { 5, 6 };

		b_add(&b, SOL_IP, IP_TOS, &tos, 1);
		b_add(&b, SOL_SOCKET, SCM_TIMESTAMPNS, &tns, sizeof(tns));
	}
	is_int(ts_parse_rx(&b.msg, &s), -ENOENT,
	       "rx: only other cmsgs -> -ENOENT");
	b_init(&b);
	{
		struct scm_timestamping t = tss(KN, HW);

		b_add(&b, SOL_IP, SCM_TIMESTAMPING, &t, sizeof(t));
	}
	is_int(ts_parse_rx(&b.msg, &s), -ENOENT,
	       "rx: type SCM_TIMESTAMPING at level SOL_IP is not it -> -ENOENT");

	/* truncated */
	b_init(&b);
	{
		struct scm_timestamping t = tss(KN, HW);

		b_add_len(&b, SOL_SOCKET, SCM_TIMESTAMPING, &t,
			  sizeof(t) - sizeof(struct timespec),
			  sizeof(t) - sizeof(struct timespec));
	}
	is_int(ts_parse_rx(&b.msg, &s), -EINVAL,
	       "rx: cmsg_len holds ts[0..1] only (no ts[2]) -> -EINVAL");
	b_init(&b);
	{
		struct scm_timestamping t = tss(KN, HW);

		b_add_len(&b, SOL_SOCKET, SCM_TIMESTAMPING, &t, 4, 4);
	}
	is_int(ts_parse_rx(&b.msg, &s), -EINVAL, "rx: cmsg_len of 4 data bytes -> -EINVAL");
	b_init(&b);
	{
		struct scm_timestamping t = tss(KN, HW);

		b_add_len(&b, SOL_SOCKET, SCM_TIMESTAMPING, &t, 0, 0);
	}
	is_int(ts_parse_rx(&b.msg, &s), -EINVAL,
	       "rx: SCM_TIMESTAMPING with no data -> -EINVAL");
	b_init(&b);
	add_ts(&b, KN, HW);
	b.msg.msg_flags = MSG_CTRUNC;
	is_int(ts_parse_rx(&b.msg, &s), -EINVAL,
	       "rx: MSG_CTRUNC in msg_flags -> -EINVAL");
}

static void test_tx(void)
{
	struct builder b;
	struct ts_tx t;
	struct errhdr4 e;
	int r;

	/* IPv4, as the kernel sends it with OPT_TSONLY */
	b_init(&b);
	add_ts(&b, KN, 0);
	e = tserr(SO_EE_ORIGIN_TIMESTAMPING, ENOMSG, SCM_TSTAMP_SND, 4242);
	b_add(&b, SOL_IP, IP_RECVERR, &e, sizeof(e));
	memset(&t, 0x55, sizeof(t));
	r = ts_parse_tx(&b.msg, &t);
	is_int(r, 0, "tx v4: timestamp report -> 0");
	is_u64(t.key, 4242, "tx v4: key is ee_data");
	is_u64(t.type, SCM_TSTAMP_SND, "tx v4: type is ee_info (SND)");
	is_i64(t.ts.kn_ns, KN, "tx v4: kn_ns");
	is_i64(t.ts.hw_ns, TS_NONE, "tx v4: hw_ns absent");

	/* IPv6 */
	b_init(&b);
	add_ts(&b, 0, HW);
	e = tserr(SO_EE_ORIGIN_TIMESTAMPING, ENOMSG, SCM_TSTAMP_SND, 0xfffffffeu);
	b_add(&b, SOL_IPV6, IPV6_RECVERR, &e.ee, sizeof(e.ee));
	memset(&t, 0x55, sizeof(t));
	r = ts_parse_tx(&b.msg, &t);
	is_int(r, 0, "tx v6: timestamp report -> 0");
	is_u64(t.key, 0xfffffffeu, "tx v6: key is ee_data (32 bit)");
	is_u64(t.type, SCM_TSTAMP_SND, "tx v6: type");
	is_i64(t.ts.hw_ns, HW, "tx v6: hw_ns");
	is_i64(t.ts.kn_ns, TS_NONE, "tx v6: kn_ns absent");

	/* SCHED report: returned with its type for the caller to filter */
	b_init(&b);
	add_ts(&b, KN, 0);
	e = tserr(SO_EE_ORIGIN_TIMESTAMPING, ENOMSG, SCM_TSTAMP_SCHED, 7);
	b_add(&b, SOL_IP, IP_RECVERR, &e, sizeof(e));
	r = ts_parse_tx(&b.msg, &t);
	ok(r == 0 && t.type == SCM_TSTAMP_SCHED && t.key == 7,
	   "tx: SCM_TSTAMP_SCHED report -> 0 with type SCHED");

	/* recverr first, stamps second */
	b_init(&b);
	e = tserr(SO_EE_ORIGIN_TIMESTAMPING, ENOMSG, SCM_TSTAMP_SND, 9);
	b_add(&b, SOL_IP, IP_RECVERR, &e, sizeof(e));
	add_ts(&b, KN, HW);
	memset(&t, 0, sizeof(t));
	r = ts_parse_tx(&b.msg, &t);
	ok(r == 0 && t.key == 9 && t.ts.kn_ns == KN && t.ts.hw_ns == HW,
	   "tx: IP_RECVERR before SCM_TIMESTAMPING also parsed");

	/* foreign entries */
	b_init(&b);
	e = tserr(SO_EE_ORIGIN_ICMP, EHOSTUNREACH, 0, 0);
	e.ee.ee_type = 3;
	e.ee.ee_code = 1;
	b_add(&b, SOL_IP, IP_RECVERR, &e, sizeof(e));
	is_int(ts_parse_tx(&b.msg, &t), -ENOMSG, "tx: ICMP error -> -ENOMSG");
	b_init(&b);
	add_ts(&b, KN, 0);
	b_add(&b, SOL_IP, IP_RECVERR, &e, sizeof(e));
	is_int(ts_parse_tx(&b.msg, &t), -ENOMSG,
	       "tx: ICMP error carrying an RX stamp -> -ENOMSG");
	b_init(&b);
	add_ts(&b, KN, 0);
	e = tserr(SO_EE_ORIGIN_ICMP6, EHOSTUNREACH, 0, 0);
	b_add(&b, SOL_IPV6, IPV6_RECVERR, &e.ee, sizeof(e.ee));
	is_int(ts_parse_tx(&b.msg, &t), -ENOMSG, "tx: ICMPv6 error -> -ENOMSG");
	b_init(&b);
	e = tserr(SO_EE_ORIGIN_ZEROCOPY, 0, 0, 3);
	b_add(&b, SOL_IP, IP_RECVERR, &e, sizeof(e));
	is_int(ts_parse_tx(&b.msg, &t), -ENOMSG,
	       "tx: zerocopy notification -> -ENOMSG");
	b_init(&b);
	add_ts(&b, KN, 0);
	e = tserr(SO_EE_ORIGIN_LOCAL, EMSGSIZE, 1500, 0);
	b_add(&b, SOL_IP, IP_RECVERR, &e, sizeof(e));
	is_int(ts_parse_tx(&b.msg, &t), -ENOMSG,
	       "tx: local error (EMSGSIZE) -> -ENOMSG");
	b_init(&b);
	add_ts(&b, KN, 0);
	is_int(ts_parse_tx(&b.msg, &t), -ENOMSG,
	       "tx: stamps without any recverr -> -ENOMSG");
	b_init(&b);
	b.msg.msg_control = NULL;
	is_int(ts_parse_tx(&b.msg, &t), -ENOMSG, "tx: no control data -> -ENOMSG");

	/* broken reports */
	b_init(&b);
	e = tserr(SO_EE_ORIGIN_TIMESTAMPING, ENOMSG, SCM_TSTAMP_SND, 1);
	b_add(&b, SOL_IP, IP_RECVERR, &e, sizeof(e));
	is_int(ts_parse_tx(&b.msg, &t), -EINVAL,
	       "tx: timestamping recverr without SCM_TIMESTAMPING -> -EINVAL");
	b_init(&b);
	add_ts(&b, KN, 0);
	b_add_len(&b, SOL_IP, IP_RECVERR, &e, sizeof(e.ee) - 4, sizeof(e.ee) - 4);
	is_int(ts_parse_tx(&b.msg, &t), -EINVAL,
	       "tx: recverr shorter than sock_extended_err -> -EINVAL");
	b_init(&b);
	add_ts(&b, KN, 0);
	b_add_len(&b, SOL_IPV6, IPV6_RECVERR, &e, 2, 2);
	is_int(ts_parse_tx(&b.msg, &t), -EINVAL,
	       "tx: IPV6_RECVERR of 2 bytes -> -EINVAL");
	b_init(&b);
	{
		struct scm_timestamping s = tss(KN, 0);

		b_add_len(&b, SOL_SOCKET, SCM_TIMESTAMPING, &s, 8, 8);
	}
	b_add(&b, SOL_IP, IP_RECVERR, &e, sizeof(e));
	is_int(ts_parse_tx(&b.msg, &t), -EINVAL,
	       "tx: truncated SCM_TIMESTAMPING with a timestamping recverr -> -EINVAL");
}

/* ICMP errors off the error queue (ts_parse_icmp: --icmp's ping socket,
 * a fleet's), as the kernel's ip_icmp_error and ipv6_icmp_error queue
 * them: the extended error with its offender, an RX stamp beside it. */
static void test_icmp(void)
{
	struct builder b;
	struct ts_icmp c;
	struct errhdr4 e;

	b_init(&b);
	add_ts(&b, KN, 0);
	e = tserr(SO_EE_ORIGIN_ICMP, EHOSTUNREACH, 0, 0);
	e.ee.ee_type = 3;
	e.ee.ee_code = 1;
	b_add(&b, SOL_IP, IP_RECVERR, &e, sizeof(e));
	memset(&c, 0x55, sizeof(c));
	is_int(ts_parse_icmp(&b.msg, &c), 0, "icmp v4: host unreachable -> 0");
	ok(!c.v6 && c.type == 3 && c.code == 1, "icmp v4: its type and code, not v6");
	ok(c.rx.kn_ns == KN && c.rx.hw_ns == TS_NONE, "icmp v4: its RX stamp");

	b_init(&b);
	e = tserr(SO_EE_ORIGIN_ICMP6, EHOSTUNREACH, 0, 0);
	e.ee.ee_type = 3;	/* ICMPv6 time exceeded */
	b_add(&b, SOL_IPV6, IPV6_RECVERR, &e.ee, sizeof(e.ee));
	is_int(ts_parse_icmp(&b.msg, &c), 0, "icmp v6: time exceeded -> 0");
	ok(c.v6 && c.type == 3 && c.rx.kn_ns == TS_NONE && c.rx.hw_ns == TS_NONE,
	   "icmp v6: v6, its type, no stamp (none came)");

	b_init(&b);
	add_ts(&b, KN, 0);
	e = tserr(SO_EE_ORIGIN_TIMESTAMPING, ENOMSG, SCM_TSTAMP_SND, 7);
	b_add(&b, SOL_IP, IP_RECVERR, &e, sizeof(e));
	is_int(ts_parse_icmp(&b.msg, &c), -ENOMSG, "icmp: a TX stamp report -> -ENOMSG");
	b_init(&b);
	e = tserr(SO_EE_ORIGIN_LOCAL, EMSGSIZE, 1500, 0);
	b_add(&b, SOL_IP, IP_RECVERR, &e, sizeof(e));
	is_int(ts_parse_icmp(&b.msg, &c), -ENOMSG, "icmp: a local error -> -ENOMSG");
	b_init(&b);
	add_ts(&b, KN, 0);
	is_int(ts_parse_icmp(&b.msg, &c), -ENOMSG, "icmp: no recverr -> -ENOMSG");
	b_init(&b);
	e = tserr(SO_EE_ORIGIN_ICMP, EHOSTUNREACH, 0, 0);
	b_add_len(&b, SOL_IP, IP_RECVERR, &e, sizeof(e.ee) - 4, sizeof(e.ee) - 4);
	is_int(ts_parse_icmp(&b.msg, &c), -EINVAL, "icmp: a short recverr -> -EINVAL");
	b_init(&b);
	b_add(&b, SOL_IP, IP_RECVERR, &e, sizeof(e));
	b.msg.msg_flags = MSG_CTRUNC;
	is_int(ts_parse_icmp(&b.msg, &c), -EINVAL, "icmp: MSG_CTRUNC -> -EINVAL");
}

/*
 * cmsg_len against msg_controllen: the parsers read only the bytes the
 * kernel says it wrote (libFuzzer found reads past them, ts.c:37 and :73).
 * The builder's buffer is larger, so these fail on return codes, not
 * only under ASan.
 */
static void test_bounds(void)
{
	struct builder b;
	struct ts_stamps s;
	struct ts_tx t;
	struct errhdr4 e = tserr(SO_EE_ORIGIN_TIMESTAMPING, ENOMSG,
				 SCM_TSTAMP_SND, 5);
	struct cmsghdr *c;
	union ctl odd;

	b_init(&b);
	add_ts(&b, KN, HW);
	b.msg.msg_controllen = CMSG_LEN(sizeof(struct scm_timestamping)) - 1;
	is_int(ts_parse_rx(&b.msg, &s), -EINVAL,
	       "rx: cmsg_len one byte past msg_controllen -> -EINVAL");
	b.msg.msg_controllen = CMSG_LEN(sizeof(struct scm_timestamping));
	memset(&s, 0, sizeof(s));
	ok(ts_parse_rx(&b.msg, &s) == 0 && s.kn_ns == KN && s.hw_ns == HW,
	   "rx: msg_controllen without the last padding -> 0 (as CMSG_NXTHDR)");
	b.msg.msg_controllen = sizeof(struct cmsghdr) - 1;
	is_int(ts_parse_rx(&b.msg, &s), -ENOENT,
	       "rx: fewer bytes than a header -> -ENOENT (no cmsg)");

	b_init(&b);
	add_ts(&b, KN, HW);
	c = (struct cmsghdr *)b.ctl.buf;
	c->cmsg_len = sizeof(b.ctl.buf) + 64;
	is_int(ts_parse_rx(&b.msg, &s), -EINVAL,
	       "rx: cmsg_len larger than the whole buffer -> -EINVAL");
	c->cmsg_len = 0;
	is_int(ts_parse_rx(&b.msg, &s), -EINVAL,
	       "rx: cmsg_len 0 -> -EINVAL");
	c->cmsg_len = sizeof(struct cmsghdr) - 1;
	is_int(ts_parse_rx(&b.msg, &s), -EINVAL,
	       "rx: cmsg_len shorter than a header -> -EINVAL");

	/* A bad one before the stamps ends the walk. */
	b_init(&b);
	{
		int tos = 0;

		b_add(&b, SOL_IP, IP_TOS, &tos, 1);
	}
	add_ts(&b, KN, HW);
	((struct cmsghdr *)b.ctl.buf)->cmsg_len = b.used + 8;
	is_int(ts_parse_rx(&b.msg, &s), -EINVAL,
	       "rx: an earlier cmsg running past the end -> -EINVAL");

	/* Trailing bytes too few for a header are ignored. */
	b_init(&b);
	add_ts(&b, KN, HW);
	b.msg.msg_controllen += sizeof(struct cmsghdr) - 1;
	ok(ts_parse_rx(&b.msg, &s) == 0 && s.kn_ns == KN,
	   "rx: trailing bytes shorter than a header -> 0");

	/* Any alignment of msg_control. */
	b_init(&b);
	add_ts(&b, KN, HW);
	memcpy(odd.buf + 1, b.ctl.buf, b.used);
	b.msg.msg_control = odd.buf + 1;
	memset(&s, 0, sizeof(s));
	ok(ts_parse_rx(&b.msg, &s) == 0 && s.kn_ns == KN && s.hw_ns == HW,
	   "rx: msg_control at an odd address -> 0, stamps read");

	/* TX: the recverr and the stamps both bounded */
	b_init(&b);
	add_ts(&b, KN, 0);
	b_add(&b, SOL_IP, IP_RECVERR, &e, sizeof(e));
	b.msg.msg_controllen -= CMSG_SPACE(sizeof(e)) - CMSG_LEN(sizeof(e.ee)) + 1;
	is_int(ts_parse_tx(&b.msg, &t), -EINVAL,
	       "tx: IP_RECVERR running past msg_controllen -> -EINVAL");
	b_init(&b);
	b_add(&b, SOL_IP, IP_RECVERR, &e, sizeof(e));
	add_ts(&b, KN, 0);
	b.msg.msg_controllen -= 8;
	is_int(ts_parse_tx(&b.msg, &t), -EINVAL,
	       "tx: SCM_TIMESTAMPING running past msg_controllen -> -EINVAL");
	b.msg.msg_controllen += 8;
	memset(&t, 0, sizeof(t));
	ok(ts_parse_tx(&b.msg, &t) == 0 && t.key == 5 && t.ts.kn_ns == KN,
	   "tx: the same message whole -> 0");
	memset(&t, 0x55, sizeof(t));
	b.msg.msg_flags = MSG_CTRUNC;
	ok(ts_parse_tx(&b.msg, &t) == -EINVAL && t.key == 0x55555555u,
	   "tx: MSG_CTRUNC -> -EINVAL, out untouched");
}

/* Stamps that are not a time in int64 ns count as missing. */
static void test_bad_times(void)
{
	struct builder b;
	struct ts_stamps s;
	struct scm_timestamping t = tss(KN, HW);

	t.ts[0].tv_sec = (time_t)INT64_MAX / NS_PER_SEC + 1;
	t.ts[2].tv_nsec = NS_PER_SEC;
	b_init(&b);
	b_add(&b, SOL_SOCKET, SCM_TIMESTAMPING, &t, sizeof(t));
	ok(ts_parse_rx(&b.msg, &s) == 0 && s.kn_ns == TS_NONE && s.hw_ns == TS_NONE,
	   "rx: tv_sec past 2262 and tv_nsec 1e9 -> TS_NONE, no overflow");
	t.ts[0].tv_sec = INT64_MIN;
	t.ts[0].tv_nsec = 0;
	t.ts[2].tv_sec = 1;
	t.ts[2].tv_nsec = -1;
	b_init(&b);
	b_add(&b, SOL_SOCKET, SCM_TIMESTAMPING, &t, sizeof(t));
	ok(ts_parse_rx(&b.msg, &s) == 0 && s.kn_ns == TS_NONE && s.hw_ns == TS_NONE,
	   "rx: tv_sec INT64_MIN and tv_nsec -1 -> TS_NONE");
}

/* SO_RXQ_OVFL beside the stamps, as the kernel writes it after them. */
static void test_drops(void)
{
	struct builder b;
	uint32_t d, v = 600;

	b_init(&b);
	add_ts(&b, KN, 0);
	b_add(&b, SOL_SOCKET, SO_RXQ_OVFL, &v, sizeof(v));
	d = 0;
	is_int(ts_parse_drops(&b.msg, &d), 0, "drops: after SCM_TIMESTAMPING -> 0");
	is_int((int)d, 600, "drops: the u32 count read");

	b_init(&b);
	add_ts(&b, KN, 0);
	is_int(ts_parse_drops(&b.msg, &d), -ENOENT,
	       "drops: none (the kernel sends it only once non-zero) -> -ENOENT");
	b_init(&b);
	b_add(&b, SOL_IP, SO_RXQ_OVFL, &v, sizeof(v));
	is_int(ts_parse_drops(&b.msg, &d), -ENOENT,
	       "drops: type SO_RXQ_OVFL at level SOL_IP is not it -> -ENOENT");
	b_init(&b);
	b_add_len(&b, SOL_SOCKET, SO_RXQ_OVFL, &v, 2, 2);
	d = 7;
	is_int(ts_parse_drops(&b.msg, &d), -EINVAL, "drops: cmsg_len of 2 data bytes -> -EINVAL");
	is_int((int)d, 7, "drops: a short cmsg leaves the count alone");
	b_init(&b);
	b_add(&b, SOL_SOCKET, SO_RXQ_OVFL, &v, sizeof(v));
	b.msg.msg_controllen -= 8;	/* cmsg_len runs past the buffer */
	is_int(ts_parse_drops(&b.msg, &d), -EINVAL,
	       "drops: cmsg_len past msg_controllen -> -EINVAL");
	b_init(&b);
	b_add(&b, SOL_SOCKET, SO_RXQ_OVFL, &v, sizeof(v));
	b.msg.msg_flags = MSG_CTRUNC;
	is_int(ts_parse_drops(&b.msg, &d), -EINVAL, "drops: MSG_CTRUNC -> -EINVAL");
	b_init(&b);
	b.msg.msg_control = NULL;
	is_int(ts_parse_drops(&b.msg, &d), -ENOENT, "drops: no control data -> -ENOENT");
}

/* The received TTL (IP_RECVTTL) or Hop Limit (IPV6_RECVHOPLIMIT). */
static void test_ttl(void)
{
	struct builder b;
	int v = 61, big = 256;
	uint8_t t = 0;

	b_init(&b);
	add_ts(&b, KN, 0);
	b_add(&b, IPPROTO_IP, IP_TTL, &v, sizeof(v));
	ok(ts_parse_ttl(&b.msg, &t) == 0 && t == 61, "ttl: IP_TTL after the stamps -> 61");
	b_init(&b);
	b_add(&b, IPPROTO_IPV6, IPV6_HOPLIMIT, &v, sizeof(v));
	ok(ts_parse_ttl(&b.msg, &t) == 0 && t == 61, "ttl: IPV6_HOPLIMIT -> 61");
	b_init(&b);
	add_ts(&b, KN, 0);
	is_int(ts_parse_ttl(&b.msg, &t), -ENOENT, "ttl: none -> -ENOENT");
	b_init(&b);
	b_add(&b, IPPROTO_IP, IP_TTL, &big, sizeof(big));
	is_int(ts_parse_ttl(&b.msg, &t), -EINVAL, "ttl: 256 -> -EINVAL");
	b_init(&b);
	b_add_len(&b, IPPROTO_IP, IP_TTL, &v, 2, 2);
	is_int(ts_parse_ttl(&b.msg, &t), -EINVAL, "ttl: 2 data bytes -> -EINVAL");
}

/* The loop's one walk: every item of a datagram's control data at once,
 * each with the result its own parser gives. */
static void test_rxmsg(void)
{
	struct builder b;
	struct ts_rx rx;
	uint32_t v = 600;
	int ttl = 61;

	b_init(&b);
	add_ts(&b, KN, HW);
	b_add(&b, SOL_SOCKET, SO_RXQ_OVFL, &v, sizeof(v));
	b_add(&b, IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl));
	ts_parse_rxmsg(&b.msg, &rx);
	ok(rx.ts_ret == 0 && rx.ts.kn_ns == KN && rx.ts.hw_ns == HW && rx.drops_ret == 0 &&
	   rx.drops == 600 && rx.ttl_ret == 0 && rx.ttl == 61,
	   "rxmsg: stamps, drops and TTL in one walk");

	b_init(&b);
	add_ts(&b, KN, 0);
	ts_parse_rxmsg(&b.msg, &rx);
	ok(rx.ts_ret == 0 && rx.ts.kn_ns == KN && rx.drops_ret == -ENOENT &&
	   rx.ttl_ret == -ENOENT, "rxmsg: stamps alone, the others -ENOENT");
	is_int((int)b.msg.msg_controllen, (int)CMSG_SPACE(sizeof(struct scm_timestamping)),
	       "rxmsg: stamps alone are the fast path's case");
	b.msg.msg_flags = MSG_CTRUNC;
	ts_parse_rxmsg(&b.msg, &rx);
	ok(rx.ts_ret == -EINVAL && rx.ts.kn_ns == TS_NONE && rx.drops_ret == -EINVAL &&
	   rx.ttl_ret == -ENOENT, "rxmsg: stamps alone but MSG_CTRUNC: no stamps, as the walk says");
	b_init(&b);
	b_add_len(&b, SOL_SOCKET, SO_RXQ_OVFL, &v, sizeof(v),
		  sizeof(struct scm_timestamping));
	ts_parse_rxmsg(&b.msg, &rx);
	ok(rx.ts_ret == -ENOENT && rx.drops_ret == 0 && rx.drops == 600,
	   "rxmsg: a block of the stamps' size that is not them: the walk reads it");

	/* a bad cmsg after the stamps: they stand, the rest is -EINVAL */
	b_init(&b);
	add_ts(&b, KN, 0);
	b_add(&b, SOL_SOCKET, SO_RXQ_OVFL, &v, sizeof(v));
	((struct cmsghdr *)(b.ctl.buf + CMSG_SPACE(sizeof(struct scm_timestamping))))->cmsg_len = 4;
	ts_parse_rxmsg(&b.msg, &rx);
	ok(rx.ts_ret == 0 && rx.ts.kn_ns == KN && rx.drops_ret == -EINVAL &&
	   rx.ttl_ret == -EINVAL, "rxmsg: a malformed cmsg after the stamps spoils only what follows");

	/* a short stamp block: no stamps, the walk goes on to the others */
	b_init(&b);
	b_add_len(&b, SOL_SOCKET, SCM_TIMESTAMPING, &v, sizeof(v), sizeof(v));
	b_add(&b, SOL_SOCKET, SO_RXQ_OVFL, &v, sizeof(v));
	ts_parse_rxmsg(&b.msg, &rx);
	ok(rx.ts_ret == -EINVAL && rx.ts.kn_ns == TS_NONE && rx.ts.hw_ns == TS_NONE &&
	   rx.drops_ret == 0 && rx.drops == 600, "rxmsg: a short stamp block -> -EINVAL, TS_NONE; drops read");

	/* only the first of a kind counts, as with each parser */
	b_init(&b);
	add_ts(&b, KN, 0);
	add_ts(&b, KN + 5, 0);
	ts_parse_rxmsg(&b.msg, &rx);
	ok(rx.ts_ret == 0 && rx.ts.kn_ns == KN, "rxmsg: the first stamp block of two");

	b_init(&b);
	add_ts(&b, KN, 0);
	b_add(&b, IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl));
	b.msg.msg_flags = MSG_CTRUNC;
	ts_parse_rxmsg(&b.msg, &rx);
	ok(rx.ts_ret == -EINVAL && rx.ts.kn_ns == TS_NONE && rx.drops_ret == -EINVAL &&
	   rx.ttl_ret == 0 && rx.ttl == 61, "rxmsg: MSG_CTRUNC spoils stamps and drops, not the TTL");

	b_init(&b);
	b.msg.msg_control = NULL;
	ts_parse_rxmsg(&b.msg, &rx);
	ok(rx.ts_ret == -ENOENT && rx.drops_ret == -ENOENT && rx.ttl_ret == -ENOENT &&
	   rx.ts.kn_ns == TS_NONE, "rxmsg: no control data -> -ENOENT each");
}

/* ts_parse_rx_ttl() on the stamps, then an IP_TTL of ttl (0: none), then
 * a drop count when drops, with msg_flags. */
static bool rx_ttl_case(int ttl, bool drops, int msg_flags)
{
	struct ts_stamps st;
	struct builder b;
	uint32_t v = 600;
	int16_t tos;
	uint8_t t;

	b_init(&b);
	add_ts(&b, KN, 0);
	if (ttl)
		b_add(&b, IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl));
	if (drops)
		b_add(&b, SOL_SOCKET, SO_RXQ_OVFL, &v, sizeof(v));
	b.msg.msg_flags = msg_flags;
	return ts_parse_rx_ttl(&b.msg, &st, &t, &tos);
}

/* The STAMP reflector's common datagram: stamps, then the TTL. */
static void test_rx_ttl(void)
{
	struct ts_stamps st = { TS_NONE, TS_NONE };
	struct builder b;
	struct ts_rx rx;
	int ttl = 61, hop = 64, tclass = 0xb9;
	uint8_t t = 0, tos4 = 0x2e << 2 | 1;
	int16_t tos = 0;

	b_init(&b);
	add_ts(&b, KN, HW);
	b_add(&b, IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl));
	ts_parse_rxmsg(&b.msg, &rx);
	ok(ts_parse_rx_ttl(&b.msg, &st, &t, &tos) && st.kn_ns == KN && st.hw_ns == HW && t == 61 &&
	   tos == -1 && rx.ts.kn_ns == st.kn_ns && rx.ttl == t && rx.tos_ret == -ENOENT,
	   "rx_ttl: stamps then IP_TTL -> both (no TOS), as the walk reads them");
	b_add(&b, IPPROTO_IP, IP_TOS, &tos4, sizeof(tos4));
	ts_parse_rxmsg(&b.msg, &rx);
	ok(ts_parse_rx_ttl(&b.msg, &st, &t, &tos) && t == 61 && tos == (0x2e << 2 | 1) &&
	   rx.tos_ret == 0 && rx.tos == tos,
	   "rx_ttl: then IPv4's one-octet IP_TOS: DSCP 46, ECN 1, as the walk reads it");
	b_init(&b);
	add_ts(&b, KN, 0);
	b_add(&b, IPPROTO_IPV6, IPV6_HOPLIMIT, &hop, sizeof(hop));
	ok(ts_parse_rx_ttl(&b.msg, &st, &t, &tos) && st.kn_ns == KN && t == 64,
	   "rx_ttl: stamps then IPV6_HOPLIMIT -> both");
	b_add(&b, IPPROTO_IPV6, IPV6_TCLASS, &tclass, sizeof(tclass));
	ok(ts_parse_rx_ttl(&b.msg, &st, &t, &tos) && t == 64 && tos == 0xb9,
	   "rx_ttl: then IPv6's int IPV6_TCLASS");

	t = 7;
	st.kn_ns = 1;
	b_init(&b);
	b_add(&b, IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl));
	add_ts(&b, KN, 0);
	ok(!ts_parse_rx_ttl(&b.msg, &st, &t, &tos) && t == 7 && st.kn_ns == 1,
	   "rx_ttl: the TTL first: not the fast path's case, nothing written");
	ok(!rx_ttl_case(0, false, 0), "rx_ttl: stamps alone: not its case");
	ok(!rx_ttl_case(0, true, 0), "rx_ttl: stamps then a drop count: the walk's");
	ok(!rx_ttl_case(61, true, 0), "rx_ttl: stamps, TTL and a drop count: the walk's");
	ok(!rx_ttl_case(300, false, 0), "rx_ttl: a TTL of 300: the walk's (-EINVAL)");
	ok(!rx_ttl_case(61, false, MSG_CTRUNC), "rx_ttl: MSG_CTRUNC: the walk's");
}

/* A datagram to ourselves (fd connected to its own address) and back. */
struct self_msg {
	char buf[64], cbuf[512];
	struct iovec iov;
	struct msghdr m;
};

/* "ping" sent on fd and received with its control data into sm: 0, or
 * -1 when it did not come back within a second. */
static int ping_self(int fd, struct self_msg *sm)
{
	struct pollfd p = { fd, POLLIN, 0 };

	sm->iov = (struct iovec){ sm->buf, sizeof(sm->buf) };
	sm->m = (struct msghdr){ .msg_iov = &sm->iov, .msg_iovlen = 1,
				 .msg_control = sm->cbuf, .msg_controllen = sizeof(sm->cbuf) };
	if (send(fd, "ping", 4, 0) != 4 || poll(&p, 1, 1000) != 1 ||
	    recvmsg(fd, &sm->m, 0) != 4)
		return -1;
	return 0;
}

/* A real datagram to ourselves over loopback, with ts_sock_enable(). */
static void test_loopback(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	int flags = 0, want;
	socklen_t flen = sizeof(flags);
	int64_t before, after;
	struct ts_stamps rx = { 0, 0 };
	struct ts_tx tx;
	int64_t sched = TS_NONE;
	int r = -1, rt = -1;

	if (fd < 0) {
		skip(10, "no UDP socket here");
		return;
	}
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &alen) ||
	    connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		skip(10, "no loopback here");
		return;
	}
	is_int(ts_sock_enable(fd, false, true), 0, "ts_sock_enable(udp, sw, sched) -> 0");
	getsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, &flen);
	want = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_TX_SOFTWARE |
	       SOF_TIMESTAMPING_SOFTWARE | SOF_TIMESTAMPING_OPT_ID |
	       SOF_TIMESTAMPING_OPT_TSONLY | SOF_TIMESTAMPING_TX_SCHED;
	ok((flags & want) == want,
	   "sw: RX/TX software, TX_SCHED, SOFTWARE, OPT_ID, OPT_TSONLY set (0x%x)", flags);

	/* RX stamping is switched on by a deferred worker: allow a second. */
	before = realtime_ns();
	for (int i = 0; i < 20; i++) {
		struct self_msg sm;

		if (ping_self(fd, &sm))
			break;
		r = ts_parse_rx(&sm.m, &rx);
		if (r == 0 && rx.kn_ns != TS_NONE)
			break;
		usleep(50000);
	}
	after = realtime_ns();
	is_int(r, 0, "loopback rx: ts_parse_rx on a real recvmsg -> 0");
	ok(rx.kn_ns >= before - NS_PER_MS && rx.kn_ns <= after + NS_PER_MS,
	   "loopback rx: KN stamp within the test's time (%lld ns after start)",
	   (long long)(rx.kn_ns - before));
	is_i64(rx.hw_ns, TS_NONE, "loopback rx: no HW stamp");

	/* The TX stamps of those sends are on the error queue. */
	for (int i = 0; i < 40; i++) {
		char cbuf[512];
		struct msghdr m = { .msg_control = cbuf,
				    .msg_controllen = sizeof(cbuf) };
		struct pollfd p = { fd, 0, 0 };

		if (poll(&p, 1, 1000) != 1 || !(p.revents & POLLERR))
			break;
		if (recvmsg(fd, &m, MSG_ERRQUEUE) < 0)
			break;
		rt = ts_parse_tx(&m, &tx);
		if (rt == 0 && tx.type == SCM_TSTAMP_SCHED && tx.key == 0)
			sched = tx.ts.kn_ns;
		if (rt == 0 && tx.type == SCM_TSTAMP_SND)
			break;
	}
	is_int(rt, 0, "loopback tx: ts_parse_tx on a real error-queue message -> 0");
	ok(rt == 0 && tx.type == SCM_TSTAMP_SND && tx.key == 0,
	   "loopback tx: first report is SND with OPT_ID key 0 (key %u)",
	   rt == 0 ? tx.key : 0);
	ok(rt == 0 && tx.ts.kn_ns >= before - NS_PER_MS &&
	   tx.ts.kn_ns <= after + NS_PER_MS, "loopback tx: KN stamp in range");
	ok(sched != TS_NONE, "loopback tx: a SCHED report for key 0 came before its SND");
	ok(sched != TS_NONE && rt == 0 && sched <= tx.ts.kn_ns && tx.ts.kn_ns - sched < NS_PER_SEC,
	   "loopback tx: SCHED <= SND (the queue: %lld ns)",
	   (long long)(rt == 0 && sched != TS_NONE ? tx.ts.kn_ns - sched : -1));
	close(fd);
}

/* The kernel's order for a socket that asks for stamps and the TTL: the
 * fast path (ts_parse_rx_ttl) is the real datagram's case. */
static void test_loopback_ttl(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int fd = socket(AF_INET, SOCK_DGRAM, 0), one = 1;
	struct ts_stamps st = { TS_NONE, TS_NONE };
	bool fast = false;
	int16_t tos = -2;
	uint8_t t = 0;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &alen) ||
	    connect(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    setsockopt(fd, IPPROTO_IP, IP_RECVTTL, &one, sizeof(one)) ||
	    setsockopt(fd, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one)) ||
	    ts_sock_enable(fd, false, true)) {
		if (fd >= 0)
			close(fd);
		skip(1, "no loopback socket with stamps and IP_RECVTTL here");
		return;
	}
	/* RX stamping is switched on by a deferred worker: allow a second. */
	for (int i = 0; i < 20 && !fast; i++) {
		struct self_msg sm;

		if (ping_self(fd, &sm))
			break;
		fast = ts_parse_rx_ttl(&sm.m, &st, &t, &tos);
		if (!fast)
			usleep(50000);
	}
	ok(fast && st.kn_ns != TS_NONE && t == 64 && tos == 0,
	   "loopback: stamps, TTL then TOS, the fast path's case (TTL %u, TOS %d)", t, tos);
	close(fd);
}

/* The UDP reflector's datagram: stamps, the destination, maybe the TOS. */
static void test_rx_dst(void)
{
	struct in6_pktinfo p6 = { .ipi6_ifindex = 2 };
	struct in_pktinfo p4 = { .ipi_ifindex = 2 };
	struct ts_stamps st = { TS_NONE, TS_NONE };
	uint8_t d[16] = { 0 }, tos = 0;
	int tclass = 0xb8, ttl = 64;
	uint8_t tos4 = 0x28;
	struct builder b;
	int16_t tv = 7;

	inet_pton(AF_INET6, "fd00::50", &p6.ipi6_addr);
	p4.ipi_addr.s_addr = htonl(0x0a630102);
	b_init(&b);
	add_ts(&b, KN, HW);
	b_add(&b, IPPROTO_IPV6, IPV6_PKTINFO, &p6, sizeof(p6));
	b_add(&b, IPPROTO_IPV6, IPV6_TCLASS, &tclass, sizeof(tclass));
	ok(ts_parse_rx_dst(&b.msg, &st, d, NULL, &tv) && st.kn_ns == KN && st.hw_ns == HW &&
	   !memcmp(d, &p6.ipi6_addr, 16) && tv == 0xb8,
	   "rx_dst: stamps, IPV6_PKTINFO, IPV6_TCLASS -> all three");
	ok(ts_parse_dst(&b.msg, d) == 0 && ts_parse_tos(&b.msg, &tos) == 0 && tos == 0xb8,
	   "the walk's parsers read the same");
	b_init(&b);
	add_ts(&b, KN, 0);
	b_add(&b, IPPROTO_IP, IP_PKTINFO, &p4, sizeof(p4));
	ok(ts_parse_rx_dst(&b.msg, &st, d, NULL, &tv) && tv == -1 && d[10] == 0xff &&
	   d[11] == 0xff && d[12] == 10 && d[13] == 99 && d[14] == 1 && d[15] == 2,
	   "rx_dst: stamps, IP_PKTINFO -> the address IPv4-mapped, no TOS (-1)");
	b_add(&b, IPPROTO_IP, IP_TOS, &tos4, sizeof(tos4));
	ok(ts_parse_rx_dst(&b.msg, &st, d, NULL, &tv) && tv == 0x28, "rx_dst: an IP_TOS of one octet");
	b_add(&b, IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl));
	ok(!ts_parse_rx_dst(&b.msg, &st, d, NULL, &tv),
	   "rx_dst: a TTL after, none asked: the walk's");
	b_init(&b);
	add_ts(&b, KN, 0);
	b_add(&b, IPPROTO_IP, IP_PKTINFO, &p4, sizeof(p4));
	b_add(&b, IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl));
	b_add(&b, IPPROTO_IP, IP_TOS, &tos4, sizeof(tos4));
	tos = 0;
	ok(ts_parse_rx_dst(&b.msg, &st, d, &tos, &tv) && tos == 64 && tv == 0x28,
	   "rx_dst: stamps, PKTINFO, TTL, TOS (a STAMP reflector's) -> all four");
	b_init(&b);
	add_ts(&b, KN, 0);
	b_add_len(&b, IPPROTO_IPV6, IPV6_PKTINFO, &p6, 8, 8);
	ok(!ts_parse_rx_dst(&b.msg, &st, d, NULL, &tv), "rx_dst: a PKTINFO too short: the walk's");
	b_init(&b);
	add_ts(&b, KN, 0);
	b_add(&b, IPPROTO_IP, IP_TOS, &tos4, sizeof(tos4));
	tv = 7;
	ok(ts_parse_rx_dst(&b.msg, &st, NULL, NULL, &tv) && tv == 0x28,
	   "rx_dst: no PKTINFO asked (one address): stamps and the TOS");
	ok(!ts_parse_rx_dst(&b.msg, &st, d, NULL, &tv), "... not the layout when PKTINFO is asked");
	b_init(&b);
	b_add(&b, IPPROTO_IPV6, IPV6_PKTINFO, &p6, sizeof(p6));
	add_ts(&b, KN, 0);
	ok(!ts_parse_rx_dst(&b.msg, &st, d, NULL, &tv), "rx_dst: the PKTINFO first: the walk's");
	b_init(&b);
	add_ts(&b, KN, 0);
	b_add(&b, IPPROTO_IPV6, IPV6_PKTINFO, &p6, sizeof(p6));
	((struct cmsghdr *)(b.ctl.buf + CMSG_SPACE(sizeof(struct scm_timestamping))))->cmsg_len =
		(size_t)-2;
	ok(!ts_parse_rx_dst(&b.msg, &st, d, NULL, &tv),
	   "rx_dst: a cmsg_len past the buffer (the fuzzer's case): refused, nothing read");
}

/* The kernel's order for the reflector's socket (dual stack: stamps,
 * IPV6_PKTINFO, then the TOS): the fast path is the real datagram's case,
 * from ::1 and from 127.0.0.1 alike. */
static void loopback_dst(bool v4)
{
	int fd = socket(AF_INET6, SOCK_DGRAM, 0), one = 1, zero = 0, tos = 0xb8;
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct in6_addr want = in6addr_loopback;
	socklen_t alen = sizeof(a);
	struct ts_stamps st = { TS_NONE, TS_NONE };
	uint8_t d[16];
	int16_t tv = -1;
	bool fast = false;

	if (v4)
		inet_pton(AF_INET6, "::ffff:127.0.0.1", &want);
	a.sin6_addr = want;
	if (fd < 0 || setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &alen) ||
	    connect(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &one, sizeof(one)) ||
	    setsockopt(fd, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one)) ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_RECVTCLASS, &one, sizeof(one)) ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof(tos)) ||
	    setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos)) ||
	    ts_sock_enable(fd, false, true)) {
		if (fd >= 0)
			close(fd);
		skip(1, "no IPv6 loopback socket with stamps, PKTINFO and TCLASS here");
		return;
	}
	for (int i = 0; i < 20 && !fast; i++) {
		struct self_msg sm;

		if (ping_self(fd, &sm))
			break;
		fast = ts_parse_rx_dst(&sm.m, &st, d, NULL, &tv) && st.kn_ns != TS_NONE;
		if (!fast)
			usleep(50000);
	}
	ok(fast && !memcmp(d, &want, 16) && tv == 0xb8,
	   "loopback %s: stamps, IPV6_PKTINFO, the TOS, the fast path's case (TOS 0x%x)",
	   v4 ? "127.0.0.1 (mapped)" : "::1", (unsigned int)tv);
	close(fd);
}

static void test_loopback_dst(void)
{
	loopback_dst(false);
	loopback_dst(true);
}

static void test_hw_socket(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	int flags = 0, want;
	socklen_t flen = sizeof(flags);

	if (fd < 0) {
		skip(2, "no UDP socket here");
		return;
	}
	is_int(ts_sock_enable(fd, true, true), 0, "ts_sock_enable(udp, hw, sched) -> 0");
	getsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, &flen);
	want = SOF_TIMESTAMPING_RX_SOFTWARE |
	       SOF_TIMESTAMPING_SOFTWARE | SOF_TIMESTAMPING_RX_HARDWARE |
	       SOF_TIMESTAMPING_TX_HARDWARE | SOF_TIMESTAMPING_RAW_HARDWARE |
	       SOF_TIMESTAMPING_OPT_ID | SOF_TIMESTAMPING_OPT_TSONLY;
	ok((flags & want) == want && !(flags & SOF_TIMESTAMPING_TX_SOFTWARE),
	   "hw: RX software and hardware, TX hardware only, RAW_HARDWARE, OPT_ID, OPT_TSONLY (0x%x)",
	   flags);
	close(fd);
}

/* --no-queue-stamps: the flags without TX_SCHED, and the layers named. */
static void test_layers(void)
{
	const char *n[8];
	size_t k;

	ok(ts_flags(false, true) & SOF_TIMESTAMPING_TX_SCHED, "flags: sched asked -> TX_SCHED");
	ok(!(ts_flags(false, false) & SOF_TIMESTAMPING_TX_SCHED) &&
	   (ts_flags(false, false) | SOF_TIMESTAMPING_TX_SCHED) == ts_flags(false, true),
	   "flags: without sched -> the same but TX_SCHED");
	is_int((int)ts_flags(false, true), 0x99a, "flags: software with SCHED -> 0x99a (what the bench's floor is given)");
	k = ts_layers(ts_flags(false, true), n, 8);
	ok(k == 3 && !strcmp(n[0], "rx_software") && !strcmp(n[1], "tx_software") &&
	   !strcmp(n[2], "tx_sched"), "layers: software with SCHED -> rx_software, tx_software, tx_sched");
	k = ts_layers(ts_flags(true, false) | SOF_TIMESTAMPING_TX_ACK, n, 8);
	ok(k == 4 && !strcmp(n[0], "rx_software") && !strcmp(n[1], "rx_hardware") &&
	   !strcmp(n[2], "tx_hardware") && !strcmp(n[3], "tx_ack"),
	   "layers: hardware without SCHED, with ACK -> rx_software, rx_hardware, tx_hardware, tx_ack");
	is_int((int)ts_layers(ts_flags(false, true), n, 2), 2, "layers: no more than max");
}

int main(void)
{
	test_rx();
	test_drops();
	test_ttl();
	test_rxmsg();
	test_rx_ttl();
	test_tx();
	test_icmp();
	test_bounds();
	test_bad_times();
	test_loopback();
	test_loopback_ttl();
	test_rx_dst();
	test_loopback_dst();
	test_hw_socket();
	test_layers();
	return done_testing();
}
