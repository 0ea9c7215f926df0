/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * -j FILE: the summary as one JSON document (rant.8, JSON OUTPUT),
 * written in the summary's one pass beside the text (outputs.h, join).
 */
#ifndef RANT_OUTJSON_H
#define RANT_OUTJSON_H

#include "output.h"

int outjson_join(struct output *o, struct out *pass);

#endif
