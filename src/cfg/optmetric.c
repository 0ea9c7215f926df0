// SPDX-License-Identifier: GPL-2.0-or-later
/* The options that name a metric, checked (optmetric.h). */
#include <stdio.h>
#include <string.h>

#include "metric.h"
#include "optmetric.h"

/* --threshold-metric: a metric this run measures, one transaction at a
 * time (a handshake's connect is not one). */
int optmetric_check(struct rant_cfg *c, FILE *err)
{
	char have[320];
	size_t n = 0;
	int m;

	for (m = 0; m < M_COUNT && strcmp(metric_defs[m].name, c->threshold_metric); m++)
		;
	if (m < M_COUNT && metric_in_run(c, m) && metric_of_record(m)) {
		c->threshold_metric_id = m;
		return 0;
	}
	if (m < M_COUNT && metric_defs[m].sw && !c->sw) {
		fprintf(err, "rant: --threshold-metric %s needs the user-space stamps: add -s\n",
			c->threshold_metric);
		return -1;
	}
	have[0] = '\0';
	for (int k = 0; k < M_COUNT; k++)
		if (metric_in_run(c, k) && metric_of_record(k) && n < sizeof(have))
			n += (size_t)snprintf(have + n, sizeof(have) - n, "%s%s", n ? ", " : "",
					      metric_defs[k].name);
	fprintf(err, "rant: --threshold-metric %s: %s; this run measures %s\n",
		c->threshold_metric, m < M_COUNT ? "not measured by this run" : "no such metric",
		have);
	return -1;
}
