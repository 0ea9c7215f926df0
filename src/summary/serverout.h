/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The server's side in the summary (--server-pid, --client-pid, rant
 * sockets): its process and namespace, the listener and its queue, the
 * options set on its connections, their TCP_INFO, its writes per
 * response, and the packets' verdict held against them (srvjudge.h).
 * Text and JSON (the "server" object) from one call.
 */
#ifndef RANT_SERVEROUT_H
#define RANT_SERVEROUT_H

#include <stdbool.h>

#include "out.h"
#include "srvjudge.h"
#include "srvview.h"

/* key: "server" or "client"; each: a line per socket as well (rant
 * sockets), not only the sums. j: NULL where there is no verdict. */
void serverout_print(struct out *o, const char *key, const struct srv_view *v,
		     const struct srvjudge *j, bool each);

#endif
