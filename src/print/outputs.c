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
