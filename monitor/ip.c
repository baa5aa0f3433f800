// SPDX-License-Identifier: GPL-2.0
/*
 * ip.c - IPv4/IPv6, then TCP (with options) or UDP ports, from one
 * struct ip_slice a link decoder handed up.
 *
 * Lengths come from the IP header: the captured bytes may stop early
 * (snaplen) and the frame may carry padding (Ethernet minimum size), but
 * the IP total length / payload length says what the packet carried. A
 * slice cut after the TCP header therefore decodes completely, with
 * payload_len counted from the header. An IP header that claims more bytes
 * than were on the wire is malformed (MAL_BAD_IP).
 */
#include <stddef.h>
#include <string.h>

#include <netinet/in.h>

#include "decode.h"

#define IPV4_MIN_HDR_LEN 20
#define IPV6_HDR_LEN 40
#define IPV4_FRAG_OFFSET_MASK 0x1fff
#define TCP_MIN_HDR_LEN 20
#define UDP_HDR_LEN 8

/* <netinet/in.h> has the rest; these two are newer than glibc's list. */
#ifndef IPPROTO_HIP
#define IPPROTO_HIP 139 /* RFC 7401 */
#endif
#ifndef IPPROTO_SHIM6
#define IPPROTO_SHIM6 140 /* RFC 5533 */
#endif
#define IPV6_FRAG_HDR_LEN 8
/* A chain longer than this is an attack on the decoder, not a packet. */
#define IPV6_MAX_EXT_HDRS 16

#define TCPOPT_EOL 0
#define TCPOPT_NOP 1
#define TCPOPT_MSS 2
#define TCPOPT_WSCALE 3
#define TCPOPT_SACK 5
#define TCPOPT_TIMESTAMP 8
#define TCPOLEN_MSS 4
#define TCPOLEN_WSCALE 3
#define TCPOLEN_TIMESTAMP 10
#define TCPOLEN_SACK_BLOCK 8
#define TCP_MAX_WSCALE 14 /* RFC 7323 2.3: larger shifts are used as 14 */

/* The options of a TCP header, all captured (tcp_decode checked): n bytes
 * at o, parsed with offsets checked against n. */
static enum malformed_reason tcp_options_decode(const uint8_t *o, size_t n, struct ip_packet *p)
{
	size_t i = 0;

	/* what nearly every established segment carries: NOP NOP TS (RFC 7323
	 * appendix A), checked in one word as Linux's
	 * tcp_parse_aligned_timestamp() does */
	if (n == 12 && load_be32(o) == (TCPOPT_NOP << 24 | TCPOPT_NOP << 16 | TCPOPT_TIMESTAMP << 8 | TCPOLEN_TIMESTAMP)) {
		p->has_ts = true;
		p->ts_val = load_be32(o + 4);
		p->ts_ecr = load_be32(o + 8);
		return MAL_NONE;
	}
	while (i < n) {
		uint8_t kind = o[i++], len;
		const uint8_t *body;
		size_t body_len;

		if (kind == TCPOPT_EOL)
			break;
		if (kind == TCPOPT_NOP)
			continue;
		if (i >= n)
			return MAL_BAD_TCP; /* a kind with no room for its length */
		len = o[i++];
		if (len < 2 || (size_t)(len - 2) > n - i)
			return MAL_BAD_TCP;
		body = o + i;
		body_len = (size_t)len - 2;
		i += body_len;
		switch (kind) {
		case TCPOPT_MSS:
			/* struct ip_packet has no MSS field: checked, not kept */
			if (len != TCPOLEN_MSS)
				return MAL_BAD_TCP;
			break;
		case TCPOPT_WSCALE:
			if (len != TCPOLEN_WSCALE)
				return MAL_BAD_TCP;
			p->wscale = (int8_t)(body[0] > TCP_MAX_WSCALE ? TCP_MAX_WSCALE : body[0]);
			break;
		case TCPOPT_SACK:
			if (body_len == 0 || body_len % TCPOLEN_SACK_BLOCK != 0)
				return MAL_BAD_TCP;
			for (size_t k = 0; k < body_len / TCPOLEN_SACK_BLOCK && p->n_sack < TCP_MAX_SACK; k++) {
				p->sack_left[p->n_sack] = load_be32(body + k * TCPOLEN_SACK_BLOCK);
				p->sack_right[p->n_sack] = load_be32(body + k * TCPOLEN_SACK_BLOCK + 4);
				p->n_sack++;
			}
			break;
		case TCPOPT_TIMESTAMP:
			if (len != TCPOLEN_TIMESTAMP)
				return MAL_BAD_TCP;
			p->has_ts = true;
			p->ts_val = load_be32(body);
			p->ts_ecr = load_be32(body + 4);
			break;
		default:
			break;
		}
	}
	return MAL_NONE;
}

