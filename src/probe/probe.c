// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The probe (probe.h): which loop. The steps the loops share are
 * prober.c's, below them.
 */
#include "http.h"
#include "measure.h"
#include "probe.h"
#include "syn.h"

int probe_setup(struct run *r)
{
	return r->cfg->syn ? syn_setup(r) : http_setup(r);
}

void probe_teardown(const struct rant_cfg *cfg)
{
	if (cfg->syn)
		syn_teardown();
	else
		http_teardown();
}

int probe_run(struct run *r)
{
	return measure_end(r, r->cfg->syn ? syn_run(r) : http_run(r));
}
