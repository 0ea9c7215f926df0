// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The transport a run asks for (see transport.h).
 */
#include "transport.h"

const struct transport *transport_for(const struct rant_cfg *cfg)
{
	if (cfg->icmp)
		return &transport_icmp;
	if (cfg->syn)
		return &transport_syn;
	if (cfg_requests(cfg))
		return &transport_conn;
	return cfg->tcp ? &transport_tcp : &transport_udp;
}