/* l4_len: the transport bytes the IP header says follow (not the capture). */
static enum malformed_reason tcp_decode(struct cursor *c, struct ip_packet *p, size_t l4_len)
{
	const uint8_t *h, *options;
	uint16_t doff_flags;
	size_t hdr_len;

	if (l4_len < TCP_MIN_HDR_LEN)
		return MAL_BAD_TCP;
	h = cursor_take(c, TCP_MIN_HDR_LEN);
	if (!h)
		return MAL_TRUNCATED;
	p->sport = load_be16(h);
	p->dport = load_be16(h + 2);
	p->seq = load_be32(h + 4);
	p->ack = load_be32(h + 8);
	doff_flags = load_be16(h + 12);
	p->tcp_flags = (uint8_t)(doff_flags & 0xff); /* NS (0x100) is not kept */
	p->window = load_be16(h + 14);
	/* checksum and urgent pointer (h + 16) are not used */
	p->is_tcp = true;
	hdr_len = (size_t)(doff_flags >> 12) * 4;
	if (hdr_len < TCP_MIN_HDR_LEN || hdr_len > l4_len)
		return MAL_BAD_TCP;
	p->payload_len = (uint32_t)(l4_len - hdr_len);
	options = cursor_take(c, hdr_len - TCP_MIN_HDR_LEN);
	if (!options)
		return MAL_TRUNCATED;
	return tcp_options_decode(options, hdr_len - TCP_MIN_HDR_LEN, p);
}

static enum malformed_reason transport_decode(struct cursor *c, struct ip_packet *p, size_t l4_len)
{
	switch (p->proto) {
	case IPPROTO_TCP:
		return tcp_decode(c, p, l4_len);
	case IPPROTO_UDP:
		if (l4_len < UDP_HDR_LEN)
			return MAL_BAD_IP; /* IP says the datagram is shorter than its header */
		if (!cursor_need(c, UDP_HDR_LEN))
			return MAL_TRUNCATED;
		p->sport = cursor_be16(c);
		p->dport = cursor_be16(c);
		return MAL_NONE;
	default:
		return MAL_NONE; /* ICMP, ESP, GRE, ...: addresses only */
	}
}

static enum malformed_reason ipv4_decode(struct cursor *c, struct ip_packet *p)
{
	size_t wire = cursor_wire_left(c), hdr_len, total_len;
	const uint8_t *h = cursor_take(c, IPV4_MIN_HDR_LEN);
	uint16_t frag;
	uint8_t vihl;

	if (!h)
		return MAL_TRUNCATED;
	vihl = h[0];
	if (vihl >> 4 != 4)
		return MAL_BAD_IP;
	p->family = 4;
	hdr_len = (size_t)(vihl & 0x0f) * 4;
	/* h[1] DSCP/ECN, h[4..5] identification, h[8] TTL, h[10..11] checksum
	 * (offloaded NICs leave it wrong, so it is not checked) */
	total_len = load_be16(h + 2);
	frag = load_be16(h + 6);
	p->proto = h[9];
	memcpy(p->src, h + 12, 4);
	memcpy(p->dst, h + 16, 4);
	/* A zero total length is what TSO super-packets carry when captured on
	 * the sending host: the NIC fills it per segment. The wire length is
	 * the best figure then. */
	if (total_len == 0)
		total_len = wire;
	if (hdr_len < IPV4_MIN_HDR_LEN || total_len < hdr_len)
		return MAL_BAD_IP;
	p->ip_len = (uint32_t)(total_len < wire ? total_len : wire);
	if (total_len > wire)
		return MAL_BAD_IP; /* the header claims bytes the frame did not carry */
	if (!cursor_need(c, hdr_len - IPV4_MIN_HDR_LEN))
		return MAL_TRUNCATED;
	cursor_skip(c, hdr_len - IPV4_MIN_HDR_LEN); /* options */
	if (frag & IPV4_FRAG_OFFSET_MASK)
		return MAL_NONE; /* a later fragment: no transport header in it */
	return transport_decode(c, p, total_len - hdr_len);
}

