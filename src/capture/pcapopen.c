// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A live capture opened (pcapopen.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "pcapopen.h"

/* The kernel's bytes beside each packet in its buffer (tpacket3_hdr,
 * sockaddr_ll, alignment). */
#define FRAME_OVERHEAD 80

/*
 * The stamps to ask for: the NIC's (adapter) where libpcap offers them
 * and the run's own wire stamps are the NIC's, so the two compare; else
 * the host's (the kernel's software stamps).
 */
static int choose_tstamp(pcap_t *pc, bool hw)
{
	static const int prefer[] = { PCAP_TSTAMP_ADAPTER_UNSYNCED, PCAP_TSTAMP_ADAPTER };
	int *types = NULL, n = hw ? pcap_list_tstamp_types(pc, &types) : 0;
	int chosen = PCAP_TSTAMP_HOST;

	for (size_t k = 0; k < 2 && chosen == PCAP_TSTAMP_HOST; k++)
		for (int i = 0; i < n; i++)
			if (types[i] == prefer[k])
				chosen = prefer[k];
	if (types)
		pcap_free_tstamp_types(types);
	return chosen;
}

/* pcap_activate's result as one line; 0 for success and warnings. */
static int activate(pcap_t *pc, int *tstamp_type, const struct pcapopen_params *p, char *err,
		    size_t len)
{
	const char *i = p->iface, *w = p->what;
	int ret = pcap_activate(pc);

	switch (ret) {
	case 0:
		return 0;
	case PCAP_WARNING_TSTAMP_TYPE_NOTSUP:
		fprintf(stderr, "rant: %s: warning: %s cannot give %s stamps to the capture: it has host stamps, not comparable with rant's hardware ones\n",
			w, i, pcap_tstamp_type_val_to_name(*tstamp_type));
		*tstamp_type = PCAP_TSTAMP_HOST;
		return 0;
	case PCAP_ERROR_PERM_DENIED:
		snprintf(err, len, "%s: no permission to capture on %s: run as root (or give rant CAP_NET_RAW)", w, i);
		return -EPERM;
	case PCAP_ERROR_NO_SUCH_DEVICE:
		snprintf(err, len, "%s: cannot capture on %s: no such interface (ip link lists them)", w, i);
		return -ENODEV;
	case PCAP_ERROR_IFACE_NOT_UP:
		snprintf(err, len, "%s: %s is down: ip link set %s up", w, i, i);
		return -ENETDOWN;
	case PCAP_ERROR_TSTAMP_PRECISION_NOTSUP:
		snprintf(err, len, "%s: %s cannot give nanosecond stamps to a capture", w, i);
		return -EOPNOTSUPP;
	}
	if (ret > 0) {
		fprintf(stderr, "rant: %s: warning on %s: %s\n", w, i, pcap_geterr(pc));
		return 0;
	}
	snprintf(err, len, "%s: cannot capture on %s: %s: %s", w, i, pcap_statustostr(ret),
		 pcap_geterr(pc));
	return -EIO;
}

int pcapopen_setfilter(pcap_t *pc, const char *filter, const char *what, const char *name,
		       char *err, size_t len)
{
	struct bpf_program prog;
	int ret = 0;

	if (!filter)
		return 0;
	if (pcap_compile(pc, &prog, filter, 1, PCAP_NETMASK_UNKNOWN)) {
		snprintf(err, len, "%s '%s': %s (the syntax is tcpdump's: man pcap-filter)",
			 what, filter, pcap_geterr(pc));
		return -EINVAL;
	}
	if (pcap_setfilter(pc, &prog)) {
		snprintf(err, len, "%s '%s' on %s: %s", what, filter, name, pcap_geterr(pc));
		ret = -EINVAL;
	}
	pcap_freecode(&prog);
	return ret;
}

/* The filter, and non-blocking reads. */
static int configure(pcap_t *pc, const struct pcapopen_params *p, char *err, size_t len)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "", what[64];
	int ret;

	if (pcap_get_tstamp_precision(pc) != PCAP_TSTAMP_PRECISION_NANO) {
		snprintf(err, len, "%s: %s gives the capture microsecond stamps only", p->what, p->iface);
		return -EOPNOTSUPP;
	}
	if (p->user_filter)
		snprintf(what, sizeof(what), "--filter");
	else
		snprintf(what, sizeof(what), "%s: filter", p->what);
	ret = pcapopen_setfilter(pc, p->filter, what, p->iface, err, len);
	if (ret)
		return ret;
	if (pcap_setnonblock(pc, 1, ebuf)) {
		snprintf(err, len, "%s: %s: %s", p->what, p->iface, ebuf);
		return -EIO;
	}
	return 0;
}

int pcapopen(pcap_t **pc, int *tstamp_type, const struct pcapopen_params *p, char *err,
	     size_t len)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	int ret;

	*pc = pcap_create(p->iface, ebuf);
	if (!*pc) {
		snprintf(err, len, "%s: cannot capture on %s: %s", p->what, p->iface, ebuf);
		return -ENODEV;
	}
	pcap_set_snaplen(*pc, p->snaplen);
	pcap_set_promisc(*pc, 0);
	pcap_set_timeout(*pc, p->block_ms);
	pcap_set_buffer_size(*pc, p->buffer_bytes);
	pcap_set_tstamp_precision(*pc, PCAP_TSTAMP_PRECISION_NANO);
	*tstamp_type = choose_tstamp(*pc, p->hw);
	pcap_set_tstamp_type(*pc, *tstamp_type);
	ret = activate(*pc, tstamp_type, p, err, len);
	return ret ? ret : configure(*pc, p, err, len);
}

uint64_t pcapopen_queued(pcap_t *pc)
{
	struct pcap_stat st;

	if (pcap_stats(pc, &st))
		return 0;
	return st.ps_recv >= st.ps_drop ? st.ps_recv - st.ps_drop : 0;
}

void pcapopen_filter(char *buf, size_t len, const char *proto, uint16_t port,
		     const struct sockaddr_storage *host)
{
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)host;
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)host;
	char addr[INET6_ADDRSTRLEN] = "";
	int n = snprintf(buf, len, "%s port %u", proto, port);

	if (host && host->ss_family == AF_INET && s4->sin_addr.s_addr != htonl(INADDR_ANY))
		inet_ntop(AF_INET, &s4->sin_addr, addr, sizeof(addr));
	else if (host && host->ss_family == AF_INET6 && !IN6_IS_ADDR_UNSPECIFIED(&s6->sin6_addr))
		inet_ntop(AF_INET6, &s6->sin6_addr, addr, sizeof(addr));
	if (*addr && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " and host %s", addr);
}

int pcapopen_buffer_bytes(uint64_t pps, int snaplen, int hold_ms)
{
	uint64_t b;

	if (pps > UINT32_MAX)
		pps = UINT32_MAX;
	b = pps * (uint64_t)(snaplen + FRAME_OVERHEAD) * (uint64_t)hold_ms / 1000;

	if (b < PCAPOPEN_BUFFER_MIN)
		b = PCAPOPEN_BUFFER_MIN;
	if (b > PCAPOPEN_BUFFER_MAX)
		b = PCAPOPEN_BUFFER_MAX;
	return (int)b;
}
