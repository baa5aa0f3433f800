// SPDX-License-Identifier: GPL-2.0
/*
 * ieee80211.c - 802.11 MAC frames (DLT_IEEE802_11, and behind radiotap):
 * frame control, address roles, QoS data and A-MSDU, LLC/SNAP to IP.
 * Field layouts are IEEE Std 802.11-2016 clause 9.
 *
 * Address roles by To/From DS (9.3.2.1, Table 9-26):
 *   ToDS   addr1 = BSSID (RA), addr2 = station (TA): uplink, station = TA
 *   FromDS addr1 = station (RA), addr2 = BSSID (TA): downlink, station = RA
 *          when RA is unicast (group frames belong to no one station)
 *   neither (IBSS, or management/control) and both (WDS): no station role
 *
 * What avmon does not parse, it still counts: encrypted data (the
 * protected bit) and frames with a bad FCS get their header, length and
 * airtime but hand up no IP.
 */
#include "airtime.h"
#include "decode.h"

#define WLAN_ADDR_LEN 6
#define WLAN_FCS_LEN 4
#define WLAN_CTRL_RA_HDR_LEN 10  /* FC, duration, RA: ACK, CTS */
#define WLAN_CTRL_TA_HDR_LEN 16  /* ... and TA: RTS, BlockAck, PS-Poll, ... */
#define WLAN_MGMT_HDR_LEN 24
#define WLAN_DATA_HDR_LEN 24
#define WLAN_ADDR4_LEN 6
#define WLAN_QOS_CTRL_LEN 2
#define WLAN_HT_CTRL_LEN 4
#define AMSDU_SUBFRAME_HDR_LEN 14 /* DA, SA, big-endian length */


/* Frame control, second octet */
#define FC_TO_DS 0x01
#define FC_FROM_DS 0x02
#define FC_RETRY 0x08
#define FC_PROTECTED 0x40
#define FC_ORDER 0x80 /* +HTC in QoS data and management frames */

/* Control subtypes that carry a TA (Table 9-1): Trigger, Beamforming
 * Report Poll, VHT NDP Announcement, BlockAckReq, BlockAck, PS-Poll, RTS,
 * CF-End, CF-End+CF-Ack. ACK, CTS and the control wrapper have only RA. */
#define CTRL_WITH_TA_MASK                                                                     \
	((1u << 2) | (1u << 4) | (1u << 5) | (1u << 8) | (1u << 9) | (1u << 10) | (1u << 11) | \
	 (1u << 14) | (1u << 15))

#define MGMT_SUBTYPE_ACTION_NO_ACK 14
#define DATA_SUBTYPE_QOS 0x8     /* QoS data, QoS null, ... */
#define DATA_SUBTYPE_NO_DATA WLAN_SUBTYPE_NO_BODY
#define QOS_AMSDU_PRESENT 0x0080
#define QOS_ACK_POLICY_SHIFT 5
#define QOS_ACK_POLICY_MASK 0x3
#define QOS_ACK_POLICY_NORMAL 0 /* ACK, or implicit BlockAckReq in an A-MPDU */

/* A-MSDU (9.3.2.2): subframes of DA, SA, length (big endian, unlike the
 * rest of 802.11), an LLC/SNAP body, padding to 4 bytes except after the
 * last. Each becomes one IP slice. */
static enum malformed_reason amsdu_decode(struct frame *f, struct cursor *c)
{
	while (cursor_wire_left(c) > 0 && f->n_ip < FRAME_MAX_IP) {
		struct cursor_window w;
		enum malformed_reason r;
		size_t len, pad;

		if (cursor_wire_left(c) < AMSDU_SUBFRAME_HDR_LEN)
			return MAL_BAD_80211; /* bytes after the last subframe that are none */
		if (!cursor_need(c, AMSDU_SUBFRAME_HDR_LEN))
			return MAL_TRUNCATED;
		cursor_skip(c, 2 * WLAN_ADDR_LEN); /* DA, SA: the IP addresses key flows */
		len = cursor_be16(c);
		if (len > cursor_wire_left(c))
			return MAL_BAD_80211;
		/* The body may extend past the snaplen: the window steps over
		 * it on the wire; the next subframe header read will tell. */
		w = cursor_narrow(c, len);
		r = llc_decode(f, c);
		cursor_widen(c, w);
		if (r != MAL_NONE)
			return r;
		pad = (4 - (AMSDU_SUBFRAME_HDR_LEN + len) % 4) % 4;
		if (cursor_wire_left(c) <= pad)
			break; /* that was the last subframe */
		cursor_skip_wire(c, pad);
	}
	return MAL_NONE;
}

