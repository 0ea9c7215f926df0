// SPDX-License-Identifier: GPL-2.0-or-later
/* The output files of a run, whatever their rows (output.h). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "output.h"

static const char *path_of(const struct output_def *d, const struct rant_cfg *c)
{
	return *(const char *const *)((const char *)c + d->path_off);
}

int output_open(struct output *outs, const struct output_def *rows, size_t n,
		const struct rant_cfg *c)
{
	const char *targets[OUTPUTS_MAX] = { 0 };
	char msg[512];
	size_t i;
	int ret;

	if (n > OUTPUTS_MAX)
		return -E2BIG;
	for (i = 0; i < n; i++)
		targets[i] = path_of(&rows[i], c);
	/* Left by a rant killed while writing: say so, remove nothing. */
	outfile_report_stale(targets, n, stderr);
	for (i = 0; i < n; i++) {
		if (!targets[i])
			continue;
		ret = outfile_open(&outs[i].f, targets[i], c->follow_links ? OUTFILE_FOLLOW : 0,
				   msg, sizeof(msg));
		if (ret) {
			fprintf(stderr, "rant: %s: %s\n", rows[i].opt, msg);
			return ret;
		}
		outs[i].def = &rows[i];
		outs[i].path = targets[i];
	}
	return 0;
}

const struct output *output_get(const struct output *outs, const char *opt)
{
	for (size_t i = 0; i < OUTPUTS_MAX; i++)
		if (outs[i].def && !strcmp(outs[i].def->opt, opt))
			return &outs[i];
	return NULL;
}

int output_publish(struct output *outs, const char *opt)
{
	struct output *o = (struct output *)output_get(outs, opt);
	char msg[512];
	int ret;

	if (!o)
		return 0;
	ret = outfile_publish(&o->f, msg, sizeof(msg));
	if (ret)
		fprintf(stderr, "rant: %s: %s\n", opt, msg);
	return ret;
}

int output_reopen(struct output *outs, const char *opt, bool *had_data)
{
	struct output *o = (struct output *)output_get(outs, opt);
	char msg[512];
	int ret;

	*had_data = true;
	if (!o)
		return -ENOENT;
	ret = outfile_reopen(&o->f, had_data, msg, sizeof(msg));
	if (ret)
		fprintf(stderr, "rant: SIGHUP: %s: %s: the %s goes on in the file it was writing\n",
			opt, msg, o->def->name);
	return o->f.fd;
}

/* A failed output: its line, once. */
static int failed(const struct output *o, int err)
{
	fprintf(stderr, "rant: writing the %s %s failed: %s (%s)\n", o->def->name, o->path,
		strerror(-err), o->f.in_place ? "it holds what was written before" :
		"nothing was written");
	return err;
}

int output_drain(struct output *outs, const struct output_src *src)
{
	int ret, first = 0;

	for (size_t i = 0; i < OUTPUTS_MAX; i++) {
		struct output *o = &outs[i];

		if (!o->def || !o->def->drain)
			continue;
		ret = o->def->drain(o, src);
		if (!ret)
			ret = outfile_commit(&o->f);	/* so the summary's counts are final */
		if (ret && !first)
			first = failed(o, ret);
	}
	return first;
}

int output_join(struct output *outs, struct out *pass)
{
	int ret, first = 0;

	for (size_t i = 0; i < OUTPUTS_MAX; i++) {
		struct output *o = &outs[i];

		if (!o->def || !o->def->join)
			continue;
		ret = o->def->join(o, pass);
		if (ret && !first)
			first = failed(o, ret);
	}
	return first;
}

int output_finish(struct output *outs, const struct output_src *src)
{
	int ret, first = 0;

	for (size_t i = 0; i < OUTPUTS_MAX; i++) {
		struct output *o = &outs[i];

		if (!o->def || o->def->drain)
			continue;	/* not asked for, or committed by the drain */
		ret = o->def->write ? o->def->write(o, src) : 0;
		if (!ret)
			ret = outfile_commit(&o->f);
		if (ret && !first)
			first = failed(o, ret);
	}
	return first;
}

void output_abort(struct output *outs)
{
	for (size_t i = 0; i < OUTPUTS_MAX; i++)
		if (outs[i].f.path)
			outfile_abort(&outs[i].f);
}
