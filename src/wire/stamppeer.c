// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a STAMP Session-Reflector says of itself (stamppeer.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "stamp.h"
#include "stamppeer.h"

/* RFC 8972 §5.1's names of the TLV types, as the JSON spells them. */
static const char *tlv_name(unsigned int type, char *buf, size_t len)
{
	static const char *const names[] = {
		[STAMP_TLV_PADDING] = "extra_padding",
		[STAMP_TLV_LOCATION] = "location",
		[STAMP_TLV_TSINFO] = "timestamp_information",
		[STAMP_TLV_COS] = "class_of_service",
		[STAMP_TLV_DIRECT] = "direct_measurement",
		[STAMP_TLV_ACCESS] = "access_report",
		[STAMP_TLV_FOLLOWUP] = "follow_up_telemetry",
		[STAMP_TLV_HMAC] = "hmac",
	};

	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	snprintf(buf, len, type < 31 ? "type_%u" : "type_%u_or_above", type);
	return buf;
}

/* RFC 8972 §5.4 and §5.5. */
static const char *sync_name(uint8_t s)
{
	static const char *const names[] = { "not_reported", "ntp", "ptp", "ssu_bits", "gnss",
					     "local" };

	return s < sizeof(names) / sizeof(names[0]) ? names[s] : "unassigned";
}

static const char *method_name(uint8_t m)
{
	static const char *const names[] = { "not_reported", "hw_assist", "sw_local",
					     "control_plane" };

	return m < sizeof(names) / sizeof(names[0]) ? names[m] : "unassigned";
}

/* A TLV mask as a JSON array of names and as " name name" (or " none"). */
static void print_tlvs(struct out *o, const char *key, const char *label, uint32_t mask)
{
	char buf[32];

	out_text(o, "%s", label);
	if (!mask)
		out_text(o, " none");
	out_arr(o, key);
	for (unsigned int t = 0; t < 32; t++)
		if (mask & 1u << t)
			out_str(o, NULL, " %s", tlv_name(t, buf, sizeof(buf)));
	out_arr_end(o);
}

/* The Error Estimate: S, scale, multiplier and the error they state. */
static void print_ee(struct out *o, uint16_t ee)
{
	int64_t err = stamp_ee_err_ns(ee);
	unsigned int scale = ee >> 8 & 63, mult = ee & 255;

	out_bool(o, "synchronized", NULL, stamp_ee_synced(ee));
	out_text(o, "clock %s", stamp_ee_synced(ee) ? "synchronized (S set)" :
		 "not synchronized (S clear)");
	out_obj(o, "error_estimate");
	out_u64(o, "scale", NULL, scale);
	out_u64(o, "multiplier", NULL, mult);
	if (err < 0)
		out_text(o, ", error estimate invalid (multiplier 0, which RFC 4656 forbids)");
	else if (ee == stamp_ee_make(stamp_ee_synced(ee), stamp_ee_fmt(ee), -1))
		out_text(o, ", error unknown (the largest estimate)");
	else
		out_text(o, ", error %" PRId64 " ns or less (scale %u, multiplier %u)", err, scale,
			 mult);
	out_i64_or_null(o, "error_ns", NULL, err >= 0, err);
	out_obj_end(o);
}

/* Timestamp Information: how T2 and T3 were taken, by what clock. */
static void print_tsinfo(struct out *o, const struct msg_peer *pe)
{
	if (!pe->have_tsinfo) {
		out_null(o, "timestamp_information");
		return;
	}
	out_obj(o, "timestamp_information");
	out_str(o, "t2_method", "; T2 %s", method_name(pe->tsinfo[1]));
	out_str(o, "t2_sync", " (clock: %s)", sync_name(pe->tsinfo[0]));
	out_str(o, "t3_method", ", T3 %s", method_name(pe->tsinfo[3]));
	out_str(o, "t3_sync", " (clock: %s)", sync_name(pe->tsinfo[2]));
	out_obj_end(o);
}

/* Class of Service: the DSCP and ECN the ping arrived with, and whether
 * the reply left with the DSCP asked for (RP 0). */
