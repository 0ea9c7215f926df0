// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The end of a run (report.h): the outputs streamed during it are
 * drained, the snapshot taken, the breaches' breakdowns printed from it,
 * the summary printed in one pass to the text and to the outputs that
 * join it, then each output written and committed (outputs.h).
 */
#include <errno.h>
#include <string.h>

#include "breach.h"
#include "measure.h"
#include "metrics.h"
#include "output.h"
#include "pairdiag.h"
#include "report.h"
#include "snap.h"
#include "summary.h"

int report_end(struct run *r)
{
	struct output_src src = { .log = r->log };
	struct out pass = { .t = r->text };
	int ret, err, cap_err = 0;
	struct snap *s;

	metrics_stop(r->metrics);	/* its last file before the end's */
	r->metrics = NULL;
	measure_log_format(r, &src.log_fmt);
	/* The log first, so that the summary's counts of it are final. */
	err = output_drain(r->out, &src);
	if (r->capture)
		cap_err = capture_stop(r->capture);	/* the last packet has passed */
	pairdiag_stop(r->pair, &r->diag);	/* --tcp: what the packets said */
	bkeep_sort(r->breach, r->nbreach);	/* largest first, for the text and the JSON */
	s = snap_build(r, SNAP_FINAL);
	if (!s) {
		fprintf(stderr, "rant: no memory for the summary: %s\n", strerror(errno));
		output_abort(r->out);
		return -ENOMEM;
	}
	breach_report(r->text, s);	/* -t: each breach's breakdown */
	src.snap = s;
	ret = output_join(r->out, &pass);
	summary_print(&pass, s);
	fflush(pass.t);
	if (!ret)
		ret = output_finish(r->out, &src);
	snap_free(s);
	if (!ret)
		ret = err;
	return ret ? ret : cap_err;
}
