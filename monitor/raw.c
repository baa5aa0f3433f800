// SPDX-License-Identifier: GPL-2.0
/*
 * raw.c - link types with no link header: DLT_RAW (IPv4 or IPv6, told
 * apart by the version nibble) and DLT_IPV4 / DLT_IPV6 (the DLT says which).
 * The whole frame is the IP slice; ip_decode() checks the rest.
 */
#include "decode.h"

enum malformed_reason raw_decode(struct frame *f, struct cursor *c, const struct decode_context *ctx)
{
	uint8_t first;

	(void)ctx;
	if (!cursor_need(c, 1))
		return MAL_TRUNCATED;
	cursor_peek_u8(c, 0, &first);
	switch (first >> 4) {
	case 4:
		frame_add_ip(f, c, ETHERTYPE_IP);
		return MAL_NONE;
	case 6:
		frame_add_ip(f, c, ETHERTYPE_IPV6);
		return MAL_NONE;
	default:
		return MAL_BAD_IP; /* raw IP that is neither version */
	}
}

static enum malformed_reason raw_fixed_decode(struct frame *f, struct cursor *c, uint16_t ethertype)
{
	if (!cursor_need(c, 1))
		return MAL_TRUNCATED;
	frame_add_ip(f, c, ethertype);
	return MAL_NONE;
}

enum malformed_reason raw_ipv4_decode(struct frame *f, struct cursor *c, const struct decode_context *ctx)
{
	(void)ctx;
	return raw_fixed_decode(f, c, ETHERTYPE_IP);
}

enum malformed_reason raw_ipv6_decode(struct frame *f, struct cursor *c, const struct decode_context *ctx)
{
	(void)ctx;
	return raw_fixed_decode(f, c, ETHERTYPE_IPV6);
}