static void print_cos(struct out *o, const struct msg_peer *pe)
{
	if (!pe->have_cos) {
		out_null(o, "class_of_service");
		return;
	}
	out_obj(o, "class_of_service");
	out_u64(o, "dscp_arrived", "; DSCP %" PRIu64, pe->cos[0]);
	out_u64(o, "ecn_arrived", " ECN %" PRIu64 " on arrival", pe->cos[1]);
	out_bool(o, "reply_dscp_as_asked", pe->cos[2] ? ", the reply's DSCP not as asked (RP 1)" :
		 ", the reply's DSCP as asked", !pe->cos[2]);
	out_obj_end(o);
}

static void print_one(struct out *o, const struct msg_peer *pe)
{
	struct out jo = out_json_only(o);

	out_str(o, "timestamp_format", "%s timestamps, ",
		stamp_ee_fmt(pe->ee) == STAMP_PTP ? "ptp" : "ntp");
	print_ee(o, pe->ee);
	out_u64(o, "ssid", pe->ssid ? "; SSID %" PRIu64 " returned" :
		"; SSID 0 returned (a reflector without RFC 8972)", pe->ssid);
	out_u64(o, "ttl", "; TTL %" PRIu64 " on arrival", pe->ttl);
	print_tlvs(o, "tlvs_returned", "; TLVs returned:", pe->tlv_seen);
	print_tlvs(o, "tlvs_understood", ", understood:", pe->tlv_understood);
	print_tlvs(o, "tlvs_unrecognized", ", not (U):", pe->tlv_unknown);
	if (pe->tlv_malformed)
		print_tlvs(o, "tlvs_malformed", ", malformed (M):", pe->tlv_malformed);
	else
		print_tlvs(&jo, "tlvs_malformed", "", 0);
	out_bool(o, "tlv_integrity_failed", pe->tlv_integrity ?
		 ", failing their HMAC (I)" : NULL, pe->tlv_integrity);
	print_tsinfo(o, pe);
	print_cos(o, pe);
	out_text(o, "\n");
}

void stamppeer_print(struct out *o, const struct stamppeer *sp)
{
	if (!sp->replies)
		return;
	out_obj(o, "stamp_peer");
	out_text(o, "stamp peer: ");
	print_one(o, &sp->first);
	out_u64(o, "replies", NULL, sp->replies);
	out_u64(o, "follow_ups", NULL, sp->followups);
	out_u64(o, "changes", NULL, sp->changes);
	if (sp->changes) {
		out_u64(o, "last_change_seq", "stamp peer, changed %" PRIu64 " times,",
			sp->changes);
		out_text(o, " last at seq %" PRIu64 ": ", sp->changed_seq);
		out_obj(o, "last");
		print_one(o, &sp->last);
		out_obj_end(o);
	}
	out_obj_end(o);
}

/* The suffix of a stamp its Timestamp Information took by tsinfo[i]. */
static const char *suffix_of(const struct stamppeer *sp, int i)
{
	if (!sp->replies || !sp->first.have_tsinfo)
		return "_PEER";
	switch (sp->first.tsinfo[i]) {
	case STAMP_METHOD_HW:
		return "_PEER_HW";
	case STAMP_METHOD_SW:
		return "_PEER_SW";
	default:
		return "_PEER";
	}
}

const char *stamppeer_suffix(const struct stamppeer *sp)
{
	return suffix_of(sp, 1);
}

bool stamppeer_t3_own(const struct stamppeer *sp)
{
	return (sp->replies && !(sp->first.tlv_understood & STAMP_TLV_BIT(STAMP_TLV_FOLLOWUP))) ||
	       stamppeer_stateless(sp);
}

const char *stamppeer_suffix_t3(const struct stamppeer *sp)
{
	return suffix_of(sp, stamppeer_t3_own(sp) ? 3 : 1);
}

