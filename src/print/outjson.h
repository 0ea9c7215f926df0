/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * -j FILE: the summary as one JSON document (doc/output.md; schema/rant.schema.json),
 * written in the summary's one pass beside the text (outputs.h, join).
 */
#ifndef RANT_OUTJSON_H
#define RANT_OUTJSON_H

#include "output.h"

int outjson_join(struct output *o, struct out *pass);

#endif
