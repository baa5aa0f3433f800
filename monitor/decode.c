// SPDX-License-Identifier: GPL-2.0
/*
 * decode.c - the link-type table and the frame entry point.
 *
 * One decoder per link type, chosen by the DLT libpcap reports; every
 * decoder reads through a struct cursor, and this file is where a cursor
 * overrun (the capture ended inside something the decoder had to read)
 * becomes MAL_TRUNCATED.
 */
#include <stddef.h>
#include <string.h>

#include <pcap/dlt.h>

#include "decode.h"

/* DLT_RAW is 12 on most platforms and 14 on OpenBSD; <pcap/dlt.h> defines
 * only the local value, and a file may carry either (or LINKTYPE_RAW 101,
 * which libpcap normally maps to DLT_RAW but older readers pass through). */
#define DLT_RAW_COMMON 12
#define DLT_RAW_OPENBSD 14
#define LINKTYPE_RAW 101

static const struct link_type link_types[] = {
	{ DLT_EN10MB, "EN10MB", ether_decode },
	{ DLT_LINUX_SLL, "LINUX_SLL", sll_decode },
	{ DLT_LINUX_SLL2, "LINUX_SLL2", sll2_decode },
	{ DLT_RAW_COMMON, "RAW", raw_decode },
	{ DLT_RAW_OPENBSD, "RAW", raw_decode },
	{ LINKTYPE_RAW, "RAW", raw_decode },
	{ DLT_IPV4, "IPV4", raw_ipv4_decode },
	{ DLT_IPV6, "IPV6", raw_ipv6_decode },
	{ DLT_IEEE802_11, "IEEE802_11", ieee80211_decode },
	{ DLT_IEEE802_11_RADIO, "IEEE802_11_RADIO", radiotap_decode },
};

const struct link_type *link_type_find(int dlt)
{
	for (size_t i = 0; i < sizeof(link_types) / sizeof(link_types[0]); i++)
		if (link_types[i].dlt == dlt)
			return &link_types[i];
	return NULL;
}

const char *malformed_reason_name(enum malformed_reason r)
{
	switch (r) {
	case MAL_NONE:
		return "none";
	case MAL_TRUNCATED:
		return "truncated";
	case MAL_BAD_RADIOTAP:
		return "bad_radiotap";
	case MAL_BAD_80211:
		return "bad_80211";
	case MAL_BAD_IP:
		return "bad_ip";
	case MAL_BAD_TCP:
		return "bad_tcp";
	case MAL_UNSUPPORTED:
		return "unsupported";
	case MAL_REASONS:
		break;
	}
	return "unknown";
}

void frame_decode_airtime(const struct link_type *lt, double ts, const uint8_t *data, uint32_t caplen,
			  uint32_t wirelen, bool with_ack, struct frame *f)
{
	struct decode_context ctx = { .airtime_with_ack = with_ack };
	struct cursor c;
	enum malformed_reason r;

	/* ip[] beyond n_ip is never read: zero only the fixed part (the
	 * slices are most of the struct, and this runs for every frame) */
	memset(f, 0, offsetof(struct frame, ip));
	f->malformed = MAL_NONE;
	f->ts = ts;
	f->caplen = caplen;
	f->wirelen = wirelen;
	f->sll_pkttype = -1;
	f->ifindex = -1;
	if (!lt) {
		f->dlt = -1;
		f->malformed = MAL_UNSUPPORTED;
		return;
	}
	f->dlt = lt->dlt;
	cursor_init(&c, data, caplen, wirelen);
	r = lt->decode(f, &c, &ctx);
	/* Whatever a decoder concluded after its cursor ran out was drawn from
	 * bytes it never saw: the first problem is that the capture ended. */
	if (c.overrun)
		r = MAL_TRUNCATED;
	f->malformed = r;
}

void frame_decode(const struct link_type *lt, double ts, const uint8_t *data, uint32_t caplen,
		  uint32_t wirelen, struct frame *f)
{
	frame_decode_airtime(lt, ts, data, caplen, wirelen, true, f);
}

void frame_add_ip(struct frame *f, const struct cursor *c, uint16_t ethertype)
{
	struct ip_slice *s;

	/* FRAME_MAX_IP bounds the A-MSDU subframes handed up; a frame with
	 * more is rare enough (the A-MSDU size limit allows ~30 small ones)
	 * that dropping the rest beats a variable-size frame. */
	if (f->n_ip >= FRAME_MAX_IP)
		return;
	s = &f->ip[f->n_ip++];
	s->ethertype = ethertype;
	s->data = cursor_pos(c);
	s->caplen = cursor_left(c);
	s->wirelen = cursor_wire_left(c);
	if (s->wirelen < s->caplen)
		s->wirelen = s->caplen;
}
