// SPDX-License-Identifier: GPL-2.0-or-later
/* Text and JSON from one call (out.h). */
#include <stdarg.h>
#include <string.h>

#include "out.h"

/* A value without a key: an element of the array open at this level. */
static bool elem(const struct out *o)
{
	return o->j->depth < 32 && (o->in_arr >> o->j->depth & 1);
}

void out_u64(struct out *o, const char *key, const char *fmt, uint64_t v)
{
	if (o->t && fmt)
		fprintf(o->t, fmt, v);
	if (o->j && (key || elem(o)))
		json_u64(o->j, key, v);
}

void out_i64(struct out *o, const char *key, const char *fmt, int64_t v)
{
	if (o->t && fmt)
		fprintf(o->t, fmt, v);
	if (o->j && (key || elem(o)))
		json_i64(o->j, key, v);
}

void out_us(struct out *o, const char *key, const char *fmt, int64_t ns)
{
	if (o->t && fmt)
		fprintf(o->t, fmt, (double)ns / 1000.0);
	if (o->j && (key || elem(o)))
		json_i64(o->j, key, ns);
}

void out_us_dbl(struct out *o, const char *key, const char *fmt, double ns)
{
	if (o->t && fmt)
		fprintf(o->t, fmt, ns / 1000.0);
	if (o->j && (key || elem(o)))
		json_double(o->j, key, ns);
}

void out_dbl(struct out *o, const char *key, const char *fmt, double v)
{
	if (o->t && fmt)
		fprintf(o->t, fmt, v);
	if (o->j && (key || elem(o)))
		json_double(o->j, key, v);
}

void out_str(struct out *o, const char *key, const char *fmt, const char *v)
{
	if (o->t && fmt)
		fprintf(o->t, fmt, v);
	if (o->j && (key || elem(o)))
		json_str(o->j, key, v);
}

void out_bool(struct out *o, const char *key, const char *fmt, bool v)
{
	if (o->t && fmt)
		fprintf(o->t, fmt, v ? "true" : "false");
	if (o->j && (key || elem(o)))
		json_bool(o->j, key, v);
}

void out_null(struct out *o, const char *key)
{
	if (o->j && (key || elem(o)))
		json_null(o->j, key);
}

void out_i64_or_null(struct out *o, const char *key, const char *fmt, bool have, int64_t v)
{
	if (have)
		out_i64(o, key, fmt, v);
	else
		out_null(o, key);
}

void out_us_or_null(struct out *o, const char *key, const char *fmt, bool have, int64_t ns)
{
	if (have)
		out_us(o, key, fmt, ns);
	else
		out_null(o, key);
}

void out_dbl_or_null(struct out *o, const char *key, const char *fmt, bool have, double v)
{
	if (have)
		out_dbl(o, key, fmt, v);
	else
		out_null(o, key);
}

void out_str_or_null(struct out *o, const char *key, const char *fmt, const char *v)
{
	if (v)
		out_str(o, key, fmt, v);
	else
		out_null(o, key);
}

void out_obj(struct out *o, const char *key)
{
	if (!o->j)
		return;
	json_obj_begin(o->j, key);
	if (o->j->depth < 32)
		o->in_arr &= ~(1U << o->j->depth);
}

void out_obj_end(struct out *o)
{
	if (o->j)
		json_obj_end(o->j);
}

void out_arr(struct out *o, const char *key)
{
	if (!o->j)
		return;
	json_arr_begin(o->j, key);
	if (o->j->depth < 32)
		o->in_arr |= 1U << o->j->depth;
}

void out_arr_end(struct out *o)
{
	if (!o->j)
		return;
	if (o->j->depth < 32)
		o->in_arr &= ~(1U << o->j->depth);
	json_arr_end(o->j);
}

void out_strs(struct out *o, const char *key, const char *const *v, size_t n)
{
	out_arr(o, key);
	for (size_t i = 0; i < n; i++)
		out_str(o, NULL, NULL, v[i]);
	out_arr_end(o);
}

void out_doc_end(struct out *o)
{
	if (o->j)
		json_end(o->j);
}

void out_text(struct out *o, const char *fmt, ...)
{
	va_list ap;

	if (!o->t)
		return;
	va_start(ap, fmt);
	vfprintf(o->t, fmt, ap);
	va_end(ap);
}

static bool is_stdout(const char *path)
{
	return path && !strcmp(path, "-");
}

FILE *out_text_stream(const char *json_path, const char *log_path, const char *pcap_path)
{
	if (is_stdout(pcap_path) || is_stdout(json_path) || is_stdout(log_path))
		return stderr;
	return stdout;
}