/* Whether the receiver answers with an ACK (BlockAck after an A-MPDU). */
static bool frame_is_acked(const struct wlan_info *w, uint16_t qos_ctrl)
{
	bool qos = w->subtype & DATA_SUBTYPE_QOS;

	if (mac_is_group(&w->ra))
		return false;
	if (w->type == WLAN_TYPE_MGMT)
		return w->subtype != MGMT_SUBTYPE_ACTION_NO_ACK;
	if (w->type != WLAN_TYPE_DATA)
		return false; /* control frames are answered, if at all, by their own exchange */
	return !qos || ((qos_ctrl >> QOS_ACK_POLICY_SHIFT) & QOS_ACK_POLICY_MASK) == QOS_ACK_POLICY_NORMAL;
}

static void wlan_airtime(struct frame *f, const struct decode_context *ctx, const struct radiotap_extra *x,
			 bool acked)
{
	bool with_ack = acked && ctx->airtime_with_ack;

	if (!f->radio.present)
		return;
	/* An A-MPDU subframe's share; when the capture does not say which
	 * subframe is last, each is priced as a PPDU of its own. */
	if (f->radio.ampdu)
		f->wlan.airtime_us = airtime_ampdu_subframe_us(&f->radio, f->wlan.mpdu_len,
							       !x->ampdu_last_known || x->ampdu_last, with_ack);
	else
		f->wlan.airtime_us = airtime_us(&f->radio, f->wlan.mpdu_len, with_ack);
}

static enum malformed_reason ctrl_decode(struct frame *f, struct cursor *c)
{
	struct wlan_info *w = &f->wlan;
	size_t hdr_len;

	w->has_ta = CTRL_WITH_TA_MASK & (1u << w->subtype);
	hdr_len = w->has_ta ? WLAN_CTRL_TA_HDR_LEN : WLAN_CTRL_RA_HDR_LEN;
	if (cursor_wire_left(c) < hdr_len - 2)
		return MAL_BAD_80211;
	if (!cursor_need(c, hdr_len - 2))
		return MAL_TRUNCATED;
	cursor_skip(c, 2); /* duration */
	cursor_copy(c, w->ra.b, WLAN_ADDR_LEN);
	if (w->has_ta) {
		cursor_copy(c, w->ta.b, WLAN_ADDR_LEN);
		/* A VHT transmitter sets the group bit of TA to signal
		 * bandwidth (9.3.1.2); the station is the same. */
		w->ta.b[0] &= (uint8_t)~0x01;
	}
	w->present = true;
	return MAL_NONE;
}

static enum malformed_reason mgmt_decode(struct frame *f, struct cursor *c, bool order)
{
	struct wlan_info *w = &f->wlan;
	size_t hdr_len = WLAN_MGMT_HDR_LEN + (order ? WLAN_HT_CTRL_LEN : 0);
	uint16_t seq_ctrl;

	if (cursor_wire_left(c) < hdr_len - 2)
		return MAL_BAD_80211;
	if (!cursor_need(c, hdr_len - 2))
		return MAL_TRUNCATED;
	cursor_skip(c, 2); /* duration */
	cursor_copy(c, w->ra.b, WLAN_ADDR_LEN);
	cursor_copy(c, w->ta.b, WLAN_ADDR_LEN);
	w->has_ta = true;
	cursor_skip(c, WLAN_ADDR_LEN); /* BSSID */
	seq_ctrl = cursor_le16(c);
	w->seq = seq_ctrl >> 4;
	w->frag = seq_ctrl & 0x0f;
	w->present = true;
	/* The body (beacon, probe, auth, action) carries no IP. */
	return MAL_NONE;
}

/* Reads the data header; *qos_ctrl and *hdr_len for the caller. */
static enum malformed_reason data_hdr_decode(struct frame *f, struct cursor *c, bool order, uint16_t *qos_ctrl,
					     size_t *hdr_len)
{
	struct wlan_info *w = &f->wlan;
	bool qos = w->subtype & DATA_SUBTYPE_QOS;
	uint16_t seq_ctrl;

	*hdr_len = WLAN_DATA_HDR_LEN + (w->to_ds && w->from_ds ? WLAN_ADDR4_LEN : 0) +
		   (qos ? WLAN_QOS_CTRL_LEN : 0) + (qos && order ? WLAN_HT_CTRL_LEN : 0);
	if (cursor_wire_left(c) < *hdr_len - 2)
		return MAL_BAD_80211;
	if (!cursor_need(c, *hdr_len - 2))
		return MAL_TRUNCATED;
	cursor_skip(c, 2); /* duration */
	cursor_copy(c, w->ra.b, WLAN_ADDR_LEN);
	cursor_copy(c, w->ta.b, WLAN_ADDR_LEN);
	w->has_ta = true;
	cursor_skip(c, WLAN_ADDR_LEN); /* addr3: DA, SA or BSSID */
	seq_ctrl = cursor_le16(c);
	w->seq = seq_ctrl >> 4;
	w->frag = seq_ctrl & 0x0f;
	if (w->to_ds && w->from_ds)
		cursor_skip(c, WLAN_ADDR4_LEN);
	if (qos) {
		*qos_ctrl = cursor_le16(c);
		w->amsdu = *qos_ctrl & QOS_AMSDU_PRESENT;
		if (order)
			cursor_skip(c, WLAN_HT_CTRL_LEN);
	}
	if (w->to_ds && !w->from_ds) {
		w->dir = WLAN_DIR_UP;
		w->station = w->ta;
	} else if (!w->to_ds && w->from_ds && !mac_is_group(&w->ra)) {
		w->dir = WLAN_DIR_DOWN;
		w->station = w->ra;
	}
	w->present = true;
	return MAL_NONE;
}

