/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SO_TIMESTAMPING: enabling it on a socket (on the NIC: hwts.h), and
 * reading the stamps out of control messages (RX) and the error queue (TX).
 *
 * In struct scm_timestamping, ts[0] is the kernel's software stamp (KN) and
 * ts[2] the NIC's raw hardware stamp (HW, PHC time); ts[1] is unused.
 */
#ifndef RANT_TS_H
#define RANT_TS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

/* Stamps from one control-message block; TS_NONE (0) where absent. */
struct ts_stamps {
	int64_t kn_ns;		/* ts[0] */
	int64_t hw_ns;		/* ts[2] */
};

/* A TX stamp report read from the error queue. */
struct ts_tx {
	uint32_t key;		/* SOF_TIMESTAMPING_OPT_ID counter (ee_data) */
	uint32_t type;		/* SCM_TSTAMP_SND, _SCHED or _ACK (ee_info) */
	struct ts_stamps ts;
};

/*
 * Both parsers read only the msg_controllen bytes at msg_control (any
 * alignment), as the kernel hands them over, whatever the cmsg_len fields
 * say: a cmsg whose cmsg_len is shorter than its header or runs past
 * msg_controllen makes the message malformed (-EINVAL), as does
 * MSG_CTRUNC in msg_flags. Trailing bytes too few for a header end the
 * walk, as with CMSG_NXTHDR. out is written only on success.
 */

/*
 * RX: find SCM_TIMESTAMPING in msg. Returns 0 and fills out (either stamp
 * may still be TS_NONE), -ENOENT when msg has none, -EINVAL when a
 * timestamping cmsg is truncated (cmsg_len too small) or the message is
 * malformed before it.
 */
int ts_parse_rx(const struct msghdr *msg, struct ts_stamps *out);

/*
 * RX: the SO_RXQ_OVFL counter beside the stamps (a u32: datagrams the
 * socket's receive queue has dropped since it was created; the kernel
 * sends it only once it is non-zero). Returns 0 with *drops, -ENOENT when
 * msg has none, -EINVAL when that cmsg is shorter than a u32 or the
 * message is malformed before it.
 */
int ts_parse_drops(const struct msghdr *msg, uint32_t *drops);

/* The IPv4 TTL (IP_RECVTTL) or IPv6 Hop Limit (IPV6_RECVHOPLIMIT) of a
 * received datagram: 0, -ENOENT when msg has none, -EINVAL when bad. */
int ts_parse_ttl(const struct msghdr *msg, uint8_t *ttl);
/* Its IPv4 TOS (IP_RECVTOS: one octet) or IPv6 Traffic Class
 * (IPV6_RECVTCLASS: an int), DSCP and ECN: the same. */
int ts_parse_tos(const struct msghdr *msg, uint8_t *tos);

/*
 * RX, in one walk of the control data (the loop's receive): the stamps,
 * the SO_RXQ_OVFL counter, the TTL and the TOS, each with the result its
 * own parser above gives (ts_ret, drops_ret, ttl_ret, tos_ret: 0, -ENOENT
 * or -EINVAL); ts is TS_NONE where ts_ret is not 0. (The parsers above
 * walk on their own: the fuzz harness holds the one walk to them.)
 */
struct ts_rx {
	struct ts_stamps ts;
	uint32_t drops;
	uint8_t ttl, tos;
	int ts_ret, drops_ret, ttl_ret, tos_ret;
};

void ts_parse_rxmsg(const struct msghdr *msg, struct ts_rx *out);

/*
 * The common datagram: control data that is one SCM_TIMESTAMPING block
 * and nothing else (no drop count: the kernel gives one only when it is
 * not 0; no TTL). true with its stamps in out, as ts_parse_rxmsg() reads
 * them (its drops and TTL then -ENOENT); false for anything else, out
 * untouched: ts_parse_rxmsg() walks it. A receive's fast path.
 */
bool ts_parse_rx_only(const struct msghdr *msg, struct ts_stamps *out);

/*
 * The same for a socket that asked for the TTL (IP_RECVTTL,
 * IPV6_RECVHOPLIMIT) and maybe the TOS (IP_RECVTOS, IPV6_RECVTCLASS): the
 * SCM_TIMESTAMPING block, then the TTL, then perhaps the TOS, and nothing
 * else. true with them (as ts_parse_rxmsg() reads them; *tos -1 when no
 * TOS came); false, out, ttl and tos untouched, for anything else.
 */
