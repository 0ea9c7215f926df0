// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/base/out.h: one call prints a value to the text and a field to the JSON,
 * each leavable out; where the text goes; src/print/outputs.h: the table of
 * output files (a row per option, created at set-up, joined to the
 * summary's pass or drained, committed whole); src/summary/summary.h: a summary
 * rendered from a snapshot filled by hand, in text and JSON at once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outputs.h"
#include "summary.h"
#include "tap.h"

static FILE *tf, *jf;
static char *tbuf, *jbuf;
static size_t tlen, jlen;
static struct json j;

/* Text and JSON into memstreams. */
static struct out start(void)
{
	tf = open_memstream(&tbuf, &tlen);
	jf = open_memstream(&jbuf, &jlen);
	if (!tf || !jf)
		BAIL_OUT("open_memstream failed");
	json_init(&j, jf);
	return (struct out){ .t = tf, .j = &j };
}

static void finish(void)
{
	fclose(tf);
	fclose(jf);
}

static void clear(void)
{
	free(tbuf);
	free(jbuf);
}

static void test_one_call(void)
{
	struct out o = start();

	out_obj(&o, NULL);
	out_u64(&o, "sent", "sent %" PRIu64, 5);
	out_i64(&o, "min", ", min %" PRId64, -3);
	out_dbl(&o, "loss_pct", " (%.2f%%)", 12.5);
	out_str(&o, "nagle", ", Nagle %s", "on");
	out_bool(&o, "used", " %s\n", true);
	out_obj_end(&o);
	json_end(&j);
	finish();
	is_str(tbuf, "sent 5, min -3 (12.50%), Nagle on true\n", "one call each: the text");
	is_str(jbuf, "{\n  \"sent\": 5,\n  \"min\": -3,\n  \"loss_pct\": 12.500,\n"
	       "  \"nagle\": \"on\",\n  \"used\": true\n}\n", "one call each: the JSON");
	clear();
}

static void test_leave_out(void)
{
	struct out o = start();

	out_obj(&o, NULL);
	out_u64(&o, "json_only", NULL, 1);
	out_u64(&o, NULL, "text only %" PRIu64 "\n", 2);
	out_i64_or_null(&o, "none", "never %" PRId64, false, 7);
	out_dbl_or_null(&o, "drift", " drift %.1f\n", true, 1.25);
	out_str_or_null(&o, "phc", "never %s", NULL);
	out_text(&o, "text %d\n", 3);
	out_obj_end(&o);
	json_end(&j);
	finish();
	is_str(tbuf, "text only 2\n drift 1.2\ntext 3\n", "NULL key, NULL format: each stream alone");
	is_str(jbuf, "{\n  \"json_only\": 1,\n  \"none\": null,\n  \"drift\": 1.250,\n"
	       "  \"phc\": null\n}\n", "absent values are null in the JSON only");
	clear();
}

/* In an array a NULL key is an element; out of one it is text only. */
static void test_arrays(void)
{
	struct out o = start(), jo;

	out_obj(&o, NULL);
	out_arr(&o, "cpus");
	out_i64(&o, NULL, " %" PRId64, 1);
	out_i64(&o, NULL, ",%" PRId64, 2);
	out_obj(&o, NULL);
	out_u64(&o, NULL, " (no key in an object)", 9);
	out_obj_end(&o);
	out_arr_end(&o);
	out_u64(&o, NULL, "\n", 4);
	jo = out_json_only(&o);
	out_arr(&jo, "rows");
	out_str(&jo, NULL, "never %s", "x");
	out_arr_end(&jo);
	out_obj_end(&o);
	json_end(&j);
	finish();
	is_str(tbuf, " 1,2 (no key in an object)\n", "arrays: the text");
	is_str(jbuf, "{\n  \"cpus\": [\n    1,\n    2,\n    {}\n  ],\n  \"rows\": [\n    \"x\"\n  ]\n}\n",
	       "arrays: elements, and out_json_only() leaves the text out");
	clear();
}

static void test_text_stream(void)
{
	struct rant_cfg c = { 0 };

	ok(out_text_stream(c.json_path, c.log_path, c.pcap_path) == stdout, "text: stdout by default");
	c.json_path = "out.json";
	c.log_path = "out.log";
	ok(out_text_stream(c.json_path, c.log_path, c.pcap_path) == stdout, "text: stdout with files");
	c.json_path = "-";
	ok(out_text_stream(c.json_path, c.log_path, c.pcap_path) == stderr, "text: stderr with -j -");
	c.json_path = NULL;
	c.log_path = "-";
	ok(out_text_stream(c.json_path, c.log_path, c.pcap_path) == stderr, "text: stderr with -l -");
	c.log_path = NULL;
	c.pcap_path = "-";
	ok(out_text_stream(c.json_path, c.log_path, c.pcap_path) == stderr, "text: stderr with --pcap -");
}

static const struct output_def *row(const char *opt)
{
	for (size_t i = 0; i < outputs_count; i++)
		if (!strcmp(outputs_table[i].opt, opt))
			return &outputs_table[i];
	return NULL;
}

static char *slurp(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static void test_table(void)
{
	const struct output_def *l = row("-l"), *jr = row("-j");

	ok(outputs_count <= OUTPUTS_MAX, "table: %zu rows, room for %d", outputs_count,
	   OUTPUTS_MAX);
	ok(l && l->drain && !l->join && l->path_off == offsetof(struct rant_cfg, log_path),
	   "table: -l drains, its path is log_path");
	ok(jr && jr->join && !jr->drain && jr->path_off == offsetof(struct rant_cfg, json_path),
	   "table: -j joins the summary's pass, its path is json_path");
}

/* -j FILE through the table: created at open, written by the pass, renamed at finish. */
static void test_json_file(void)
{
	char dir[] = "/tmp/rant-test-out-XXXXXX", path[64], bad[96];
	struct output outs[OUTPUTS_MAX] = { 0 };
	struct rant_cfg c = { 0 };
	struct output_src src = { 0 };
	struct out pass = { 0 };
	struct stat st;

	if (!mkdtemp(dir))
		BAIL_OUT("mkdtemp failed");
	snprintf(path, sizeof(path), "%s/run.json", dir);
	c.json_path = path;
	ok(output_open(outs, outputs_table, outputs_count, &c) == 0, "open: -j %s", path);
	ok(output_get(outs, "-j") && !output_get(outs, "-l"), "get: -j open, -l not asked for");
	ok(stat(path, &st) == -1 && errno == ENOENT, "open: nothing at the target before commit");
	ok(output_drain(outs, &src) == 0, "drain: nothing to drain");
	ok(output_join(outs, &pass) == 0 && pass.j, "join: the pass writes the JSON");
	out_obj(&pass, NULL);
	out_u64(&pass, "sent", NULL, 3);
	out_obj_end(&pass);
	json_end(pass.j);
	ok(output_finish(outs, &src) == 0, "finish: committed");
	is_str(slurp(path), "{\n  \"sent\": 3\n}\n", "the file holds the document");
	output_abort(outs);
	ok(stat(path, &st) == 0, "abort after commit leaves the file");
	unlink(path);

	snprintf(bad, sizeof(bad), "%s/no/such/dir/run.json", dir);
	memset(outs, 0, sizeof(outs));
	c.json_path = bad;
	ok(output_open(outs, outputs_table, outputs_count, &c) < 0, "open: a directory that does not exist fails at set-up");
	output_abort(outs);
	rmdir(dir);
}

/* A snapshot filled by hand: the renderer needs nothing else (no run). */
static void test_summary(void)
{
	static struct snap s;
	struct rant_cfg c = { .mode = MODE_REFLECT, .iface = "lo", .port = 9 };
	struct out o = start();

	s.cfg = &c;
	s.hw_note = "lo has none";
	s.stop_reason = "signal";
	s.start_ns = 0;
	s.end_ns = 2 * NS_PER_SEC;
	s.cnt.sent = s.cnt.received = 10;
	s.primary = M_RESPONSE;
	s.shown[M_RESPONSE] = true;
	s.metric[M_RESPONSE] = (struct snap_stats){
		.key = "response", .label = "Reflector response",
		.st = { .samples = 10, .min = 1000, .max = 3000, .avg = 2000 },
		.pct = { 2000, 2900, 2950, 3000, 3000, 3000, 3000 },
	};
	s.hist.metric = "response";
	summary_print(&o, &s);
	finish();
	ok(strstr(tbuf, "reflect on lo, 2.000 s measured, timestamps kernel, stopped: signal\n") != NULL,
	   "summary text: the head line");
	ok(strstr(tbuf, "response             10      1.000      2.000      0.000      2.000") != NULL,
	   "summary text: the metric row, in microseconds");
	ok(strstr(jbuf, "\"min\": 1000,") != NULL, "summary JSON: the same, in ns");
	ok(strstr(jbuf, "\"stop_reason\": \"signal\"") && strstr(jbuf, "\"99\": 3000") &&
	   strstr(jbuf, "\"breaches\": []"), "summary JSON: the same numbers, in the same pass");
	ok(!strstr(jbuf, "\"clock\"") && !strstr(tbuf, "clock:"),
	   "summary: no clock report in the snapshot, none printed");
	clear();
}

int main(void)
{
	test_one_call();
	test_leave_out();
	test_arrays();
	test_text_stream();
	test_table();
	test_json_file();
	test_summary();
	return done_testing();
}
