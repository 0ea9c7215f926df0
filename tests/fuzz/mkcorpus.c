// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Writes the seed corpora of the fuzz harnesses (make fuzz-corpus):
 *   corpus/wire  pings and pongs as rant sends them (header only, with the
 *                pong body, padded, warm-up, with the SW and follow-up flags),
 *                and framed by the other formats of the table (msgfmt.h)
 *   corpus/cmsg  control buffers captured from real recvmsg() calls over
 *                loopback with rant's SO_TIMESTAMPING flags (RX, and the TX
 *                report from the error queue, IPv4 and IPv6; RX with the
 *                TTL a STAMP reflector asks for), and hand-built
 *                ones with a hardware stamp and several cmsgs
 *   corpus/opts  typical command lines, arguments separated by NUL bytes
 *   corpus/stamp STAMP requests after fuzz_stamp.c's mode octet: open and
 *                authenticated (its key), TLVs, TWAMP-Light, malformed
 * Run from the top of the tree. Exit 1 when a capture fails.
 */
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "auth.h"
#include "missing.h"
#include "stamp.h"
#include "timeutil.h"
#include "ts.h"
#include "wire.h"

#define DIR "tests/fuzz/corpus/"

static int put_file(const char *name, const void *buf, size_t len)
{
	FILE *f = fopen(name, "wb");

	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		fprintf(stderr, "mkcorpus: cannot write %s: %s\n", name, strerror(errno));
		return -1;
	}
	return 0;
}

/* One datagram of len bytes: header, the body when it fits, padding. */
static int put_dgram(const char *name, uint8_t type, uint16_t flags, size_t len)
{
	uint8_t buf[256];
	struct msg_hdr h = { .type = type, .flags = flags, .session = 0x1234abcd,
			      .len = (uint32_t)len, .seq = 4242,
			      .t1_sw = 1700000000123456789LL };
	struct msg_body b = { .t2_wire = 1700000000123460000LL,
			       .t2_sw = 1700000000123461000LL,
			       .t3_sw = 1700000000123462000LL, .fu_seq = 4241,
			       .fu_t3_wire = 1700000000113462500LL };

	memset(buf, 0xa5, sizeof(buf));
	wire_put_hdr(buf, &h);
	if (type == MSG_PONG && len >= WIRE_PONG_LEN)
		wire_put_body(buf, &b);
	return put_file(name, buf, len);
}

/* A pong whose stamps are the ends of int64 (overflowed metric_value,
 * record.c and txlog.c before they saturated). */
static int put_extreme_pong(void)
{
	uint8_t buf[WIRE_PONG_LEN];
	struct msg_hdr h = { .type = MSG_PONG, .flags = MSG_F_T2 | MSG_F_SW | MSG_F_FU,
			      .session = 1, .len = WIRE_PONG_LEN, .seq = UINT64_MAX,
			      .t1_sw = INT64_MAX };
	struct msg_body b = { .t2_wire = INT64_MIN, .t2_sw = INT64_MAX,
			       .t3_sw = INT64_MIN, .fu_seq = 0, .fu_t3_wire = INT64_MAX };

	wire_put_hdr(buf, &h);
	wire_put_body(buf, &b);
	return put_file(DIR "wire/pong-extreme-stamps", buf, sizeof(buf));
}

/* A ping of 100 bytes (-m) in format f, and the reflector's pong to it. */
static int put_format(const struct msgfmt *f)
{
	const struct msg_body b = { .t2_wire = 1700000000123460000LL, .fu_seq = 4241 };
	struct msgfmt_side side = { .iface = "lo" };
	struct msgfmt_ctx c;
	struct msg_hdr h = { .type = MSG_PING, .flags = MSG_F_WANT_SW, .session = 0x1234abcd };
	char name[128], err[128];
	uint8_t buf[256];

	if (msgfmt_init(&c, f, &side, err, sizeof(err)))
		return -1;
	h.len = msgfmt_wire_len(&c, 100);
	memset(buf, 0xa5, sizeof(buf));
	msgfmt_put_ping(&c, buf, &h);
	msgfmt_set_seq(&c, buf, 4242, 1700000000123456789LL);
	snprintf(name, sizeof(name), DIR "wire/%s-ping-100", f->name);
	if (put_file(name, buf, h.len) || msgfmt_parse(&c, buf, h.len, MSG_PING, &h))
		return -1;
	msgfmt_put_pong(&c, buf, &h, MSG_F_T2 | MSG_F_FU, &b);
	snprintf(name, sizeof(name), DIR "wire/%s-pong-100", f->name);
	return put_file(name, buf, h.len);
}

