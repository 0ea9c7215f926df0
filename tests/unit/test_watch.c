/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --read end to end (src/watch/watch.h, src/print/watchout.h) on pcap
 * files written here: nanosecond and microsecond stamps read alike; a
 * file cut mid-packet reported with what came before; not a capture, a
 * link type rant does not read: one line, before any packet; a capture
 * without TCP, one cut at 64 bytes: counted, said, no guess; a pcapng
 * stamp offset past an int64_t of ns: counted, not read.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <unistd.h>

#include "opts.h"
#include "pktbuild.h"
#include "tap.h"
#include "watch.h"
#include "watchout.h"

#define SEC 1000000000LL

static char dir[] = "/tmp/rant-test-watch.XXXXXX";
static char path[256];

struct pcapw {
	FILE *f;
	int dlt;
	bool nano;
	uint32_t snaplen;
};

static void pw_seg(struct pcapw *w, int64_t t, bool c2s, uint16_t cport, uint8_t flags,
		   uint32_t seq, uint32_t ack, uint32_t len, bool v6)
{
	struct pb_seg s = { .v6 = v6, .src = c2s ? (v6 ? "fd00::1" : "10.0.0.1") : (v6 ? "fd00::2" : "10.0.0.2"),
			    .dst = c2s ? (v6 ? "fd00::2" : "10.0.0.2") : (v6 ? "fd00::1" : "10.0.0.1"),
			    .sport = c2s ? cport : 80, .dport = c2s ? 80 : cport, .seq = seq,
			    .ack = ack, .flags = flags, .win = 1000, .len = len, .ts = true,
			    .tsval = (uint32_t)(t / 1000000), .tsecr = 1 };
	static uint8_t frame[4096];
	size_t n = pb_frame(frame, w->dlt, &s);

	pb_pcap_packet(w->f, t, frame, (uint32_t)n, w->snaplen, w->nano);
}

/* A capture of n connections of 3 exchanges each, into path. */
static void write_capture(const char *name, int dlt, bool nano, uint32_t snaplen, int n,
			  bool v6)
{
	struct pcapw w = { .dlt = dlt, .nano = nano, .snaplen = snaplen };

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	w.f = fopen(path, "wb");
	if (!w.f)
		BAIL_OUT(path);
	pb_pcap_header(w.f, dlt, nano, snaplen);
	for (int c = 0; c < n; c++) {
		int64_t t = SEC + c * SEC / 10;
		uint16_t p = (uint16_t)(40000 + c);
		uint32_t cs = 101, ss = 501;

		pw_seg(&w, t, true, p, PB_SYN, 100, 0, 0, v6);
		pw_seg(&w, t + 20000, false, p, PB_SYN | PB_ACK, 500, 101, 0, v6);
		pw_seg(&w, t + 40000, true, p, PB_ACK, cs, ss, 0, v6);
		for (int x = 0; x < 3; x++) {
			t += 1000000;
			pw_seg(&w, t, true, p, PB_ACK | PB_PSH, cs, ss, 100, v6);
			cs += 100;
			pw_seg(&w, t + 123456, false, p, PB_ACK | PB_PSH, ss, cs, 600, v6);
			ss += 600;
		}
		pw_seg(&w, t + 200000, true, p, PB_ACK | PB_FIN, cs, ss, 0, v6);
		pw_seg(&w, t + 220000, false, p, PB_ACK | PB_FIN, ss, cs + 1, 0, v6);
		pw_seg(&w, t + 240000, true, p, PB_ACK, cs + 1, ss + 1, 0, v6);
	}
	if (fclose(w.f))
		BAIL_OUT(path);
}

/* rant --read path [extra]: the report after watch_run(), or NULL with
 * err set by watch_create(); *run_ret watch_run()'s. */
static struct watch *read_file(struct rant_cfg *c, const char *extra, char *err, size_t len,
			       int *run_ret)
{
	static char *argv[5];	/* kept: the report prints the command line */
	struct watch *w;

	argv[0] = "rant";
	argv[1] = "--read";
	argv[2] = path;
	argv[3] = (char *)extra;
	optind = 0;
	if (opts_parse(extra ? 4 : 3, argv, c, stderr) != OPTS_OK)
		BAIL_OUT("opts_parse --read");
	*err = '\0';
	if (watch_create(&w, c, err, len))
		return NULL;
	*run_ret = watch_run(w);
	return w;
}