static enum malformed_reason data_body_decode(struct frame *f, struct cursor *c, const struct radiotap_extra *x,
					      size_t hdr_len)
{
	const struct wlan_info *w = &f->wlan;

	if (w->subtype & DATA_SUBTYPE_NO_DATA)
		return MAL_NONE; /* null / QoS null: power save and keepalive, no body */
	if (w->protected_frame)
		return MAL_NONE; /* encrypted: counted, not parsed */
	if (f->radio.bad_fcs)
		return MAL_NONE; /* the bytes are damaged: no flows from them */
	if (x->data_pad && hdr_len % 4) {
		/* Some drivers align the body to 4 bytes (radiotap flag 0x20). */
		if (cursor_wire_left(c) < 4 - hdr_len % 4)
			return MAL_BAD_80211;
		cursor_skip(c, 4 - hdr_len % 4);
	}
	if (w->amsdu)
		return amsdu_decode(f, c);
	return llc_decode(f, c);
}

enum malformed_reason ieee80211_decode_radio(struct frame *f, struct cursor *c, const struct decode_context *ctx,
					     const struct radiotap_extra *x)
{
	struct wlan_info *w = &f->wlan;
	enum malformed_reason r = MAL_NONE;
	uint16_t fc, qos_ctrl = 0;
	size_t wire = cursor_wire_left(c), hdr_len = 0;
	bool order;

	/* mpdu_len is the frame as sent, FCS included whether or not the
	 * capture kept it; the FCS is no part of what the decoders read. */
	if (f->radio.present && f->radio.fcs_at_end) {
		if (!cursor_drop_tail(c, WLAN_FCS_LEN))
			return MAL_BAD_80211;
		w->mpdu_len = (uint32_t)wire;
	} else {
		w->mpdu_len = (uint32_t)wire + WLAN_FCS_LEN;
	}
	if (cursor_wire_left(c) < 2)
		return MAL_BAD_80211;
	if (!cursor_need(c, 2))
		return MAL_TRUNCATED;
	fc = cursor_le16(c);
	if (fc & 0x0003)
		return MAL_BAD_80211; /* protocol version 0 is the only one */
	w->type = (fc >> 2) & 0x3;
	w->subtype = (fc >> 4) & 0xf;
	w->to_ds = (fc >> 8) & FC_TO_DS;
	w->from_ds = (fc >> 8) & FC_FROM_DS;
	w->retry = (fc >> 8) & FC_RETRY;
	w->protected_frame = (fc >> 8) & FC_PROTECTED;
	order = (fc >> 8) & FC_ORDER;

	switch (w->type) {
	case WLAN_TYPE_CTRL:
		r = ctrl_decode(f, c);
		break;
	case WLAN_TYPE_MGMT:
		r = mgmt_decode(f, c, order);
		break;
	case WLAN_TYPE_DATA:
		r = data_hdr_decode(f, c, order, &qos_ctrl, &hdr_len);
		break;
	default:
		return MAL_UNSUPPORTED; /* extension frames (DMG beacon, S1G) */
	}
	if (r != MAL_NONE)
		return r;
	wlan_airtime(f, ctx, x, frame_is_acked(w, qos_ctrl));
	if (w->type != WLAN_TYPE_DATA)
		return MAL_NONE;
	return data_body_decode(f, c, x, hdr_len);
}

enum malformed_reason ieee80211_decode(struct frame *f, struct cursor *c, const struct decode_context *ctx)
{
	/* No radio header: whether the FCS was kept is unknown; like tshark's
	 * default, assume the driver stripped it. */
	static const struct radiotap_extra no_radiotap = { 0 };

	return ieee80211_decode_radio(f, c, ctx, &no_radiotap);
}
