// SPDX-License-Identifier: GPL-2.0-or-later
/* --metrics FILE: the end's exposition (outprom.h). */
#include <errno.h>

#include "outprom.h"
#include "prom.h"
#include "snap.h"

int outprom_write(struct output *o, const struct output_src *src)
{
	FILE *f = outfile_stream(&o->f);
	struct prom_ladder l;
	char msg[256];
	int ret;

	if (!f)
		return -(errno ? errno : EIO);
	ret = prom_ladder_parse(&l, prom_buckets(src->snap->cfg), msg, sizeof(msg));
	return ret ? ret : prom_render(f, src->snap, &l);
}