static void test_read(void)
{
	static struct rant_cfg c;
	struct watch_report *r;
	struct watch *w;
	char err[512];
	int ret;
	int64_t nano_p50;

	write_capture("nano.pcap", DLT_EN10MB, true, 65535, 4, false);
	w = read_file(&c, NULL, err, sizeof(err), &ret);
	if (!ok(w != NULL, "a nanosecond pcap opens") || !w) {
		diag("%s", err);
		return;
	}
	r = watch_report(w);
	is_int(ret, 0, "read to its end");
	is_str(r->stop_reason, "end of file", "stopped at the end of the file");
	ok(r->format && !strcmp(r->format, "pcap") && !strcmp(r->stamps, "nano"),
	   "pcap, nanosecond stamps");
	is_u64(r->cnt.packets, 4 * 12, "48 packets");
	is_u64(r->all.flows, 4, "4 flows");
	is_u64(r->all.exchanges, 12, "12 exchanges");
	nano_p50 = hist_percentile(r->all.h[WM_EXCHANGE], 50);
	is_int(nano_p50, 123456, "exchange p50 123456 ns, to the ns");
	watch_destroy(w);

	write_capture("micro.pcap", DLT_LINUX_SLL2, false, 65535, 4, true);
	w = read_file(&c, NULL, err, sizeof(err), &ret);
	if (!ok(w != NULL, "a microsecond SLL2 pcap of IPv6 opens") || !w)
		return;
	r = watch_report(w);
	ok(!strcmp(r->stamps, "micro") && !strcmp(r->link, "LINUX_SLL2"),
	   "microsecond stamps, LINUX_SLL2");
	ok(r->all.flows == 4 && r->all.exchanges == 12, "the same 4 flows, 12 exchanges");
	is_int(hist_percentile(r->all.h[WM_EXCHANGE], 50), 123000,
	       "exchange p50 123 us (the microsecond stamps')");
	watch_destroy(w);
}

static void test_truncated(void)
{
	static struct rant_cfg c;
	struct watch *w;
	char err[512];
	int ret;
	long size;
	FILE *f;

	write_capture("cut.pcap", DLT_EN10MB, true, 65535, 4, false);
	f = fopen(path, "r+");
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fclose(f);
	if (truncate(path, size - 100))
		BAIL_OUT("truncate");
	w = read_file(&c, NULL, err, sizeof(err), &ret);
	if (!ok(w != NULL, "a file cut mid-packet opens") || !w)
		return;
	is_int(ret, -EIO, "watch_run says it was cut");
	ok(strstr(watch_report(w)->error, "truncated") != NULL, "... why: '%s'",
	   watch_report(w)->error);
	ok(watch_report(w)->all.flows == 4 && watch_report(w)->cnt.packets >= 40,
	   "... and reports what came before it (%llu packets)",
	   (unsigned long long)watch_report(w)->cnt.packets);
	watch_destroy(w);
}

static void test_refused(void)
{
	static struct rant_cfg c;
	char err[512];
	int ret;
	FILE *f;

	snprintf(path, sizeof(path), "%s/text", dir);
	f = fopen(path, "w");
	fprintf(f, "not a capture at all, just some text long enough\n");
	fclose(f);
	ok(!read_file(&c, NULL, err, sizeof(err), &ret) && strstr(err, "not a capture file"),
	   "a text file: '%s'", err);
	snprintf(path, sizeof(path), "%s/empty", dir);
	fclose(fopen(path, "w"));
	ok(!read_file(&c, NULL, err, sizeof(err), &ret) && *err, "an empty file: '%s'", err);
	write_capture("null.pcap", DLT_NULL, true, 65535, 1, false);
	ok(!read_file(&c, NULL, err, sizeof(err), &ret) && strstr(err, "link type 0 (NULL)"),
	   "BSD loopback: '%s'", err);
	write_capture("bad-filter.pcap", DLT_EN10MB, true, 65535, 1, false);
	ok(!read_file(&c, "--filter=tcp port", err, sizeof(err), &ret) &&
	   strstr(err, "--filter"), "a filter that does not compile: '%s'", err);
}

/* A pcapng block: type, body padded to 4, its length on both ends. */
static void ng_block(FILE *f, uint32_t type, const uint8_t *body, uint32_t n)
{
	uint8_t h[8], pad[4] = { 0 };
	uint32_t total = 12 + (n + 3) / 4 * 4;

	pb_put32le(h, type);
	pb_put32le(h + 4, total);
	fwrite(h, 1, 8, f);
	fwrite(body, 1, n, f);
	fwrite(pad, 1, (4 - n % 4) % 4, f);
	fwrite(h + 4, 1, 4, f);
}

