// SPDX-License-Identifier: GPL-2.0-or-later
/* The output files of a run, one row each (outputs.h). */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "outjson.h"
#include "outprom.h"
#include "outputs.h"

/* -l: the transaction log, streamed by its writer thread during the run. */
static int log_drain(struct output *o, const struct output_src *src)
{
	(void)o;
	return src->log ? txlog_finish(src->log, &src->log_fmt) : 0;
}

const struct output_def outputs_table[] = {
	{ "log", "-l", offsetof(struct rant_cfg, log_path), log_drain, NULL, NULL },
	{ "JSON", "-j", offsetof(struct rant_cfg, json_path), NULL, outjson_join, NULL },
	{ "metrics", "--metrics", offsetof(struct rant_cfg, metrics_path), NULL, NULL, outprom_write },
};
const size_t outputs_count = sizeof(outputs_table) / sizeof(outputs_table[0]);

_Static_assert(sizeof(outputs_table) / sizeof(outputs_table[0]) <= OUTPUTS_MAX,
	       "OUTPUTS_MAX below the rows of outputs_table");

static const char *path_of(const struct output_def *d, const struct rant_cfg *c)
{
	return *(const char *const *)((const char *)c + d->path_off);
}

int outputs_open(struct output *outs, const struct rant_cfg *c)
{
	const char *targets[OUTPUTS_MAX];
	char msg[512];
	size_t i;
	int ret;

	for (i = 0; i < outputs_count; i++)
		targets[i] = path_of(&outputs_table[i], c);
	/* Left by a rant killed while writing: say so, remove nothing. */
	outfile_report_stale(targets, outputs_count, stderr);
	for (i = 0; i < outputs_count; i++) {
		if (!targets[i])
			continue;
		ret = outfile_open(&outs[i].f, targets[i], c->follow_links ? OUTFILE_FOLLOW : 0,
				   msg, sizeof(msg));
		if (ret) {
			fprintf(stderr, "rant: %s: %s\n", outputs_table[i].opt, msg);
			return ret;
		}
		outs[i].def = &outputs_table[i];
		outs[i].path = targets[i];
	}
	return 0;
}

const struct output *outputs_get(const struct output *outs, const char *opt)
{
	for (size_t i = 0; i < outputs_count; i++)
		if (outs[i].def && !strcmp(outs[i].def->opt, opt))
			return &outs[i];
	return NULL;
}

int outputs_reopen(struct output *outs, const char *opt, const struct rant_cfg *c)
{
	struct output *o = (struct output *)outputs_get(outs, opt);
	char msg[512];
	int ret;

	if (!o)
		return -ENOENT;
	if (o->f.direct || !o->f.tmp)
		return o->f.fd;
	ret = outfile_commit(&o->f);
	if (ret) {
		fprintf(stderr, "rant: SIGHUP: closing the %s %s failed: %s: the log stops here\n",
			o->def->name, o->path, strerror(-ret));
		return ret;
	}
	ret = outfile_open(&o->f, o->path, c->follow_links ? OUTFILE_FOLLOW : 0, msg, sizeof(msg));
	if (ret) {
		fprintf(stderr, "rant: SIGHUP: %s: %s: the log stops here\n", opt, msg);
		return ret;
	}
	return o->f.fd;
}

/* A failed output: its line, once. */
static int failed(const struct output *o, int err)
{
	fprintf(stderr, "rant: writing the %s %s failed: %s (nothing was written)\n",
		o->def->name, o->path, strerror(-err));
	return err;
}

int outputs_drain(struct output *outs, const struct output_src *src)
{
	int ret, first = 0;

	for (size_t i = 0; i < outputs_count; i++) {
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

int outputs_join(struct output *outs, struct out *pass)
{
	int ret, first = 0;

	for (size_t i = 0; i < outputs_count; i++) {
		struct output *o = &outs[i];

		if (!o->def || !o->def->join)
			continue;
		ret = o->def->join(o, pass);
		if (ret && !first)
			first = failed(o, ret);
	}
	return first;
}

int outputs_finish(struct output *outs, const struct output_src *src)
{
	int ret, first = 0;

	for (size_t i = 0; i < outputs_count; i++) {
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

void outputs_abort(struct output *outs)
{
	for (size_t i = 0; i < outputs_count; i++)
		if (outs[i].f.path)
			outfile_abort(&outs[i].f);
}
