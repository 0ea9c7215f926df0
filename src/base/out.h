/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Text and JSON from one call (iproute2's print_uint(PRINT_ANY, ...)):
 * each out_*() prints its value to the text stream with a printf format
 * and to the JSON document under a key; a NULL format leaves the text
 * out, a NULL key the JSON, except inside an array opened by out_arr(),
 * where a NULL key makes the value an element. Either stream of struct out may be NULL, so one
 * printer serves a text-only report, a JSON-only one and both at once.
 *
 * Every module prints its own section with these (clock_print(),
 * capture_print(), sessions_print(), series_row_print(), hwts_print()),
 * from data it filled beforehand: no printer computes a number.
 */
#ifndef RANT_OUT_H
#define RANT_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"

struct out {
	FILE *t;		/* text, or NULL */
	struct json *j;		/* JSON, or NULL */
	uint32_t in_arr;	/* bit d: JSON level d is an array (out_arr) */
};

void out_u64(struct out *o, const char *key, const char *fmt, uint64_t v);
void out_i64(struct out *o, const char *key, const char *fmt, int64_t v);
void out_dbl(struct out *o, const char *key, const char *fmt, double v);
/* A time: ns in the JSON (an integer; a number for _dbl), microseconds
 * in the text (fmt gets a double: "%.3f"), rant's one unit of printed
 * times. */
void out_us(struct out *o, const char *key, const char *fmt, int64_t ns);
void out_us_dbl(struct out *o, const char *key, const char *fmt, double ns);
void out_str(struct out *o, const char *key, const char *fmt, const char *v);
/* Text: fmt gets "true" or "false". */
void out_bool(struct out *o, const char *key, const char *fmt, bool v);
/* JSON only: null under key. */
void out_null(struct out *o, const char *key);
/* JSON: v, or null when !have; text: fmt with v only when have. */
void out_i64_or_null(struct out *o, const char *key, const char *fmt, bool have, int64_t v);
void out_dbl_or_null(struct out *o, const char *key, const char *fmt, bool have, double v);
void out_us_or_null(struct out *o, const char *key, const char *fmt, bool have, int64_t ns);
void out_str_or_null(struct out *o, const char *key, const char *fmt, const char *v);
/* JSON only: an object or array under key (NULL inside an array), and its end. */
void out_obj(struct out *o, const char *key);
void out_obj_end(struct out *o);
void out_arr(struct out *o, const char *key);
void out_arr_end(struct out *o);
/* JSON: an array of the n strings v under key. */
void out_strs(struct out *o, const char *key, const char *const *v, size_t n);
/* JSON: the document is finished (a newline; the caller checks the stream). */
void out_doc_end(struct out *o);
/* Text only. */
void out_text(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The same streams, one of them left out. */
static inline struct out out_json_only(const struct out *o)
{
	return (struct out){ .j = o->j, .in_arr = o->in_arr };
}

static inline struct out out_text_only(const struct out *o)
{
	return (struct out){ .t = o->t };
}

/*
 * Where the text of a run goes, decided once at set-up: stdout, or
 * stderr when stdout carries the capture (--pcap -), the JSON (-j -)
 * or the log (-l -, streamed during the run).
 */
FILE *out_text_stream(const char *json_path, const char *log_path, const char *pcap_path);

#endif
