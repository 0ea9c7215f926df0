// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An address as the user gives it (see skpeer.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netlink/netlink.h>
#include <netlink/route/route.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skpeer.h"

/*
 * Parse a numeric IPv4/IPv6 address: "fd00::2", "[fd00::2]", or a
 * link-local "fe80::1%eth3" whose scope must be the interface (without
 * one, the interface is the scope). 0, or -EINVAL with the reason in err.
 */
static int resolve(const char *text, uint16_t port, unsigned int ifindex,
		   const char *iface, struct sockaddr_storage *ss,
		   socklen_t *len, char *err, size_t errlen)
{
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	char buf[INET6_ADDRSTRLEN + IF_NAMESIZE + 4], *scope;
	size_t n = strlen(text);

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, text, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		*len = sizeof(*in);
		return 0;
	}
	if (n >= sizeof(buf) || (text[0] == '[') != (n > 1 && text[n - 1] == ']'))
		goto not_an_address;
	snprintf(buf, sizeof(buf), "%.*s", (int)(text[0] == '[' ? n - 2 : n),
		 text + (text[0] == '['));
	scope = strchr(buf, '%');
	if (scope)
		*scope++ = '\0';
	if (inet_pton(AF_INET6, buf, &in6->sin6_addr) != 1)
		goto not_an_address;
	in6->sin6_family = AF_INET6;
	in6->sin6_port = htons(port);
	*len = sizeof(*in6);
	if (scope && if_nametoindex(scope) != ifindex &&
	    strtoul(scope, NULL, 10) != ifindex) {
		snprintf(err, errlen, "-a %s: the scope %%%s is not -i %s: give -a %s%%%s, or leave the scope out (-i gives it)",
			 text, scope, iface, buf, iface);
		return -EINVAL;
	}
	if (IN6_IS_ADDR_LINKLOCAL(&in6->sin6_addr))
		in6->sin6_scope_id = ifindex;
	return 0;
not_an_address:
	snprintf(err, errlen, "-a %s: not an IPv4 or IPv6 address (IPv6 may be bracketed, [fd00::2], and link-local scoped, fe80::1%%%s)",
		 text, iface);
	return -EINVAL;
}

/* Only a unicast reflector answers one emitter: refuse the others. */
static int check_unicast(const struct sockaddr_storage *ss, const char *text,
			 char *err, size_t len)
{
	const char *what = NULL;

	if (ss->ss_family == AF_INET) {
		uint32_t a = ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr);

		if (IN_MULTICAST(a))
			what = "a multicast address";
		else if (a == INADDR_BROADCAST)
			what = "the broadcast address";
		else if (a == INADDR_ANY)
			what = "the unspecified address";
	} else {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)ss)->sin6_addr;

		if (IN6_IS_ADDR_MULTICAST(a))
			what = "a multicast address";
		else if (IN6_IS_ADDR_UNSPECIFIED(a))
			what = "the unspecified address";
	}
	if (!what)
		return 0;
	snprintf(err, len, "-a %s is %s: give the reflector's unicast address", text, what);
	return -EINVAL;
}

struct route_answer {
	int oif;
	int type;
	bool found;
};

static int route_cb(struct nl_msg *msg, void *arg)
{
	struct route_answer *ans = arg;
	struct rtnl_route *route;
	struct rtnl_nexthop *nh;

	if (rtnl_route_parse(nlmsg_hdr(msg), &route) < 0)
		return NL_SKIP;
	ans->type = rtnl_route_get_type(route);
	nh = rtnl_route_nexthop_n(route, 0);
	if (nh) {
		ans->oif = rtnl_route_nh_get_ifindex(nh);
		ans->found = true;
	}
	rtnl_route_put(route);
	return NL_OK;
}

/*
 * Check that addr is routed out of ifindex (RTM_GETROUTE through libnl).
 * 0, or -errno with the message.
 */
static int sk_route_check(const struct sockaddr_storage *addr, unsigned int ifindex,
			  const char *iface, const char *text, char *err, size_t len)
{
	struct rtmsg rtm = { .rtm_family = (unsigned char)addr->ss_family };
	struct route_answer ans = { 0 };
	struct nl_sock *nl = NULL;
	struct nl_msg *msg = NULL;
	char oifname[IF_NAMESIZE] = "?";
	const void *dst;
	int alen, ret;

	if (addr->ss_family == AF_INET) {
		dst = &((const struct sockaddr_in *)addr)->sin_addr;
		alen = 4;
	} else {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)addr;

		if (IN6_IS_ADDR_LINKLOCAL(&in6->sin6_addr))
			return 0;	/* scoped to the interface by -i */
		dst = &in6->sin6_addr;
		alen = 16;
	}
	rtm.rtm_dst_len = (unsigned char)(alen * 8);

	ret = -ENOMEM;
	nl = nl_socket_alloc();
	msg = nlmsg_alloc_simple(RTM_GETROUTE, 0);
	if (!nl || !msg)
		goto out;
	ret = -EIO;
	if (nl_connect(nl, NETLINK_ROUTE) < 0 ||
	    nlmsg_append(msg, &rtm, sizeof(rtm), NLMSG_ALIGNTO) < 0 ||
	    nla_put(msg, RTA_DST, alen, dst) < 0 ||
	    nl_send_auto(nl, msg) < 0) {
		snprintf(err, len, "route lookup for %s over netlink failed", text);
		goto out;
	}
	nl_socket_modify_cb(nl, NL_CB_VALID, NL_CB_CUSTOM, route_cb, &ans);
	if (nl_recvmsgs_default(nl) < 0 || !ans.found) {
		snprintf(err, len, "%s: no route to it (ip route get %s): give %s an address in its subnet, or add a route",
			 text, text, iface);
		ret = -ENETUNREACH;
		goto out;
	}
	ret = 0;
	if (ans.type == RTN_BROADCAST || ans.type == RTN_MULTICAST) {
		snprintf(err, len, "-a %s is a %s address on %s: give the reflector's unicast address",
			 text, ans.type == RTN_BROADCAST ? "broadcast" : "multicast", iface);
		ret = -EINVAL;
	} else if ((unsigned int)ans.oif != ifindex) {
		if_indextoname((unsigned int)ans.oif, oifname);
		if (ans.type == RTN_LOCAL)
			snprintf(err, len, "%s is an address of this host: packets to it go over %s, not %s (use -i %s, or run the reflector in another namespace)",
				 text, oifname, iface, oifname);
		else
			snprintf(err, len, "%s is routed via %s, not %s (ip route get %s): add a route through %s or use -i %s",
				 text, oifname, iface, text, iface, oifname);
		ret = -EHOSTUNREACH;
	}
out:
	nlmsg_free(msg);
	nl_socket_free(nl);
	return ret;
}

int sk_peer_resolve(const char *text, uint16_t port, unsigned int ifindex, const char *iface,
		    struct sockaddr_storage *ss, socklen_t *sl, char *err, size_t len)
{
	if (resolve(text, port, ifindex, iface, ss, sl, err, len) ||
	    check_unicast(ss, text, err, len))
		return -EINVAL;
	return sk_route_check(ss, ifindex, iface, text, err, len);
}
