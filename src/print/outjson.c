// SPDX-License-Identifier: GPL-2.0-or-later
/* -j FILE: the JSON document (outjson.h). */
#include <errno.h>

#include "outjson.h"

int outjson_join(struct output *o, struct out *pass)
{
	FILE *f = outfile_stream(&o->f);

	if (!f)
		return -(errno ? errno : EIO);
	json_init(&o->json, f);
	pass->j = &o->json;
	return 0;
}
