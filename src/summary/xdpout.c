// SPDX-License-Identifier: GPL-2.0-or-later
/* reflect --xdp's report (xdpout.h). */
#include <inttypes.h>

#include "xdpmap.h"
#include "xdpout.h"

/* The counters, with their names, as one JSON object; text after lead
 * (NULL: JSON only). */
static void print_set(struct out *o, const char *key, const uint64_t *v, const char *lead)
{
	char fmt[48];

	out_obj(o, key);
	if (lead)
		out_text(o, "%s", lead);
	for (unsigned int i = 0; i < XDPC_N; i++) {
		snprintf(fmt, sizeof(fmt), "%s%s %%" PRIu64, i ? ", " : "", xdp_count_name(i));
		out_u64(o, xdp_count_name(i), lead ? fmt : NULL, v[i]);
	}
	if (lead)
		out_text(o, "\n");
	out_obj_end(o);
}

void xdpout_print(struct out *o, const struct xdp_report *x)
{
	char lead[24];

	if (!x)
		return;
	out_obj(o, "xdp");
	out_bool(o, "attached", x->attached ? "xdp: answered in the driver (XDP_TX)" :
		 "xdp: not attached", x->attached);
	out_bool(o, "driver_t2", x->attached ? (x->driver_t2 ?
		 ", T2 asked of the driver" : ", T2 the kernel clock at the hook") : NULL,
		 x->driver_t2);
	out_str(o, "note", ": %s\n", x->note);
	if (x->attached) {
		print_set(o, "counts", x->total, "  in all: ");
		out_arr(o, "per_cpu");
		for (unsigned int c = 0; c < x->ncpu; c++) {
			snprintf(lead, sizeof(lead), "  cpu %u: ", c);
			print_set(o, NULL, x->per_cpu[c], lead);
		}
		out_arr_end(o);
	}
	out_obj_end(o);
}
