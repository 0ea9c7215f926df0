// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The probe (probe.h): which loop. The steps the loops share are
 * prober.c's, below them.
 */
#include "http.h"
#include "icmp.h"
#include "measure.h"
#include "probe.h"
#include "probesrv.h"
#include "syn.h"

int probe_setup(struct run *r)
{
	int ret = r->cfg->icmp ? icmp_setup(r) : r->cfg->syn ? syn_setup(r) : http_setup(r);

	return ret ? ret : probesrv_open(r);
}

void probe_teardown(struct run *r)
{
	probesrv_close(r);
	if (r->cfg->icmp)
		icmp_teardown();
	else if (r->cfg->syn)
		syn_teardown();
	else
		http_teardown();
}

int probe_run(struct run *r)
{
	int ret = r->cfg->icmp ? icmp_run(r) : r->cfg->syn ? syn_run(r) : http_run(r);

	probesrv_read(r);	/* the connections are still open */
	return measure_end(r, ret);
}
