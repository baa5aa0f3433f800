// SPDX-License-Identifier: GPL-2.0
/*
 * qos_rate.c - apqos's rates and handles: parsing RATE arguments (iperf3
 * forms via libtcpav, plus tc's "mbit" forms), HTB's bytes/s, formatting,
 * and the default class's share of the link.
 */
#include "qos.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tcpav/tcpav.h"

int qos_parse_rate(const char *text, uint64_t *bps)
{
	char buf[64];
	size_t len;
	uint64_t v;

	if (!text || !bps)
		return -1;
	len = strlen(text);
	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, text, len + 1);
	/* tc's "15mbit", "500kbit", "1gbit", "800bit": drop "bit" and let
	 * libtcpav read "15m", "500k", "1g", "800" (powers of 1000, as tc) */
	if (len > 3 && (strcmp(buf + len - 3, "bit") == 0 || strcmp(buf + len - 3, "Bit") == 0)) {
		buf[len - 3] = '\0';
		if (buf[0] == '\0')
			return -1;
	}
	if (tcpav_parse_rate(buf, &v) < 0)
		return -1;
	if (v < QOS_RATE_MIN_BPS || v > QOS_RATE_MAX_BPS)
		return -1;
	*bps = v;
	return 0;
}

uint32_t qos_rate_bytes(uint64_t bps)
{
	uint64_t b = (bps + 4) / 8;

	if (b == 0)
		b = 1;
	if (b > 0xffffffffull)
		b = 0xffffffffull;
	return (uint32_t)b;
}

char *qos_format_rate(uint64_t bps, char *buf, size_t len)
{
	return tcpav_format_rate(bps, buf, len);
}

char *qos_format_handle(uint32_t handle, char *buf, size_t len)
{
	unsigned maj = handle >> 16, min = handle & 0xffffu;

	if (min)
		snprintf(buf, len, "%x:%x", maj, min);
	else
		snprintf(buf, len, "%x:", maj);
	return buf;
}

uint64_t qos_default_rate(uint64_t link, uint64_t sum_guarantees)
{
	uint64_t floor = link / 100;

	if (floor < QOS_RATE_MIN_BPS)
		floor = QOS_RATE_MIN_BPS;
	if (sum_guarantees >= link || link - sum_guarantees < floor)
		return floor;
	return link - sum_guarantees;
}
