// SPDX-License-Identifier: GPL-2.0-or-later
/* Packets from a capture file or an interface (pcapsrc.h). */
#include <errno.h>
#include <fcntl.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcapopen.h"
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
	uint64_t bad_stamps;	/* packets not handed over: their stamp */
};

/*
 * The file read once, as tcpdump and tshark read it: a pipe, a FIFO,
 * /dev/stdin or <(...) cannot be opened a second time to learn its
 * kind. Its first four bytes are read here (the kind), then handed to
 * libpcap ahead of the rest, through a stdio stream over the descriptor.
 */
struct peek {
	int fd;
	bool own;		/* close fd at the end (not standard input) */
	uint8_t b[4];
	size_t n, at;
};

static ssize_t peek_read(void *cookie, char *buf, size_t size)
{
	struct peek *k = cookie;
	ssize_t n;

	if (k->at < k->n) {
		n = (ssize_t)(size < k->n - k->at ? size : k->n - k->at);
		memcpy(buf, k->b + k->at, (size_t)n);
		k->at += (size_t)n;
		return n;
	}
	do
		n = read(k->fd, buf, size);
	while (n < 0 && errno == EINTR);
	return n;
}

static int peek_close(void *cookie)
{
	struct peek *k = cookie;
	int ret = k->own ? close(k->fd) : 0;

	free(k);
	return ret;
}

/* The format and stamps from the magic number. */
static void file_kind(const uint8_t *b, size_t n, struct pcapsrc_info *info)
{
	uint32_t le, be;

	if (n < 4)
		return;
	le = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	be = (uint32_t)b[3] | (uint32_t)b[2] << 8 | (uint32_t)b[1] << 16 | (uint32_t)b[0] << 24;
	if (le == MAGIC_NG)
		info->format = "pcapng";
	else if (le == MAGIC_USEC || be == MAGIC_USEC)
		info->format = "pcap", info->stamps = "micro";
	else if (le == MAGIC_NSEC || be == MAGIC_NSEC)
		info->format = "pcap", info->stamps = "nano";
}

/* path opened once ("-": standard input), its magic read: a stream that
 * gives those bytes again, then the rest. NULL with errno. */
static FILE *open_once(const char *path, struct pcapsrc_info *info)
{
	static const cookie_io_functions_t io = { .read = peek_read, .close = peek_close };
	struct peek *k = calloc(1, sizeof(*k));
	ssize_t n = 0;
	FILE *f;
	int e;

	if (!k)
		return NULL;
	k->own = strcmp(path, "-") != 0;
	k->fd = k->own ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	if (k->fd < 0)
		goto fail;
	while (k->n < sizeof(k->b) && (n = read(k->fd, k->b + k->n, sizeof(k->b) - k->n)) != 0) {
		if (n < 0 && errno != EINTR)
			goto fail;
		if (n > 0)
			k->n += (size_t)n;
	}
	file_kind(k->b, k->n, info);
	f = fopencookie(k, "r", io);
	if (f)
		return f;
fail:
	e = errno;
	if (k->own && k->fd >= 0)
		close(k->fd);
	free(k);
	errno = e;
	return NULL;
}

static int open_file(struct pcapsrc *s, const struct pcapsrc_params *p, char *err, size_t len)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	FILE *f;

	s->what = strcmp(p->path, "-") ? p->path : "standard input";
	f = open_once(p->path, &s->info);
	if (!f) {
		int e = errno;

		snprintf(err, len, "--read %s: cannot open it: %s", p->path, strerror(e));
		return -e;
	}
	s->pc = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, ebuf);
	if (!s->pc) {
		fclose(f);
		snprintf(err, len, "--read %s: not a capture file libpcap reads (pcap or pcapng): %s",
			 p->path, ebuf);
		return -EINVAL;
	}
	s->nano = pcap_get_tstamp_precision(s->pc) == PCAP_TSTAMP_PRECISION_NANO;
	return 0;
}

/* The one live opener (pcapopen.h): host stamps, the filter. */
static int open_live(struct pcapsrc *s, const struct pcapsrc_params *p, char *err, size_t len)
{
	struct pcapopen_params o = {
		.what = "--watch", .iface = p->iface, .snaplen = p->snaplen,
		.buffer_bytes = p->buffer_bytes, .block_ms = p->block_ms, .filter = p->filter,
		.user_filter = true,
	};
	int tstamp_type;

	s->what = p->iface;
	s->live = true;
	s->nano = true;
	s->info.stamps = "nano";
	return pcapopen(&s->pc, &tstamp_type, &o, err, len);
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
	if (p->path) {
		ret = open_file(s, p, err, len);
		if (!ret)
			ret = pcapopen_setfilter(s->pc, p->filter, "--filter", s->what, err, len);
	} else {
		ret = open_live(s, p, err, len);
	}
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

/* A stamp's seconds that nanoseconds in an int64_t hold (to 2262), with
 * room for the fraction. */
#define STAMP_SEC_MAX (INT64_MAX / 1000000000 - 1)

static void on_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct pcapsrc *s = (struct pcapsrc *)user;
	int64_t t;

	/* a pcapng's if_tsoffset (or a forged stamp) can put the seconds
	 * anywhere: such a packet is counted, not read */
	if (h->ts.tv_sec > STAMP_SEC_MAX || h->ts.tv_sec < -STAMP_SEC_MAX ||
	    h->ts.tv_usec < 0 || h->ts.tv_usec >= 1000000000) {
		s->bad_stamps++;
		return;
	}
	t = (int64_t)h->ts.tv_sec * 1000000000 + (int64_t)h->ts.tv_usec * (s->nano ? 1 : 1000);
	s->fn(s->ctx, t, bytes, h->caplen, h->len);
}

uint64_t pcapsrc_bad_stamps(const struct pcapsrc *s)
{
	return s->bad_stamps;
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
	/* libpcap reads one link type a file; a pcapng may hold more */
	if (strstr(pcap_geterr(s->pc), "different from the type of the first interface"))
		snprintf(err, len, "%s: %s: libpcap reads one link type a file (split it by interface: tshark -r FILE -Y 'frame.interface_id == 1' -w ONE.pcapng)",
			 s->what, pcap_geterr(s->pc));
	else
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
