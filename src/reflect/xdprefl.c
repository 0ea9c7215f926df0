// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * reflect --xdp: the XDP reflector's loader (xdprefl.h). The program
 * (bpf/xdprefl.bpf.c) comes in the binary through its bpftool skeleton
 * (build/xdprefl.skel.h); its settings go into its read-only data
 * before it is loaded, --allow into its trie, and the clock offset and
 * the Error Estimate into its .bss, which user space maps.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

#include "counts.h"
#include "hostid.h"
#include "missing.h"
#include "run.h"
#include "stampts.h"
#include "timeutil.h"
#include "xdpmap.h"
#include "xdprefl.h"
#include "xdpxsk.h"

#ifdef RANT_HAVE_XDP

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>

#include "xdprefl.skel.h"

struct xdprefl {
	struct xdprefl_bpf *skel;
	int ifindex;
	int link_fd;		/* the attachment: it ends with the process */
	bool driver_t2;
	enum stamp_tsfmt fmt;	/* --stamp-ts */
	int64_t due_ns;		/* the next xdprefl_tick() that reads the clocks */
	struct xdpxsk *xsk;	/* --afxdp's socket and thread */
	char t3[200];		/* where T3 is taken, for the start line */
};

/* CLOCK_REALTIME - CLOCK_TAI (minus adjtimex's tai offset), read
 * between two readings of the one so that a preemption is seen. */
static int64_t real_minus_tai(void)
{
	struct timespec a, t, b;
	int64_t best = 0, gap = INT64_MAX;

	for (int i = 0; i < 5; i++) {
		clock_gettime(CLOCK_REALTIME, &a);
		clock_gettime(CLOCK_TAI, &t);
		clock_gettime(CLOCK_REALTIME, &b);
		if (timespec_to_ns(&b) - timespec_to_ns(&a) < gap) {
			gap = timespec_to_ns(&b) - timespec_to_ns(&a);
			best = (timespec_to_ns(&a) + timespec_to_ns(&b)) / 2 - timespec_to_ns(&t);
		}
	}
	return best;
}

/* The clock's Error Estimate as fmtstamp.c's stamp_clock() makes it. */
static uint16_t clock_ee(enum stamp_tsfmt fmt)
{
	struct timex tx = { 0 };
	int state = adjtimex(&tx);

	return stamp_ee_clock(state, tx.status, tx.maxerror, 0, fmt);
}

void xdprefl_tick(struct xdprefl *x, int64_t now_ns)
{
	if (!x || now_ns < x->due_ns)
		return;
	x->skel->bss->real_off_ns = real_minus_tai();
	x->skel->bss->stamp_ee = clock_ee(x->fmt);
	x->due_ns = now_ns + NS_PER_SEC;
}

static void little_endian64(const uint8_t *p, uint64_t *v)
{
	*v = 0;
	for (int i = 7; i >= 0; i--)
		*v = *v << 8 | p[i];
}

/* The settings of the run into the program's read-only data. */
static void configure(struct xdprefl_bpf *skel, const struct run *r)
{
	const struct rant_cfg *c = r->cfg;
	struct xdprefl_bpf__rodata *ro = skel->rodata;

	ro->cfg_port = (uint16_t)c->port;
	ro->cfg_stamp = c->stamp;
	ro->cfg_stateful = c->stamp_stateful;
	ro->cfg_keyed = c->key_path != NULL;
	ro->cfg_allow = c->allow.n > 0;
	ro->cfg_host_known = r->fmt.host_known;
	little_endian64(r->fmt.host_key, (uint64_t *)&ro->cfg_sip_k0);
	little_endian64(r->fmt.host_key + 8, (uint64_t *)&ro->cfg_sip_k1);
	ro->cfg_warmup = c->warmup;
	ro->cfg_max_rate = c->max_rate;
	ro->cfg_xsk = c->afxdp;
	bpf_map__set_max_entries(skel->maps.sessions, c->max_sessions > XDP_SESSIONS_MIN ?
				 c->max_sessions : XDP_SESSIONS_MIN);
	bpf_map__set_max_entries(skel->maps.sent, c->max_sessions > XDP_SESSIONS_MIN ?
				 c->max_sessions : XDP_SESSIONS_MIN);
}

/* Opened and loaded, bound to the device (so that the program may ask
 * the driver for its RX stamp) when driver_t2. */