/* A pcapng whose interface says if_tsoffset 2^62 s: libpcap adds it to
 * every stamp's seconds, past what an int64_t of ns holds. Each packet
 * counted, none read (no signed overflow: make asan). */
static void test_tsoffset(void)
{
	static const uint8_t shb[] = { 0x4d, 0x3c, 0x2b, 0x1a, 1, 0, 0, 0,
				       0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t idb[] = { 1, 0, 0, 0, 0xff, 0xff, 0, 0,
				       9, 0, 1, 0, 9, 0, 0, 0,		/* if_tsresol: ns */
				       /* if_tsoffset 2^62 */
				       14, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0x40,
				       0, 0, 0, 0 };
	static struct rant_cfg c;
	static uint8_t epb[4096];
	struct watch_report *r;
	struct watch *w;
	char err[512];
	int ret;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tsoffset.pcapng", dir);
	f = fopen(path, "wb");
	if (!f)
		BAIL_OUT(path);
	ng_block(f, 0x0a0d0d0a, shb, sizeof(shb));
	ng_block(f, 1, idb, sizeof(idb));
	for (int i = 0; i < 3; i++) {
		uint32_t n = (uint32_t)pb_frame(epb + 20, DLT_EN10MB, &(struct pb_seg){
			.src = "10.0.0.1", .dst = "10.0.0.2", .sport = 40000, .dport = 80,
			.seq = 100, .flags = PB_SYN, .win = 1000 });

		memset(epb, 0, 20);
		pb_put32le(epb + 8, (uint32_t)i);	/* the stamp's low half */
		pb_put32le(epb + 12, n);
		pb_put32le(epb + 16, n);
		ng_block(f, 6, epb, 20 + n);
	}
	fclose(f);
	w = read_file(&c, NULL, err, sizeof(err), &ret);
	if (!ok(w, "if_tsoffset 2^62: opened: '%s'", err))
		return;
	r = watch_report(w);
	ok(ret == 0 && r->cnt.bad_stamps == 3 && r->cnt.packets == 0,
	   "if_tsoffset 2^62: 3 packets counted, none read (%" PRIu64 " bad, %" PRIu64 " read)",
	   r->cnt.bad_stamps, r->cnt.packets);
	watch_destroy(w);
}

static void test_cannot_tell(void)
{
	static struct rant_cfg c;
	struct watch_report *r;
	struct watch *w;
	char err[512], *text = NULL;
	size_t len = 0;
	int ret;
	FILE *t;

	write_capture("v6-64.pcap", DLT_EN10MB, true, 64, 2, true);
	w = read_file(&c, NULL, err, sizeof(err), &ret);
	if (!ok(w != NULL, "IPv6 at snaplen 64 opens") || !w)
		return;
	r = watch_report(w);
	is_u64(r->cnt.unreadable, 24, "every segment unreadable (the flags cut)");
	is_u64(r->all.flows, 2, "... its 2 flows known");
	is_u64(r->cnt.flows_unknown[2], 2, "... both marked cut");
	is_u64(r->all.exchanges, 0, "... no exchange guessed");
	t = open_memstream(&text, &len);
	watchout_print(&(struct out){ .t = t }, &c, r);
	fclose(t);
	ok(strstr(text, "cannot tell for 2 of 2 flows: TCP headers cut"),
	   "the text says the headers were cut");
	free(text);
	watch_destroy(w);
	/* a --filter that passes nothing: no TCP */
	write_capture("f.pcap", DLT_EN10MB, true, 65535, 2, false);
	w = read_file(&c, "--filter=udp", err, sizeof(err), &ret);
	if (ok(w != NULL, "--filter udp opens") && w) {
		ok(watch_report(w)->cnt.packets == 0 && watch_report(w)->all.flows == 0,
		   "... no packet, no flow");
		watch_destroy(w);
	}
}

int main(void)
{
	if (!mkdtemp(dir))
		BAIL_OUT("mkdtemp");
	test_read();
	test_truncated();
	test_refused();
	test_tsoffset();
	test_cannot_tell();
	if (fork() == 0)
		execlp("rm", "rm", "-rf", dir, (char *)NULL);
	return done_testing();
}