static bool ipv6_is_ext_hdr(uint8_t nh)
{
	switch (nh) {
	case IPPROTO_HOPOPTS:
	case IPPROTO_ROUTING:
	case IPPROTO_DSTOPTS:
	case IPPROTO_FRAGMENT:
	case IPPROTO_AH:
	case IPPROTO_MH:
	case IPPROTO_HIP:
	case IPPROTO_SHIM6:
		return true;
	default:
		return false;
	}
}

static enum malformed_reason ipv6_decode(struct cursor *c, struct ip_packet *p)
{
	size_t wire = cursor_wire_left(c), payload_len, left;
	uint8_t nh;

	if (!cursor_need(c, IPV6_HDR_LEN))
		return MAL_TRUNCATED;
	if (cursor_u8(c) >> 4 != 6)
		return MAL_BAD_IP;
	p->family = 6;
	cursor_skip(c, 3); /* traffic class, flow label */
	payload_len = cursor_be16(c);
	nh = cursor_u8(c);
	cursor_skip(c, 1); /* hop limit */
	cursor_copy(c, p->src, 16);
	cursor_copy(c, p->dst, 16);
	/* Zero: a jumbogram or a BIG TCP/GSO packet captured on the host; the
	 * real length is in a hop-by-hop option or nowhere, the wire has it. */
	if (payload_len == 0)
		payload_len = wire - IPV6_HDR_LEN;
	p->ip_len = (uint32_t)(IPV6_HDR_LEN + payload_len < wire ? IPV6_HDR_LEN + payload_len : wire);
	p->proto = nh;
	if (IPV6_HDR_LEN + payload_len > wire)
		return MAL_BAD_IP;
	left = payload_len;
	for (int n = 0; ipv6_is_ext_hdr(nh); n++) {
		size_t len;
		uint8_t next;

		if (n == IPV6_MAX_EXT_HDRS)
			return MAL_UNSUPPORTED;
		if (left < 8)
			return MAL_BAD_IP; /* every extension header is at least 8 bytes */
		if (!cursor_need(c, 2))
			return MAL_TRUNCATED;
		next = cursor_u8(c);
		if (nh == IPPROTO_FRAGMENT) {
			uint16_t offset_flags;

			cursor_skip(c, 1); /* reserved */
			offset_flags = cursor_be16(c);
			cursor_skip(c, 4); /* identification */
			left -= IPV6_FRAG_HDR_LEN;
			p->proto = next;
			if (offset_flags >> 3)
				return MAL_NONE; /* a later fragment: no transport header */
			nh = next;
			continue;
		}
		/* AH counts its length in 4-byte units minus 2 (RFC 4302), the
		 * others in 8-byte units beyond the first 8 (RFC 8200 4.3+). */
		len = nh == IPPROTO_AH ? ((size_t)cursor_u8(c) + 2) * 4 : ((size_t)cursor_u8(c) + 1) * 8;
		if (len > left)
			return MAL_BAD_IP;
		cursor_skip(c, len - 2);
		left -= len;
		nh = next;
		p->proto = nh;
	}
	return transport_decode(c, p, left);
}

enum malformed_reason ip_decode(const struct ip_slice *s, struct ip_packet *p)
{
	struct cursor c;
	enum malformed_reason r;

	/* the SACK arrays are read only up to n_sack: not zeroed */
	memset(p, 0, offsetof(struct ip_packet, sack_left));
	p->wscale = -1;
	cursor_init(&c, s->data, s->caplen, s->wirelen);
	switch (s->ethertype) {
	case ETHERTYPE_IP:
		r = ipv4_decode(&c, p);
		break;
	case ETHERTYPE_IPV6:
		r = ipv6_decode(&c, p);
		break;
	default:
		r = MAL_UNSUPPORTED;
		break;
	}
	/* As in frame_decode(): a read the capture could not satisfy is the
	 * first problem, whatever was concluded from the zeros it returned. */
	if (c.overrun)
		r = MAL_TRUNCATED;
	return r;
}
