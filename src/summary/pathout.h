/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the path did besides its delays, as the summary prints it (text
 * and JSON from one pass): jitter (IPDV and RFC 3550's, jitter.h) for the
 * round trip and each way, and with --stamp the loss by direction the
 * reflector's numbers or Direct Measurement counters tell (stamppeer.h).
 */
#ifndef RANT_PATHOUT_H
#define RANT_PATHOUT_H

#include "out.h"
#include "snap.h"

void pathout_print(struct out *o, const struct snap *s);

#endif
