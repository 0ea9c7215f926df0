// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The table of message formats (see msgfmt.h): a new format is one file
 * and one row here.
 */
#include <string.h>

#include "msgfmt.h"

extern const struct msgfmt msgfmt_ptp;
extern const struct msgfmt msgfmt_stamp;

static const struct msgfmt *const table[] = {
	&msgfmt_rant,		/* the default: wire.c */
	&msgfmt_ptp,		/* --ptp-mode: ptp.c */
	&msgfmt_stamp,		/* --stamp: fmtstamp.c */
};

#define NFORMATS (sizeof(table) / sizeof(table[0]))

const struct msgfmt *msgfmt_find(const char *name)
{
	if (!name)
		return table[0];
	for (size_t i = 0; i < NFORMATS; i++)
		if (!strcmp(table[i]->name, name))
			return table[i];
	return NULL;
}

const struct msgfmt *msgfmt_nth(size_t i)
{
	return i < NFORMATS ? table[i] : NULL;
}

int msgfmt_init(struct msgfmt_ctx *ctx, const struct msgfmt *f,
		const struct msgfmt_side *side, char *err, size_t len)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->f = f;
	ctx->reply_tos = -1;
	ctx->emit = side->emit;
	ctx->mac = side->mac;
	ctx->host_known = side->host_key != NULL;
	if (side->host_key)
		memcpy(ctx->host_key, side->host_key, sizeof(ctx->host_key));
	return f->init ? f->init(ctx, side, err, len) : 0;
}

void msgfmt_fini(struct msgfmt_ctx *ctx)
{
	if (ctx->f && ctx->f->fini)
		ctx->f->fini(ctx);
	ctx->f = NULL;
}

const char *msgfmt_strerror(int err)
{
	static const char *const names[MSG_NERR] = {
		[MSG_OK] = "ok",
		[MSG_ESHORT] = "short",
		[MSG_EMAGIC] = "magic",
		[MSG_EVERSION] = "version",
		[MSG_ETYPE] = "type",
		[MSG_ELEN] = "length",
	};

	/* No negation before the range check: -INT_MIN overflows. */
	if (err <= -MSG_NERR || err >= MSG_NERR)
		return "unknown";
	return names[err < 0 ? -err : err];
}

const char *msgfmt_ts_name(enum msgfmt_ts ts)
{
	switch (ts) {
	case MSGFMT_TS_NS64:
		return "ns64";
	case MSGFMT_TS_NTP64:
		return "ntp64";
	case MSGFMT_TS_PTP64:
		return "ptp64";
	}
	return "unknown";
}