bool ts_parse_rx_ttl(const struct msghdr *msg, struct ts_stamps *out, uint8_t *ttl,
		     int16_t *tos);

/*
 * The address a datagram was sent to (IPV6_RECVPKTINFO, IP_PKTINFO), as
 * 16 octets (IPv4 mapped), which the reflector's reply leaves from:
 * 0, -ENOENT when msg has none, -EINVAL when it is too short.
 */
int ts_parse_dst(const struct msghdr *msg, uint8_t dst[16]);

/*
 * The receive's fast path for a socket that asked for them (the UDP
 * reflector's): the SCM_TIMESTAMPING block, then, when dst is not NULL,
 * the PKTINFO, then, when ttl is not NULL, perhaps the TTL (a STAMP
 * reflector's: IP_TTL, IPV6_HOPLIMIT), then perhaps the TOS (IP_TOS,
 * IPV6_TCLASS), and nothing else (something after the stamps). true with
 * them (*ttl 0 when no TTL came, *tos -1 when no TOS); false, out, dst,
 * ttl and tos untouched, for anything else.
 */
bool ts_parse_rx_dst(const struct msghdr *msg, struct ts_stamps *out, uint8_t dst[16],
		     uint8_t *ttl, int16_t *tos);

/*
 * TX: parse one message read with MSG_ERRQUEUE. Returns 0 when it is a
 * timestamp report (SO_EE_ORIGIN_TIMESTAMPING with ee_errno ENOMSG and an
 * SCM_TIMESTAMPING cmsg), -ENOMSG for a foreign error-queue entry (ICMP
 * error, zerocopy notification, ...), -EINVAL for a truncated or malformed
 * one.
 */
int ts_parse_tx(const struct msghdr *msg, struct ts_tx *out);

/* An ICMP error off the error queue (IP_RECVERR, IPV6_RECVERR). */
struct ts_icmp {
	bool v6;		/* SO_EE_ORIGIN_ICMP6: ICMPv6's types */
	uint8_t type, code;	/* the error's (ee_type, ee_code) */
	struct ts_stamps rx;	/* its RX stamp, TS_NONE where none came */
};

/*
 * ICMP: parse one message read with MSG_ERRQUEUE. Returns 0 when it is
 * an ICMP error (SO_EE_ORIGIN_ICMP or _ICMP6: unreachable, time
 * exceeded, ...) with its stamps when an SCM_TIMESTAMPING cmsg came,
 * -ENOMSG for another entry (a TX stamp, a local error), -EINVAL for a
 * truncated or malformed one. What the error returned is the message's
 * data (the request's header after its IP header) and msg_name (where
 * it went).
 */
int ts_parse_icmp(const struct msghdr *msg, struct ts_icmp *out);

/* The wire stamp of a block: HW when hw is set, else KN. */
static inline int64_t ts_wire(const struct ts_stamps *s, bool hw)
{
	return hw ? s->hw_ns : s->kn_ns;
}

/*
 * The SO_TIMESTAMPING flags rant asks for, with OPT_ID and OPT_TSONLY: RX
 * software stamps always; with sched, the SCHED stamp of each send (a
 * kernel stamp when the packet enters the qdisc: SCM_TSTAMP_SCHED); TX
 * software stamps without hw; with hw, RX and TX hardware stamps (and no
 * TX software stamp: drivers skip it while a hardware TX stamp is
 * pending).
 */
unsigned int ts_flags(bool hw, bool sched);

/* Turn on SO_TIMESTAMPING on fd with ts_flags(hw, sched): 0 or -errno. */
int ts_sock_enable(int fd, bool hw, bool sched);

/*
 * The control message that sends one datagram without the socket's TX
 * stamps: SO_TIMESTAMPING with no TX record flag replaces the socket's
 * for that send (the kernel's __sock_cmsg_send), so no report of it
 * reaches the error queue and, with OPT_ID, it takes no key (UDP's key
 * counts stamped sends only). Into buf (TS_NO_TX_CMSG_LEN bytes, aligned
 * for a cmsghdr); its length.
 */
#define TS_NO_TX_CMSG_LEN CMSG_SPACE(sizeof(uint32_t))
size_t ts_no_tx_cmsg(void *buf);

/*
 * The stamp layers the SOF_TIMESTAMPING_* flags ask the kernel for, by
 * name ("rx_software", "tx_software", "rx_hardware", "tx_hardware",
 * "tx_sched", "tx_ack"), in that order: up to max into names; returns
 * how many.
 */
size_t ts_layers(unsigned int flags, const char **names, size_t max);

#endif