void stamppeer_warn(struct warnings *ws, FILE *f, const struct stamppeer *sp, bool one_way)
{
	const struct msg_peer *pe = &sp->first;
	uint32_t fu = STAMP_TLV_BIT(STAMP_TLV_FOLLOWUP);

	if (!sp->replies)
		return;
	if (one_way && !stamp_ee_synced(pe->ee))
		warn_add(ws, f, "stamp_peer_unsynced",
			 "synchronize the reflector's clock (NTP or PTP) and check that it reports S, or measure without --one-way",
			 "--one-way: the STAMP reflector says its clock is not synchronized (S clear in its Error Estimate): one-way delays compare two clocks that need not agree");
	if (stamppeer_stateless(sp) && strcmp(stamppeer_suffix_t3(sp), "_PEER_HW"))
		warn_add(ws, f, "stamp_peer_stateless",
			 "run the reflector stateful (rant: --stamp-stateful), so that its Follow-Up Telemetry brings each reply's wire T3",
			 "the STAMP reflector is stateless: it understood Follow-Up Telemetry and zeroed it (RFC 8972 §4.7), so T3 is the one its reply carries, taken before the packet left (not said to be a NIC's): response is short and network long by its time from T3 to the wire");
	if ((pe->tlv_seen & fu) && !(pe->tlv_understood & fu) &&
	    strcmp(stamppeer_suffix_t3(sp), "_PEER_HW"))
		warn_add(ws, f, "stamp_peer_no_follow_up",
			 "ask for a reflector that knows RFC 8972's Follow-Up Telemetry, and stateful reflection on it, or one whose Timestamp Information says HW assist for T3",
			 "the STAMP reflector did not understand Follow-Up Telemetry: T3 is the one its reply carries, taken before the packet left (not said to be a NIC's): response is short and network long by its time from T3 to the wire");
}

void stamppeer_loss(const struct stamppeer *sp, uint64_t lost, uint64_t late,
		    struct stamp_loss_dir *out)
{
	const struct stamp_dirloss *d = &sp->loss;
	int64_t fwd, back;

	*out = (struct stamp_loss_dir){ 0 };
	if (d->dm && (d->dm_rx0 || d->dm_tx0)) {
		out->from = "direct_measurement";
		fwd = (int64_t)d->dm_s_span - d->dm_rx_span;
		back = (int64_t)d->dm_tx_span + 1 - (int64_t)d->replies;
	} else if (d->replies && (d->numbered || sp->followups)) {
		out->from = "reflector_numbers";
		fwd = (int64_t)d->s_span - d->r_span;
		back = (int64_t)d->r_span + 1 - (int64_t)d->replies;
	} else {
		out->why = !d->replies ? "no measured reply" :
			   "the reflector's sequence numbers are the sender's (a stateless reflector's, or a stateful one's with no ping lost on the way there and no follow-up), and its replies carry no Direct Measurement";
		return;
	}
	back -= (int64_t)late;	/* sent, and came back late */
	out->forward = fwd > 0 ? (uint64_t)fwd : 0;
	out->backward = back > 0 ? (uint64_t)back : 0;
	lost = lost > late ? lost - late : 0;
	out->other = lost > out->forward + out->backward ? lost - out->forward - out->backward : 0;
}

void stamppeer_loss_print(struct out *o, const struct stamppeer *sp, uint64_t lost,
			  uint64_t late)
{
	struct stamp_loss_dir l;

	stamppeer_loss(sp, lost, late, &l);
	if (!l.from) {
		out_null(o, "loss_by_direction");
		out_str(o, "loss_by_direction_unknown", "loss by direction: unknown (%s)\n", l.why);
		return;
	}
	out_obj(o, "loss_by_direction");
	out_text(o, "loss by direction (%s): ", !strcmp(l.from, "direct_measurement") ?
		 "the reflector's Direct Measurement counters" : "the reflector's own sequence numbers");
	out_str(o, "from", NULL, l.from);
	out_u64(o, "forward", "forward %" PRIu64, l.forward);
	out_u64(o, "backward", ", backward %" PRIu64, l.backward);
	out_u64(o, "other", ", other %" PRIu64 " (after the last reply came)", l.other);
	if (late)
		out_text(o, ", and %" PRIu64 " late (their pongs came back after --timeout)", late);
	out_text(o, "\n");
	out_obj_end(o);
}
