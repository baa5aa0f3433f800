// SPDX-License-Identifier: GPL-2.0
/*
 * ether.c - DLT_EN10MB, and the ethertype space other link types share:
 * 802.1Q/802.1ad VLAN tags (stacked), 802.2 LLC with RFC 1042/802.1H SNAP.
 *
 * Ethernet pads frames to 60 bytes; the padding stays in the IP slice's
 * wire length and ip_decode() trusts the IP header's length instead.
 */
#include "decode.h"

#define ETHER_MAX_LENGTH_FIELD 1500 /* type/length <= 1500: an 802.3 length */
#define ETHERTYPE_8021AD 0x88a8   /* service tag; <net/ethernet.h> has only 802.1Q */
#define ETHERTYPE_QINQ_OLD 0x9100 /* pre-802.1ad QinQ, still seen */
#define VLAN_TAG_LEN 4
/* Stacked tags beyond this are a loop of garbage, not a network. */
#define VLAN_MAX_TAGS 8

#define LLC_HDR_LEN 3
#define SNAP_HDR_LEN 5
#define LLC_SAP_SNAP 0xaa
#define LLC_CTRL_UI 0x03

static bool is_vlan_tpid(uint16_t ethertype)
{
	return ethertype == ETHERTYPE_VLAN || ethertype == ETHERTYPE_8021AD ||
	       ethertype == ETHERTYPE_QINQ_OLD;
}

enum malformed_reason ethertype_decode(struct frame *f, struct cursor *c, uint16_t ethertype)
{
	for (int tags = 0; is_vlan_tpid(ethertype); tags++) {
		if (tags == VLAN_MAX_TAGS)
			return MAL_UNSUPPORTED;
		if (!cursor_need(c, VLAN_TAG_LEN))
			return MAL_TRUNCATED;
		cursor_skip(c, 2); /* TCI: priority and VLAN id, not needed */
		ethertype = cursor_be16(c);
	}
	if (ethertype <= ETHER_MAX_LENGTH_FIELD)
		return llc_decode(f, c); /* 802.3 length inside a tag: LLC follows */
	if (ethertype == ETHERTYPE_IP || ethertype == ETHERTYPE_IPV6)
		frame_add_ip(f, c, ethertype);
	/* ARP, EAPOL, MPLS, PPPoE, ...: valid, nothing for avmon */
	return MAL_NONE;
}

enum malformed_reason llc_decode(struct frame *f, struct cursor *c)
{
	static const uint8_t oui_rfc1042[3] = { 0x00, 0x00, 0x00 };
	static const uint8_t oui_8021h[3] = { 0x00, 0x00, 0xf8 };
	uint8_t dsap, ssap, ctrl, oui[3];

	/* A body too short for LLC+SNAP on the wire is not SNAP-encapsulated
	 * IP (an empty data frame, a bare LLC test frame): nothing to hand up.
	 * Only a capture that stops inside a body long enough is truncated. */
	if (cursor_wire_left(c) < LLC_HDR_LEN + SNAP_HDR_LEN)
		return MAL_NONE;
	if (!cursor_need(c, LLC_HDR_LEN + SNAP_HDR_LEN))
		return MAL_TRUNCATED;
	dsap = cursor_u8(c);
	ssap = cursor_u8(c);
	ctrl = cursor_u8(c);
	if (dsap != LLC_SAP_SNAP || ssap != LLC_SAP_SNAP || ctrl != LLC_CTRL_UI)
		return MAL_NONE; /* STP, NetBIOS, ...: not IP */
	cursor_copy(c, oui, sizeof(oui));
	if (memcmp(oui, oui_rfc1042, sizeof(oui)) != 0 && memcmp(oui, oui_8021h, sizeof(oui)) != 0)
		return MAL_NONE; /* a vendor protocol (Cisco, Apple, ...) */
	return ethertype_decode(f, c, cursor_be16(c));
}

enum malformed_reason ether_decode(struct frame *f, struct cursor *c, const struct decode_context *ctx)
{
	const uint8_t *h = cursor_take(c, ETHER_HDR_LEN);
	uint16_t type;

	(void)ctx;
	if (!h)
		return MAL_TRUNCATED;
	memcpy(f->dst_mac.b, h, ETHER_ADDR_LEN);
	memcpy(f->src_mac.b, h + ETHER_ADDR_LEN, ETHER_ADDR_LEN);
	f->has_mac = true;
	type = load_be16(h + 2 * ETHER_ADDR_LEN);
	if (type <= ETHER_MAX_LENGTH_FIELD) {
		/* 802.3: the field is the LLC payload length; bytes past it
		 * are padding, so the LLC layer sees only that many. */
		struct cursor_window w;
		enum malformed_reason r;

		if (type > cursor_wire_left(c))
			return MAL_NONE; /* a length the frame does not hold: not IP we can trust */
		w = cursor_narrow(c, type);
		r = llc_decode(f, c);
		cursor_widen(c, w);
		return r;
	}
	return ethertype_decode(f, c, type);
}
