// SPDX-License-Identifier: GPL-2.0-or-later
/* --read/--watch's Prometheus exposition (watchprom.h). */
#include <errno.h>
#include <inttypes.h>

#include "snap.h"
#include "watchprom.h"

#ifndef RANT_VERSION
#define RANT_VERSION "unknown"
#endif

/* interface="eth0" (or file="x.pcap"), and the port's label. */
static void own(FILE *f, const struct watch_report *r)
{
	fprintf(f, "%s=\"", r->live ? "interface" : "file");
	prom_label_value(f, r->live ? r->iface : r->path);
	fputc('"', f);
}

static void port_label(FILE *f, const struct watch_port *p)
{
	if (p->other)
		fprintf(f, ",port=\"other\"");
	else
		fprintf(f, ",port=\"%u\"", (unsigned int)p->port);
}

static void put_info(FILE *f, const struct watch_report *r)
{
	prom_family(f, "rant_info", "gauge", "What this rant measures (always 1).");
	fprintf(f, "rant_info{version=\"");
	prom_label_value(f, RANT_VERSION);
	fprintf(f, "\",mode=\"%s\",", r->live ? "watch" : "read");
	own(f, r);
	fprintf(f, "} 1\n");
}

static void put_packets(FILE *f, const struct watch_report *r)
{
	const struct watch_counts *k = &r->cnt;

	prom_family(f, "rant_watch_packets_total", "counter",
		    "Packets read, by what they were (tcp, not_ip, not_tcp, fragment, cut, bad).");
	for (int v = 0; v < PKT_VERDICTS; v++) {
		fprintf(f, "rant_watch_packets_total{");
		own(f, r);
		fprintf(f, ",kind=\"%s\"} %" PRIu64 "\n", pktparse_verdict_name(v), k->verdict[v]);
	}
	prom_family(f, "rant_watch_flows_active", "gauge", "TCP flows tracked now.");
	fprintf(f, "rant_watch_flows_active{");
	own(f, r);
	fprintf(f, "} %" PRIu64 "\n", k->flows_active);
	if (!r->live)
		return;
	prom_family(f, "rant_watch_drops_total", "counter",
		    "Packets the capture lost: the kernel's buffer full (kernel), the interface's.");
	fprintf(f, "rant_watch_drops_total{");
	own(f, r);
	fprintf(f, ",where=\"kernel\"} %" PRIu64 "\n", k->dropped);
	fprintf(f, "rant_watch_drops_total{");
	own(f, r);
	fprintf(f, ",where=\"interface\"} %" PRIu64 "\n", k->if_dropped);
}

/* One counter of each port: the port's field at off. */
static void put_port_counter(FILE *f, const struct watch_report *r, size_t n, const char *name,
			     const char *help, size_t off)
{
	prom_family(f, name, "counter", help);
	for (size_t i = 0; i < n; i++) {
		const struct watch_port *p = &r->ports[i];

		fprintf(f, "%s{", name);
		own(f, r);
		port_label(f, p);
		fprintf(f, "} %" PRIu64 "\n", *(const uint64_t *)((const char *)p + off));
	}
}

static void put_held(FILE *f, const struct watch_report *r, size_t n)
{
	prom_family(f, "rant_watch_held_exchanges_total", "counter",
		    "Exchanges of a server port held most by kind (nagle_delayed_ack, ...).");
	for (size_t i = 0; i < n; i++) {
		const struct watch_port *p = &r->ports[i];

		for (int k = 1; k < TCPANA_KINDS; k++) {
			fprintf(f, "rant_watch_held_exchanges_total{");
			own(f, r);
			port_label(f, p);
			fprintf(f, ",kind=\"%s\"} %" PRIu64 "\n", tcpana_kind_name(k), p->held[k]);
		}
	}
}

static void put_hists(FILE *f, const struct watch_report *r, size_t n,
		      const struct prom_ladder *l)
{
	prom_family(f, "rant_latency_seconds", "histogram",
		    "Latency of each metric of a server port's flows (metric: exchange, "
		    "first_byte, rtt_client, rtt_server, handshake), seconds.");
	for (size_t i = 0; i < n; i++) {
		const struct watch_port *p = &r->ports[i];

		for (int m = 0; m < WM_COUNT; m++) {
			char labels[PROM_LABELS_MAX] = "";
			struct snap_stats st;
			FILE *lf;

			if (snap_stats_fill(&st, p->h[m], watch_metric_keys[m], NULL, NULL))
				return;
			lf = fmemopen(labels, sizeof(labels) - 1, "w");
			if (lf) {
				fprintf(lf, "metric=\"%s\",", watch_metric_keys[m]);
				own(lf, r);
				port_label(lf, p);
				fclose(lf);
				prom_hist(f, labels, &st, l);
			}
			snap_stats_free(&st);
		}
	}
}

int watchprom_render(FILE *f, const struct rant_cfg *c, const struct watch_report *r,
		     const struct prom_ladder *l)
{
	size_t n = atomic_load_explicit(&r->nports, memory_order_acquire);

	(void)c;
	put_info(f, r);
	put_packets(f, r);
	put_port_counter(f, r, n, "rant_watch_flows_total", "TCP flows to a server port.",
			 offsetof(struct watch_port, flows));
	put_port_counter(f, r, n, "rant_watch_exchanges_total",
			 "Exchanges (a request and its response) of a server port's flows.",
			 offsetof(struct watch_port, exchanges));
	put_port_counter(f, r, n, "rant_watch_retransmits_total",
			 "Segments of a server port's flows sent again.",
			 offsetof(struct watch_port, retransmits));
	put_held(f, r, n);
	put_hists(f, r, n, l);
	if (fflush(f) || ferror(f))
		return -(errno ? errno : EIO);
	return 0;
}
