// SPDX-License-Identifier: GPL-2.0
/*
 * sll.c - Linux cooked captures, DLT_LINUX_SLL (16-byte header) and
 * DLT_LINUX_SLL2 (20 bytes), the link types of `tcpdump -i any`.
 * Layouts as in <pcap/sll.h>; all fields are big endian.
 *
 * The header names one link-layer address: the sender's. The frame's
 * destination is unknown, so f->has_mac stays false (stations are keyed by
 * IP, which is also right for "any": one packet can appear on several
 * interfaces); f->src_mac holds the sender's MAC when it is an Ethernet one.
 */
#include <net/if_arp.h> /* ARPHRD_ETHER */

#include <pcap/sll.h>

#include "decode.h"

/* Fields both header versions carry, in host order. */
struct sll_fields {
	uint16_t protocol;
	uint16_t hatype;
	uint8_t pkttype;
	uint8_t halen;
	uint8_t addr[SLL_ADDRLEN];
};

static enum malformed_reason sll_payload(struct frame *f, struct cursor *c, const struct sll_fields *h)
{
	f->sll_pkttype = h->pkttype;
	if (h->hatype == ARPHRD_ETHER && h->halen == ETHER_ADDR_LEN)
		memcpy(f->src_mac.b, h->addr, ETHER_ADDR_LEN);
	/* Protocol values below 1536 are not ethertypes but Linux ETH_P_
	 * codes; of those only 802.2 LLC can carry IP (via SNAP). */
	if (h->protocol == LINUX_SLL_P_802_2)
		return llc_decode(f, c);
	if (h->protocol < 0x0600)
		return MAL_NONE; /* Novell 802.3, CAN, ...: not IP */
	return ethertype_decode(f, c, h->protocol);
}

enum malformed_reason sll_decode(struct frame *f, struct cursor *c, const struct decode_context *ctx)
{
	struct sll_fields h;
	uint16_t halen;

	(void)ctx;
	if (!cursor_need(c, SLL_HDR_LEN))
		return MAL_TRUNCATED;
	h.pkttype = (uint8_t)cursor_be16(c);
	h.hatype = cursor_be16(c);
	halen = cursor_be16(c);
	h.halen = halen > SLL_ADDRLEN ? SLL_ADDRLEN : (uint8_t)halen;
	cursor_copy(c, h.addr, SLL_ADDRLEN);
	h.protocol = cursor_be16(c);
	return sll_payload(f, c, &h);
}

enum malformed_reason sll2_decode(struct frame *f, struct cursor *c, const struct decode_context *ctx)
{
	struct sll_fields h;

	(void)ctx;
	if (!cursor_need(c, SLL2_HDR_LEN))
		return MAL_TRUNCATED;
	h.protocol = cursor_be16(c);
	cursor_skip(c, 2); /* reserved, must be zero; not worth rejecting a frame */
	f->ifindex = (int)(cursor_be32(c) & 0x7fffffff);
	h.hatype = cursor_be16(c);
	h.pkttype = cursor_u8(c);
	h.halen = cursor_u8(c);
	if (h.halen > SLL_ADDRLEN)
		h.halen = SLL_ADDRLEN;
	cursor_copy(c, h.addr, SLL_ADDRLEN);
	return sll_payload(f, c, &h);
}
