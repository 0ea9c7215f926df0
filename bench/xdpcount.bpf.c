// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench/xdp.sh's counter of replies: on the generator's end of the veth,
 * every IPv4 UDP frame from the reflector's port (12345) is counted in
 * the per-CPU array "replies" and dropped; anything else passes. The
 * generator then spends its CPU on sending alone, not on receiving
 * what comes back, so that it can offer more than a reflector answers.
 */
#include "vmlinux.h"
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define ETH_P_IP 0x0800
#define REFLECTOR_PORT 12345

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} replies SEC(".maps");

SEC("xdp")
int xdp_count(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct udphdr *udp = (void *)(ip + 1);
	__u32 k = 0;
	__u64 *n;

	if ((void *)(udp + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP) || ip->ihl != 5 ||
	    ip->protocol != IPPROTO_UDP || udp->source != bpf_htons(REFLECTOR_PORT))
		return XDP_PASS;
	n = bpf_map_lookup_elem(&replies, &k);
	if (n)
		(*n)++;
	return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