static int load(struct xdprefl_bpf **out, const struct run *r, int ifindex, bool driver_t2)
{
	struct xdprefl_bpf *skel = xdprefl_bpf__open();
	int ret;

	if (!skel)
		return -errno;
	configure(skel, r);
	bpf_program__set_autoload(skel->progs.rant_xdp_meta, driver_t2);
	bpf_program__set_autoload(skel->progs.rant_xdp, !driver_t2);
	if (driver_t2) {
		bpf_program__set_ifindex(skel->progs.rant_xdp_meta, (unsigned int)ifindex);
		bpf_program__set_flags(skel->progs.rant_xdp_meta, BPF_F_XDP_DEV_BOUND_ONLY);
	}
	ret = xdprefl_bpf__load(skel);
	if (ret) {
		ret = ret < 0 ? ret : -errno;
		xdprefl_bpf__destroy(skel);
		return ret;
	}
	*out = skel;
	return 0;
}

/* --allow's prefixes into the trie, IPv4 as IPv4-mapped IPv6. */
static int fill_allow(struct xdprefl_bpf *skel, const struct allow_list *l)
{
	int fd = bpf_map__fd(skel->maps.allow);
	uint8_t one = 1;

	for (unsigned int i = 0; i < l->n; i++) {
		const struct allow_prefix *p = &l->p[i];
		struct xdp_akey k = { .prefixlen = p->len };

		if (p->family == AF_INET) {
			k.addr[10] = k.addr[11] = 0xff;
			memcpy(k.addr + 12, p->addr, 4);
			k.prefixlen = 96 + p->len;
		} else {
			memcpy(k.addr, p->addr, 16);
		}
		if (bpf_map_update_elem(fd, &k, &one, BPF_ANY))
			return -errno;
	}
	return 0;
}

/* libbpf's own messages off: the one line rant prints says why. */
static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

/* --afxdp: the socket on queue 0 and its thread, and what T3 is. */
static int afxdp(struct xdprefl *x, const struct run *r, char *err, size_t len)
{
	struct xdpxsk_cfg kc = { .ifindex = x->ifindex, .stamp = r->cfg->stamp,
				 .xsks_fd = bpf_map__fd(x->skel->maps.xsks),
				 .sent_fd = bpf_map__fd(x->skel->maps.sent),
				 .real_off = (const volatile int64_t *)&x->skel->bss->real_off_ns };
	int ret;

	snprintf(x->t3, sizeof(x->t3), "T3 at XDP_TX, before the driver");
	if (!r->cfg->afxdp)
		return 0;
	ret = xdpxsk_start(&x->xsk, &kc, err, len);
	if (ret)
		return ret;
	snprintf(x->t3, sizeof(x->t3), "pongs out of an AF_XDP socket on queue 0 (%s), T3 %s%s",
		 xdpxsk_zerocopy(x->xsk) ? "zero-copy" : "copy mode",
		 !xdpxsk_has_meta(x->xsk) ? "at the hook (this kernel has no TX metadata)" :
		 xdpxsk_zerocopy(x->xsk) ? "the NIC's transmit stamp where the driver fills it" :
		 "the kernel clock as the driver takes the pong (the completion's stamp)",
		 r->cfg->stamp ? ", counted; STAMP's replies carry T3 at the hook" :
		 ", in the next pong's follow-up; else T3 at the hook");
	return 0;
}

const char *xdprefl_t3(const struct xdprefl *x)
{
	return x->t3;
}

