// SPDX-License-Identifier: GPL-2.0-or-later
/* The reflector's side as it reported it (peerout.h). */
#include <inttypes.h>

#include "peerout.h"
#include "statout.h"

void peerout_print(struct out *o, const struct snap *s)
{
	const struct msg_report *p = &s->peer_report;
	char q[32];
	bool lossy;

	if (!s->have_peer_report)
		return;
	out_obj(o, "reflector_report");
	out_bool(o, "reported", NULL, p->have);
	if (!p->have)
		out_text(o, "reflector's side: not reported (a reflector older than this rant, or no pong of %d bytes or more came back)\n",
			 s->cfg->key_path ? 120 : 104);
	lossy = p->have && (s->cnt.lost || p->send_errors || p->qdisc_drops);
	if (lossy)
		out_text(o, "reflector's side: of the %" PRIu64 " lost pongs, ", s->cnt.lost);
	else if (p->have)
		out_text(o, "reflector's side: no pong refused or dropped");
	out_u64(o, "send_errors", lossy ? "its sends failed for %" PRIu64 " (send errors: a full qdisc refuses at enqueue)" : NULL,
		p->send_errors);
	out_u64(o, "qdisc_drops", lossy ? " and its qdisc dropped %" PRIu64 " it had taken" : NULL,
		p->qdisc_drops);
	out_i64(o, "queue_max_ns", NULL, p->queue_max_ns);
	if (p->have && p->queue_max_ns)
		out_text(o, "; it held pongs in its qdisc up to %s (reflect_queue's max)",
			 statout_human_ns(p->queue_max_ns, q, sizeof(q)));
	if (p->have)
		out_text(o, "\n");
	out_obj_end(o);
}
