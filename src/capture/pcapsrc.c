// SPDX-License-Identifier: GPL-2.0-or-later
/* Packets from a capture file or an interface (pcapsrc.h). */
#include <errno.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcapsrc.h"
#include "pktparse.h"

#define MAGIC_USEC 0xa1b2c3d4u
#define MAGIC_NSEC 0xa1b23c4du
#define MAGIC_NG 0x0a0d0d0au

struct pcapsrc {
	pcap_t *pc;
	struct pcapsrc_info info;
	const char *what;	/* the file's name or the interface's, for messages */
	bool live;
	bool nano;		/* the stamps are in ns (else us) */
	pcapsrc_fn fn;
	void *ctx;
};

/* A regular file's format and stamps, from its first four bytes. */
static void file_kind(const char *path, struct pcapsrc_info *info)
{
	uint8_t b[4];
	uint32_t le, be;
	FILE *f;

	if (!strcmp(path, "-") || !(f = fopen(path, "rb")))
		return;
	if (fread(b, 1, sizeof(b), f) == sizeof(b)) {
		le = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
		     (uint32_t)b[3] << 24;
		be = (uint32_t)b[3] | (uint32_t)b[2] << 8 | (uint32_t)b[1] << 16 |
		     (uint32_t)b[0] << 24;
		if (le == MAGIC_NG)
			info->format = "pcapng";
		else if (le == MAGIC_USEC || be == MAGIC_USEC)
			info->format = "pcap", info->stamps = "micro";
		else if (le == MAGIC_NSEC || be == MAGIC_NSEC)
			info->format = "pcap", info->stamps = "nano";
	}
	fclose(f);
}

static int open_file(struct pcapsrc *s, const struct pcapsrc_params *p, char *err, size_t len)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "";

	s->what = strcmp(p->path, "-") ? p->path : "standard input";
	if (!strcmp(p->path, "-"))
		s->pc = pcap_fopen_offline_with_tstamp_precision(stdin, PCAP_TSTAMP_PRECISION_NANO,
								 ebuf);
	else
		s->pc = pcap_open_offline_with_tstamp_precision(p->path, PCAP_TSTAMP_PRECISION_NANO,
								ebuf);
	if (!s->pc) {
		if (strstr(ebuf, "No such file") || strstr(ebuf, "Permission denied"))
			snprintf(err, len, "--read %s: cannot open it: %s", p->path, ebuf);
		else
			snprintf(err, len, "--read %s: not a capture file libpcap reads (pcap or pcapng): %s",
				 p->path, ebuf);
		return -EINVAL;
	}
	file_kind(p->path, &s->info);
	s->nano = pcap_get_tstamp_precision(s->pc) == PCAP_TSTAMP_PRECISION_NANO;
	return 0;
}

/* pcap_activate's result as one line; 0 for success and warnings. */
static int activate(struct pcapsrc *s, char *err, size_t len)
{
	const char *i = s->what;
	int ret = pcap_activate(s->pc);

	if (ret == 0)
		return 0;
	if (ret > 0) {
		fprintf(stderr, "rant: --watch: warning on %s: %s\n", i, pcap_geterr(s->pc));
		return 0;
	}
	if (ret == PCAP_ERROR_PERM_DENIED)
		snprintf(err, len, "--watch: no permission to capture on %s: run as root (or give rant CAP_NET_RAW)", i);
	else if (ret == PCAP_ERROR_NO_SUCH_DEVICE)
		snprintf(err, len, "--watch: cannot capture on %s: no such interface (ip link lists them)", i);
	else if (ret == PCAP_ERROR_IFACE_NOT_UP)
		snprintf(err, len, "--watch: %s is down: ip link set %s up", i, i);
	else
		snprintf(err, len, "--watch: cannot capture on %s: %s: %s", i, pcap_statustostr(ret),
			 pcap_geterr(s->pc));
	return ret == PCAP_ERROR_PERM_DENIED ? -EPERM : -ENODEV;
}

