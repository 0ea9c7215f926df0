/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fallback definitions for kernel constants newer than some headers rant may
 * be built against (the linuxptp missing.h approach). Values are the
 * kernel's ABI and never change once released.
 */
#ifndef RANT_MISSING_H
#define RANT_MISSING_H

#include <linux/net_tstamp.h>
#include <linux/errqueue.h>
#include <sys/socket.h>

#ifndef SO_TIMESTAMPING
#define SO_TIMESTAMPING 37
#endif
#ifndef SCM_TIMESTAMPING
#define SCM_TIMESTAMPING SO_TIMESTAMPING
#endif
#ifndef SO_BUSY_POLL
#define SO_BUSY_POLL 46
#endif
#ifndef SO_PREFER_BUSY_POLL
#define SO_PREFER_BUSY_POLL 69
#endif
#ifndef SO_BUSY_POLL_BUDGET
#define SO_BUSY_POLL_BUDGET 70
#endif
#ifndef SO_RXQ_OVFL
#define SO_RXQ_OVFL 40
#endif
#ifndef SO_MEMINFO
#define SO_MEMINFO 55
#endif
#ifndef SO_EE_ORIGIN_TIMESTAMPING
#define SO_EE_ORIGIN_TIMESTAMPING 4
#endif
#ifndef SCM_TSTAMP_SND
#define SCM_TSTAMP_SND 0
#endif
#ifndef SOF_TIMESTAMPING_OPT_TSONLY
#define SOF_TIMESTAMPING_OPT_TSONLY (1 << 11)
#endif
#ifndef HWTSTAMP_TX_ON
#define HWTSTAMP_TX_ON 1
#endif
#ifndef HWTSTAMP_FILTER_ALL
#define HWTSTAMP_FILTER_ALL 1
#endif

/* linux/bpf.h of 6.3: a program bound to its device (reflect --xdp asks
 * the driver for its RX stamp through the XDP metadata kfuncs) */
#ifndef BPF_F_XDP_DEV_BOUND_ONLY
#define BPF_F_XDP_DEV_BOUND_ONLY (1U << 6)
#endif

#endif