static int wire_corpus(void)
{
	const struct msgfmt *f;

	for (size_t i = 1; (f = msgfmt_nth(i)); i++)
		if (put_format(f))
			return -1;

	int int_min = INT_MIN;	/* msgfmt_strerror() of the first bytes */

	return put_extreme_pong() ||
	       put_file(DIR "wire/int-min", &int_min, sizeof(int_min)) ||
	       put_dgram(DIR "wire/ping-32", MSG_PING, 0, WIRE_HDR_LEN) ||
	       put_dgram(DIR "wire/ping-72", MSG_PING, MSG_F_WANT_SW, WIRE_PONG_LEN) ||
	       put_dgram(DIR "wire/ping-warmup-100", MSG_PING, MSG_F_WARMUP, 100) ||
	       put_dgram(DIR "wire/pong-32", MSG_PONG, 0, WIRE_HDR_LEN) ||
	       put_dgram(DIR "wire/pong-72", MSG_PONG,
			 MSG_F_T2 | MSG_F_SW | MSG_F_FU | MSG_F_WANT_SW, WIRE_PONG_LEN) ||
	       put_dgram(DIR "wire/pong-hw-200", MSG_PONG,
			 MSG_F_T2 | MSG_F_T2_HW | MSG_F_FU | MSG_F_FU_HW, 200);
}