int xdprefl_start(struct xdprefl **out, const struct run *r, char *err, size_t len)
{
	LIBBPF_OPTS(bpf_link_create_opts, link_opts, .flags = XDP_FLAGS_DRV_MODE);
	const char *iface = r->cfg->iface;
	struct xdprefl *x;
	int ret;

	*out = NULL;
	if (getenv("RANT_XDP_FAIL")) {	/* tests/net/test_xdp.sh: a planted failure */
		snprintf(err, len, "RANT_XDP_FAIL is set (a test's planted failure)");
		return -ENODEV;
	}
	x = calloc(1, sizeof(*x));
	if (!x) {
		snprintf(err, len, "no memory for the XDP reflector");
		return -ENOMEM;
	}
	if (r->cfg->verbose < 2)
		libbpf_set_print(quiet);
	x->ifindex = (int)if_nametoindex(iface);
	x->fmt = r->cfg->stamp && !strcmp(r->cfg->stamp_ts, "ptp") ? STAMP_PTP : STAMP_NTP;
	if (!x->ifindex) {
		ret = -errno;
		snprintf(err, len, "%s: no such interface (%s)", iface, strerror(-ret));
		goto fail;
	}
	/* bound to the device first (the driver's RX stamp), else unbound */
	x->driver_t2 = true;
	ret = load(&x->skel, r, x->ifindex, true);
	if (ret) {
		x->driver_t2 = false;
		ret = load(&x->skel, r, x->ifindex, false);
	}
	if (ret) {
		snprintf(err, len, "loading the XDP program failed: %s%s", strerror(-ret),
			 ret == -EPERM ? " (run as root, or with CAP_BPF and CAP_NET_ADMIN)" :
			 " (a kernel without BPF, BTF at /sys/kernel/btf/vmlinux or the JIT? rant -vv says more)");
		goto fail;
	}
	ret = fill_allow(x->skel, &r->cfg->allow);
	if (ret) {
		snprintf(err, len, "--allow into the XDP program's trie: %s", strerror(-ret));
		goto fail;
	}
	xdprefl_tick(x, monotonic_ns());
	x->link_fd = bpf_link_create(bpf_program__fd(x->driver_t2 ? x->skel->progs.rant_xdp_meta :
						     x->skel->progs.rant_xdp), x->ifindex,
				     BPF_XDP, &link_opts);
	ret = x->link_fd < 0 ? -errno : 0;
	if (ret) {
		snprintf(err, len, "%s: attaching the XDP program in native mode failed: %s%s", iface,
			 strerror(-ret), ret == -EBUSY || ret == -EEXIST ?
			 " (another XDP program is attached: ip link set dev IFACE xdp off)" :
			 ret == -EOPNOTSUPP ? " (its driver has no native XDP)" : "");
		goto fail;
	}
	ret = afxdp(x, r, err, len);
	if (ret) {
		close(x->link_fd);
		goto fail;
	}
	*out = x;
	return 0;
fail:
	if (x->skel)
		xdprefl_bpf__destroy(x->skel);
	free(x);
	return ret;
}

/* The per-CPU counts into rep, summed into total. */
static void read_counts(struct xdprefl *x, struct xdp_report *rep)
{
	int fd = bpf_map__fd(x->skel->maps.counts), ncpu = libbpf_num_possible_cpus();
	uint64_t *v;

	if (ncpu <= 0)
		return;
	v = calloc((size_t)ncpu, sizeof(*v));
	if (!v)
		return;
	rep->ncpu = ncpu < XDP_CPUS_MAX ? (unsigned int)ncpu : XDP_CPUS_MAX;
	for (uint32_t k = 0; k < XDPC_N; k++) {
		if (bpf_map_lookup_elem(fd, &k, v))
			continue;
		for (int c = 0; c < ncpu; c++) {
			rep->total[k] += v[c];
			if ((unsigned int)c < rep->ncpu)
				rep->per_cpu[c][k] = v[c];
		}
	}
	free(v);
}

void xdprefl_stop(struct xdprefl *x, struct xdp_report *rep, struct counts *cnt)
{
	const uint64_t *t = rep->total;

	if (!x)
		return;
	close(x->link_fd);	/* detached */
	xdpxsk_stop(x->xsk, rep->total);
	read_counts(x, rep);
	rep->attached = true;
	rep->driver_t2 = x->driver_t2;
	/* the run's counts are the socket's and the program's together */
	cnt->received += t[XDPC_MEASURED];
	cnt->sent += t[XDPC_MEASURED];
	cnt->warmup += t[XDPC_WARMUP];
	cnt->fetch += t[XDPC_FETCH];
	cnt->duplicate += t[XDPC_DUPLICATE];
	cnt->not_allowed += t[XDPC_NOT_ALLOWED];
	cnt->looped += t[XDPC_LOOPED];
	cnt->rate_limited += t[XDPC_RATE_LIMITED];
	cnt->sessions += t[XDPC_SESSIONS];
	xdprefl_bpf__destroy(x->skel);
	free(x);
}

#else /* !RANT_HAVE_XDP */

int xdprefl_start(struct xdprefl **out, const struct run *r, char *err, size_t len)
{
	(void)r;
	*out = NULL;
	snprintf(err, len, "this rant was built without XDP (clang's BPF target, bpftool or libbpf-dev were missing: make deps, then make)");
	return -EOPNOTSUPP;
}

void xdprefl_tick(struct xdprefl *x, int64_t now_ns)
{
	(void)x;
	(void)now_ns;
}

const char *xdprefl_t3(const struct xdprefl *x)
{
	(void)x;
	return "";
}

void xdprefl_stop(struct xdprefl *x, struct xdp_report *rep, struct counts *cnt)
{
	(void)x;
	(void)rep;
	(void)cnt;
}

#endif
