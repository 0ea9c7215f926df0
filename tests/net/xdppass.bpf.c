// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * XDP_PASS, for the emitter's end of a veth pair in tests/net/test_xdp.sh
 * and bench/: a veth delivers the frames its peer's program sends back
 * (XDP_TX) only to an end with an XDP program of its own.
 */
#include "vmlinux.h"	/* not <linux/bpf.h>: -target bpf misses <asm/types.h> */
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xdp_pass(struct xdp_md *ctx)
{
	(void)ctx;
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