static int open_live(struct pcapsrc *s, const struct pcapsrc_params *p, char *err, size_t len)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	int ret;

	s->what = p->iface;
	s->live = true;
	s->pc = pcap_create(p->iface, ebuf);
	if (!s->pc) {
		snprintf(err, len, "--watch: cannot capture on %s: %s", p->iface, ebuf);
		return -ENODEV;
	}
	pcap_set_snaplen(s->pc, p->snaplen);
	pcap_set_promisc(s->pc, 0);
	pcap_set_timeout(s->pc, p->block_ms);
	pcap_set_buffer_size(s->pc, p->buffer_bytes);
	pcap_set_tstamp_precision(s->pc, PCAP_TSTAMP_PRECISION_NANO);
	ret = activate(s, err, len);
	if (ret)
		return ret;
	s->nano = pcap_get_tstamp_precision(s->pc) == PCAP_TSTAMP_PRECISION_NANO;
	s->info.stamps = s->nano ? "nano" : "micro";
	if (pcap_setnonblock(s->pc, 1, ebuf)) {
		snprintf(err, len, "--watch: %s: %s", p->iface, ebuf);
		return -EIO;
	}
	return 0;
}

static int set_filter(struct pcapsrc *s, const char *filter, char *err, size_t len)
{
	struct bpf_program prog;

	if (!filter)
		return 0;
	if (pcap_compile(s->pc, &prog, filter, 1, PCAP_NETMASK_UNKNOWN)) {
		snprintf(err, len, "--filter '%s': %s (the syntax is tcpdump's: man pcap-filter)",
			 filter, pcap_geterr(s->pc));
		return -EINVAL;
	}
	if (pcap_setfilter(s->pc, &prog)) {
		snprintf(err, len, "--filter '%s' on %s: %s", filter, s->what, pcap_geterr(s->pc));
		pcap_freecode(&prog);
		return -EINVAL;
	}
	pcap_freecode(&prog);
	return 0;
}

int pcapsrc_open(struct pcapsrc **sp, const struct pcapsrc_params *p, char *err, size_t len)
{
	struct pcapsrc *s = calloc(1, sizeof(*s));
	int ret;

	*sp = NULL;
	if (!s) {
		snprintf(err, len, "no memory for the capture");
		return -ENOMEM;
	}
	ret = p->path ? open_file(s, p, err, len) : open_live(s, p, err, len);
	if (!ret)
		ret = set_filter(s, p->filter, err, len);
	if (!ret) {
		s->info.dlt = pcap_datalink(s->pc);
		s->info.link = pcap_datalink_val_to_name(s->info.dlt);
		s->info.snaplen = pcap_snapshot(s->pc);
		if (!s->info.link)
			s->info.link = "unknown";
		if (!pktparse_link_ok(s->info.dlt)) {
			snprintf(err, len, "%s: link type %d (%s) is not one rant reads: Ethernet (EN10MB), Linux cooked (LINUX_SLL, LINUX_SLL2: tcpdump -i any) or raw IP",
				 s->what, s->info.dlt, s->info.link);
			ret = -EPROTONOSUPPORT;
		}
	}
	if (ret) {
		pcapsrc_close(s);
		return ret;
	}
	*sp = s;
	return 0;
}

const struct pcapsrc_info *pcapsrc_info(const struct pcapsrc *s)
{
	return &s->info;
}

static void on_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct pcapsrc *s = (struct pcapsrc *)user;
	int64_t t = (int64_t)h->ts.tv_sec * 1000000000 +
		    (int64_t)h->ts.tv_usec * (s->nano ? 1 : 1000);

	s->fn(s->ctx, t, bytes, h->caplen, h->len);
}

int pcapsrc_next(struct pcapsrc *s, pcapsrc_fn fn, void *ctx, int max, int wait_ms,
		 char *err, size_t len)
{
	int n;

	s->fn = fn;
	s->ctx = ctx;
	n = pcap_dispatch(s->pc, max, on_packet, (u_char *)s);
	if (n == 0 && s->live && wait_ms > 0) {
		struct pollfd pfd = { .fd = pcap_get_selectable_fd(s->pc), .events = POLLIN };

		poll(&pfd, 1, wait_ms);
		n = pcap_dispatch(s->pc, max, on_packet, (u_char *)s);
	}
	if (n >= 0)
		return n;
	if (n == PCAP_ERROR_BREAK)
		return 0;
	snprintf(err, len, "%s: %s", s->what, pcap_geterr(s->pc));
	return -EIO;
}

int pcapsrc_drops(struct pcapsrc *s, uint64_t *dropped, uint64_t *if_dropped)
{
	struct pcap_stat st;

	if (!s->live || pcap_stats(s->pc, &st))
		return -EIO;
	*dropped = st.ps_drop;
	*if_dropped = st.ps_ifdrop;
	return 0;
}

void pcapsrc_close(struct pcapsrc *s)
{
	if (!s)
		return;
	if (s->pc)
		pcap_close(s->pc);
	free(s);
}