/* A UDP socket on loopback sending to itself, with rant's flags. */
static int loop_socket(int family)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t len = family == AF_INET ? sizeof(struct sockaddr_in) :
					    sizeof(struct sockaddr_in6);
	int fd = socket(family, SOCK_DGRAM, 0);

	if (fd < 0)
		return -1;
	ss.ss_family = (sa_family_t)family;
	if (family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	else
		((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_loopback;
	if (bind(fd, (struct sockaddr *)&ss, len) ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) ||
	    connect(fd, (struct sockaddr *)&ss, len) || ts_sock_enable(fd, false, true)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* recvmsg() until the control buffer parses as wanted; writes it to name. */
static int capture(int fd, bool errq, const char *name)
{
	for (int i = 0; i < 40; i++) {
		union { char buf[512]; struct cmsghdr align; } ctl;
		char data[64];
		struct iovec iov = { data, sizeof(data) };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
				    .msg_control = ctl.buf,
				    .msg_controllen = sizeof(ctl.buf) };
		struct pollfd p = { fd, errq ? 0 : POLLIN, 0 };
		struct ts_stamps s;
		struct ts_tx t;

		if (!errq && send(fd, "ping", 4, 0) != 4)
			break;
		if (poll(&p, 1, 1000) != 1 || recvmsg(fd, &m, errq ? MSG_ERRQUEUE : 0) < 0)
			break;
		if (errq ? !ts_parse_tx(&m, &t) : !ts_parse_rx(&m, &s) && s.kn_ns)
			return put_file(name, ctl.buf, m.msg_controllen);
		usleep(50000);	/* RX stamping is enabled by a deferred worker */
	}
	fprintf(stderr, "mkcorpus: no %s stamp captured for %s\n", errq ? "TX" : "RX", name);
	return -1;
}

static int capture_family(int family, const char *rx, const char *tx)
{
	int fd = loop_socket(family), ret;

	if (fd < 0) {
		fprintf(stderr, "mkcorpus: no loopback socket (family %d): %s\n",
			family, strerror(errno));
		return family == AF_INET6 ? 0 : -1;	/* IPv6 may be off */
	}
	ret = capture(fd, false, rx) || capture(fd, true, tx);
	close(fd);
	return ret;
}

/* Hand-built: an RX block with ts[2] (a NIC's stamp) after other cmsgs. */
static int cmsg_handmade(void)
{
	union { char buf[256]; struct cmsghdr align; } ctl;
	struct scm_timestamping tss;
	struct cmsghdr *c = (struct cmsghdr *)ctl.buf;
	int tos = 0x10;
	size_t used;

	memset(&ctl, 0, sizeof(ctl));
	c->cmsg_level = SOL_IP;
	c->cmsg_type = IP_TOS;
	c->cmsg_len = CMSG_LEN(1);
	memcpy(CMSG_DATA(c), &tos, 1);
	used = CMSG_SPACE(1);
	c = (struct cmsghdr *)(ctl.buf + used);
	memset(&tss, 0, sizeof(tss));
	tss.ts[0] = ns_to_timespec(1700000000123456789LL);
	tss.ts[2] = ns_to_timespec(1700000000123450001LL);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_TIMESTAMPING;
	c->cmsg_len = CMSG_LEN(sizeof(tss));
	memcpy(CMSG_DATA(c), &tss, sizeof(tss));
	used += CMSG_SPACE(sizeof(tss));
	return put_file(DIR "cmsg/rx-hw-after-tos", ctl.buf, used);
}

/*
 * The two reads past the buffer of issue 14 (ts.c:37 and ts.c:73 before
 * the fix): a cmsg_len that promises more than msg_controllen holds, for
 * SCM_TIMESTAMPING (RX) and for IP_RECVERR after it (TX).
 */
static int cmsg_overreads(void)
{
	union { char buf[256]; struct cmsghdr align; } ctl;
	struct sock_extended_err ee;
	struct scm_timestamping tss;
	struct cmsghdr *c = (struct cmsghdr *)ctl.buf;
	size_t used;

	memset(&ctl, 0, sizeof(ctl));
	memset(&tss, 0, sizeof(tss));
	tss.ts[0] = ns_to_timespec(1700000000123456789LL);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_TIMESTAMPING;
	c->cmsg_len = CMSG_LEN(sizeof(tss));
	memcpy(CMSG_DATA(c), &tss, sizeof(tss));
	if (put_file(DIR "cmsg/rx-cmsg-len-past-end", ctl.buf, CMSG_LEN(sizeof(tss)) - 8))
		return -1;
	used = CMSG_SPACE(sizeof(tss));
	c = (struct cmsghdr *)(ctl.buf + used);
	memset(&ee, 0, sizeof(ee));
	ee.ee_errno = ENOMSG;
	ee.ee_origin = SO_EE_ORIGIN_TIMESTAMPING;
	c->cmsg_level = SOL_IP;
	c->cmsg_type = IP_RECVERR;
	c->cmsg_len = CMSG_LEN(sizeof(ee));
	memcpy(CMSG_DATA(c), &ee, sizeof(ee));
	return put_file(DIR "cmsg/tx-cmsg-len-past-end", ctl.buf, used + CMSG_LEN(0) + 4);
}

static int opts_corpus(void)
{
	static const char *const lines[] = {
		"-i eth3",
		"-i eth3 -a 10.0.0.2",
		"-i eth3 -a 10.0.0.2 -d 60 -s -H -l run.log -j run.json",
		"-i eth3 -a fe80::1 -d 3600 -S -l ring.log -j hour.json",
		"-i eth3 -a 10.0.0.2 --interval 100 -d 60 -j -",
		"-i eth3 -a 10.0.0.2 -d 3600 -s -t 50 -T --trace-instance rant2",
		"-i eth3 -a 10.0.0.2 -m 1472 -c 100000 -d 0 -w 10 --timeout 250",
		"-i eth3 -a 10.0.0.2 -p 50 -B 8 -P --block -R -G -v",
		"-i eth3 -b 0.5 -o 100 -t 12.5 -C -L 20 -l x.log -c 5 --port 319",
		"--help",
		/* the hostile lines of issue 14 and the fuzzer's first finding */
		"-i eth3 -a 10.0.0.2 -d 9223372037",
		"-i eth3 -a 10.0.0.2 --timeout 9223372036854776",
		"-i eth3 -a 10.0.0.2 -a 10.0.0.3 -c 1000000000000 -l x",
		"-p0 -iF -B2",
	};
	char name[64], buf[256];

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		size_t n = strlen(lines[i]);

		memcpy(buf, lines[i], n);
		for (size_t j = 0; j < n; j++)
			if (buf[j] == ' ')
				buf[j] = '\0';
		snprintf(name, sizeof(name), DIR "opts/line-%02zu", i);
		if (put_file(name, buf, n))
			return -1;
	}
	return 0;
}

/* One fuzz_stamp seed: the mode octet, then a request cut to len octets. */
static int put_stamp(const char *name, uint8_t mode, const struct auth *key, unsigned int want,
		     size_t len, void (*spoil)(uint8_t *req))
{
	struct stamp_request q = { .key = mode & 0x01 ? key : NULL, .seq = 4242,
				   .t1_ns = 1700000000123456789LL,
				   .ee = stamp_ee_make(true, STAMP_NTP, 1000), .ssid = 0x1234,
				   .want = want,
				   .len = len < STAMP_BASE_LEN ? STAMP_BASE_LEN : len };
	uint8_t buf[1 + 1500];
	char path[64];

	buf[0] = mode;
	if (stamp_build(&q, buf + 1, sizeof(buf) - 1) < 0)
		return -1;
	if (spoil)
		spoil(buf + 1);
	snprintf(path, sizeof(path), DIR "stamp/%s", name);
	return put_file(path, buf, 1 + len);
}

static void tlv_past_end(uint8_t *req)
{
	req[46] = 0x7f;		/* the first TLV's Length: past the end */
}

static void tlv_hmac_bad(uint8_t *req)
{
	req[150] ^= 1;		/* inside the HMAC TLV's value */
}

static void twamp_light(uint8_t *req)
{
	memset(req + 14, 0, 27);	/* 14 octets and 27 of padding */
}

static int stamp_corpus(void)
{
	const unsigned int all = STAMP_WANT_TSINFO | STAMP_WANT_FOLLOWUP | STAMP_WANT_PADDING;
	uint8_t k[32];
	struct auth *key;
	int err;

	for (int i = 0; i < 32; i++)	/* fuzz_stamp.c's key */
		k[i] = (uint8_t)i;
	key = auth_create(k, sizeof(k));
	if (!key)
		return -1;
	err = put_stamp("open-44", 0x00, key, 0, 44, NULL) ||
	      put_stamp("open-tlvs-128", 0x00, key, all, 128, NULL) ||
	      put_stamp("open-stateful-fu-128", 0x12, key, all, 128, NULL) ||
	      put_stamp("open-ptp-44", 0x08, key, 0, 44, NULL) ||
	      put_stamp("auth-112", 0x01, key, 0, 112, NULL) ||
	      put_stamp("auth-tlvs-200", 0x13, key, all, 200, NULL) ||
	      put_stamp("auth-tlv-hmac-bad-200", 0x01, key, all, 200, tlv_hmac_bad) ||
	      put_stamp("twamp-light-41", 0x00, key, 0, 41, twamp_light) ||
	      put_stamp("tlv-past-end-128", 0x00, key, all, 128, tlv_past_end) ||
	      put_stamp("strict-tlv-past-end-128", 0x04, key, all, 128, tlv_past_end);
	auth_destroy(key);
	return err ? -1 : 0;
}

/* The same with the TTL asked for, as a STAMP reflector's socket: the
 * stamps, then IP_TTL (IPV6_HOPLIMIT). */
static int capture_ttl(int family, const char *rx)
{
	int level = family == AF_INET ? IPPROTO_IP : IPPROTO_IPV6;
	int opt = family == AF_INET ? IP_RECVTTL : IPV6_RECVHOPLIMIT;
	int fd = loop_socket(family), one = 1, ret;

	if (fd < 0)
		return family == AF_INET6 ? 0 : -1;	/* IPv6 may be off */
	if (setsockopt(fd, level, opt, &one, sizeof(one))) {
		fprintf(stderr, "mkcorpus: IP_RECVTTL/IPV6_RECVHOPLIMIT: %s\n", strerror(errno));
		close(fd);
		return -1;
	}
	ret = capture(fd, false, rx);
	close(fd);
	return ret;
}

int main(void)
{
	if (wire_corpus() || opts_corpus() || stamp_corpus() || cmsg_handmade() ||
	    cmsg_overreads() ||
	    capture_family(AF_INET, DIR "cmsg/rx-v4-loopback", DIR "cmsg/tx-v4-loopback") ||
	    capture_family(AF_INET6, DIR "cmsg/rx-v6-loopback", DIR "cmsg/tx-v6-loopback") ||
	    capture_ttl(AF_INET, DIR "cmsg/rx-ttl-v4-loopback") ||
	    capture_ttl(AF_INET6, DIR "cmsg/rx-ttl-v6-loopback"))
		return 1;
	return 0;
}
